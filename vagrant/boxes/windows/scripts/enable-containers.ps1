# hybrid-lab: the Containers feature kubelet and containerd need on a Windows node (a restart
# follows, done by Packer's windows-restart provisioner).
$ErrorActionPreference = 'Stop'
$feature = Install-WindowsFeature -Name Containers
Write-Output "Containers feature: $($feature.ExitCode); restart needed: $($feature.RestartNeeded)"
