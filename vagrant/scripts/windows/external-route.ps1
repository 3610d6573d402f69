# The route to the lab's external CIDR (where outbound-NAT probes go) over the lab NIC: pod
# traffic NATed to the node then leaves with the node's lab address, not over the management
# NIC's default route. Run once the node joined: flannel's HNS network takes the lab NIC into a
# vSwitch and moves its address to a new vEthernet adapter, so the route is made (and checked) on
# the interface that carries the address after that. flannel makes that network non-persistent:
# after a reboot it makes it again, with a new adapter, so the route lives in the active store
# only and a task at startup runs this script again.
. "$PSScriptRoot\common.ps1"

$network = $Hl.HL_KUBE_NETWORK
$task = 'hybrid-lab-external-route'
if (-not (Get-ScheduledTask -TaskName $task -ErrorAction SilentlyContinue)) {
    $action = New-ScheduledTaskAction -Execute "$env:SystemRoot\System32\WindowsPowerShell\v1.0\powershell.exe" `
        -Argument "-NoProfile -NonInteractive -ExecutionPolicy Bypass -File `"$PSCommandPath`""
    $trigger = New-ScheduledTaskTrigger -AtStartup
    $principal = New-ScheduledTaskPrincipal -UserId 'S-1-5-18' -LogonType ServiceAccount -RunLevel Highest
    Register-ScheduledTask -TaskName $task -Action $action -Trigger $trigger -Principal $principal | Out-Null
    Write-HlChanged "task $task runs this script at startup"
}

# flannel lists its HNS network before the vNIC it made carries the node address (it waits for
# that itself): both are looked for until the deadline.
$deadline = (Get-Date).AddMinutes(10)
$address = $null
while ($null -eq $address) {
    if (Get-HnsNetwork | Where-Object { $_.Name -eq $network }) {
        $address = Get-NetIPAddress -AddressFamily IPv4 -IPAddress $Hl.HL_NODE_IP -ErrorAction SilentlyContinue
    }
    if ($null -eq $address) {
        if ((Get-Date) -gt $deadline) { Stop-Hl "HNS network $network with the node address $($Hl.HL_NODE_IP) on an interface did not appear within 10 minutes (flannel's DaemonSet makes it)" }
        Start-Sleep -Seconds 5
    }
}
$prefix = $Hl.HL_EXTERNAL_CIDR
$gateway = $Hl.HL_LAB_GATEWAY
# Earlier runs left routes in the persistent store too: they would come back on a stale adapter.
$stale = @(Get-NetRoute -DestinationPrefix $prefix -PolicyStore PersistentStore -ErrorAction SilentlyContinue)
$routes = @(Get-NetRoute -DestinationPrefix $prefix -PolicyStore ActiveStore -ErrorAction SilentlyContinue)
$wanted = $routes | Where-Object { $_.InterfaceIndex -eq $address.InterfaceIndex -and $_.NextHop -eq $gateway }
if ($stale.Count -eq 0 -and $routes.Count -eq 1 -and $null -ne $wanted) {
    Write-HlOk "route $prefix via $gateway ($($address.InterfaceAlias))"
    exit 0
}
foreach ($route in @($stale) + @($routes)) { Remove-NetRoute -InputObject $route -Confirm:$false }
New-NetRoute -DestinationPrefix $prefix -InterfaceIndex $address.InterfaceIndex -NextHop $gateway -PolicyStore ActiveStore | Out-Null
$made = @(Get-NetRoute -DestinationPrefix $prefix -PolicyStore ActiveStore -ErrorAction SilentlyContinue |
        Where-Object { $_.InterfaceIndex -eq $address.InterfaceIndex -and $_.NextHop -eq $gateway })
if ($made.Count -eq 0) { Stop-Hl "route $prefix via $gateway is not on $($address.InterfaceAlias) after New-NetRoute" }
Write-HlChanged "route $prefix via $gateway ($($address.InterfaceAlias))"
