# The computer name is the Kubernetes node name, as on any real cluster: what a HostProcess pod
# reports as its hostname. A rename takes effect at the next boot: the script exits 3010, the
# harness reboots the node and runs it again, which then finds the name active.
. "$PSScriptRoot\common.ps1"

$name = $Hl.HL_NODE_NAME
$key = 'HKLM:\SYSTEM\CurrentControlSet\Control\ComputerName'
$active = (Get-ItemProperty -Path "$key\ActiveComputerName").ComputerName
$pending = (Get-ItemProperty -Path "$key\ComputerName").ComputerName
# Computer names compare without case: Windows keeps the NetBIOS name in upper case.
if ($active -eq $name) {
    Write-HlOk "computer name $name"
    exit 0
}
if ($pending -eq $name) {
    Write-HlLog "computer name $name waits for a reboot"
    exit 3010
}
Rename-Computer -NewName $name -Force
Write-HlChanged "computer name $active renamed to $name"
exit 3010
