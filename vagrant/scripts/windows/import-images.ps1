# Imports the node's image tarballs (pause, the HostProcess base image) from the artifact cache
# into containerd's k8s.io namespace. Without a cache the images are pulled instead.
. "$PSScriptRoot\common.ps1"

if ($Hl.HL_ARTIFACTS_SOURCE -eq 'none' -or [string]::IsNullOrWhiteSpace($Hl.HL_IMAGE_TARBALLS)) {
    Write-HlOk 'no image tarballs to import (images are pulled)'
    exit 0
}
$ctr = 'C:\Program Files\containerd\ctr.exe'
$paths = @($Hl.HL_IMAGE_TARBALLS -split ' ' | Where-Object { $_ -ne '' } | ForEach-Object { Get-HlArtifact $_ })
$before = @(& $ctr -n k8s.io images list -q | Sort-Object)
foreach ($path in $paths) {
    & $ctr -n k8s.io images import $path | Out-Null
    if ($LASTEXITCODE -ne 0) { Stop-Hl "ctr images import $path failed" }
}
$after = @(& $ctr -n k8s.io images list -q | Sort-Object)
$new = @($after | Where-Object { $before -notcontains $_ })
if ($new.Count -eq 0) { Write-HlOk "$($paths.Count) images present" }
foreach ($ref in $new) { Write-HlChanged "image $ref" }
