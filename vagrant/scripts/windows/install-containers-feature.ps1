# Enables the Windows Containers feature. Exits 3010 when Windows needs a reboot first; the
# harness then reboots the node and runs this script again, which finds the feature installed.
. "$PSScriptRoot\common.ps1"

$feature = Get-WindowsFeature -Name Containers
if ($feature.InstallState -eq 'Installed') {
    Write-HlOk 'Windows feature Containers'
    exit 0
}
if ($feature.InstallState -eq 'InstallPending') {
    Write-HlLog 'Containers is installed and waits for a reboot'
    exit 3010
}
$result = Install-WindowsFeature -Name Containers
if (-not $result.Success) { Stop-Hl "Install-WindowsFeature Containers failed: $($result.ExitCode)" }
Write-HlChanged 'Windows feature Containers installed'
if ($result.RestartNeeded -ne 'No') { exit 3010 }
