# The route to the lab's external CIDR (where outbound-NAT probes go) over the lab NIC: pod
# traffic NATed to the node then leaves with the node's lab address, not over the management
# NIC's default route. Run once the node joined: flannel's HNS network takes the lab NIC into a
# vSwitch and moves its address to a new vEthernet adapter, so the route is made (and checked) on
# the interface that carries the address after that. New-NetRoute keeps it across reboots too.
. "$PSScriptRoot\common.ps1"

$network = $Hl.HL_KUBE_NETWORK
$deadline = (Get-Date).AddMinutes(10)
while (-not (Get-HnsNetwork | Where-Object { $_.Name -eq $network })) {
    if ((Get-Date) -gt $deadline) { Stop-Hl "HNS network $network did not appear within 10 minutes (flannel's DaemonSet makes it)" }
    Start-Sleep -Seconds 5
}
$address = Get-NetIPAddress -AddressFamily IPv4 -IPAddress $Hl.HL_NODE_IP -ErrorAction SilentlyContinue
if ($null -eq $address) { Stop-Hl "no interface carries the node address $($Hl.HL_NODE_IP)" }
$prefix = $Hl.HL_EXTERNAL_CIDR
$gateway = $Hl.HL_LAB_GATEWAY
$routes = @(Get-NetRoute -DestinationPrefix $prefix -ErrorAction SilentlyContinue)
$wanted = $routes | Where-Object { $_.InterfaceIndex -eq $address.InterfaceIndex -and $_.NextHop -eq $gateway }
if ($routes.Count -eq 1 -and $null -ne $wanted) {
    Write-HlOk "route $prefix via $gateway ($($address.InterfaceAlias))"
    exit 0
}
foreach ($route in $routes) { Remove-NetRoute -InputObject $route -Confirm:$false }
New-NetRoute -DestinationPrefix $prefix -InterfaceIndex $address.InterfaceIndex -NextHop $gateway | Out-Null
$made = @(Get-NetRoute -DestinationPrefix $prefix -ErrorAction SilentlyContinue |
        Where-Object { $_.InterfaceIndex -eq $address.InterfaceIndex -and $_.NextHop -eq $gateway })
if ($made.Count -eq 0) { Stop-Hl "route $prefix via $gateway is not on $($address.InterfaceAlias) after New-NetRoute" }
Write-HlChanged "route $prefix via $gateway ($($address.InterfaceAlias))"
