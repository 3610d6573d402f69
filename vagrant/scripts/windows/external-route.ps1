# The route to the lab's external CIDR (where outbound-NAT probes go) over the lab NIC: pod
# traffic NATed to the node then leaves with the node's lab address, not over the management
# NIC's default route. New-NetRoute keeps it in the persistent store too (across reboots).
. "$PSScriptRoot\common.ps1"

$address = Get-NetIPAddress -AddressFamily IPv4 -IPAddress $Hl.HL_NODE_IP -ErrorAction SilentlyContinue
if ($null -eq $address) { Stop-Hl "no interface carries the node address $($Hl.HL_NODE_IP)" }
$prefix = $Hl.HL_EXTERNAL_CIDR
$gateway = $Hl.HL_LAB_GATEWAY
$routes = @(Get-NetRoute -DestinationPrefix $prefix -ErrorAction SilentlyContinue)
$wanted = $routes | Where-Object { $_.InterfaceIndex -eq $address.InterfaceIndex -and $_.NextHop -eq $gateway }
if ($routes.Count -eq 1 -and $null -ne $wanted) {
    Write-HlOk "route $prefix via $gateway ($($address.InterfaceAlias))"
} else {
    foreach ($route in $routes) { Remove-NetRoute -InputObject $route -Confirm:$false }
    New-NetRoute -DestinationPrefix $prefix -InterfaceIndex $address.InterfaceIndex -NextHop $gateway | Out-Null
    Write-HlChanged "route $prefix via $gateway ($($address.InterfaceAlias))"
}
