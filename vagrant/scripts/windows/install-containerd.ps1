# containerd for Windows, the Windows CNI plugins (win-overlay, win-bridge, host-local, flannel)
# and the node's CNI config (written by the harness from windowsCniConfig, the function the
# netns emulation uses too).
. "$PSScriptRoot\common.ps1"

$dir = 'C:\Program Files\containerd'
$exe = Join-Path $dir 'containerd.exe'
$want = $Hl.HL_CONTAINERD_VERSION
$have = ''
if (Test-Path $exe) { $have = ((& $exe --version) -replace '^.* v?(\d+\.\d+\.\d+).*$', '$1') }
if ($have -ne $want) {
    $archive = Get-HlArtifact $Hl.HL_ARTIFACT_CONTAINERD
    if (Get-Service containerd -ErrorAction SilentlyContinue) { Stop-Service containerd }
    New-Item -ItemType Directory -Force -Path $dir | Out-Null
    tar.exe -xzf $archive -C $dir '--strip-components=1'
    if ($LASTEXITCODE -ne 0) { Stop-Hl "cannot unpack $archive" }
    Write-HlChanged "containerd $want"
} else {
    Write-HlOk "containerd $want"
}
Add-HlMachinePath $dir

$cniBin = 'C:\opt\cni\bin'
foreach ($rel in @($Hl.HL_ARTIFACT_CNI_PLUGINS, $Hl.HL_ARTIFACT_FLANNEL_CNI)) {
    $archive = Get-HlArtifact $rel
    $unpacked = Join-Path $env:TEMP ('hl-cni-' + [IO.Path]::GetFileNameWithoutExtension($archive))
    Remove-Item -Recurse -Force $unpacked -ErrorAction SilentlyContinue
    New-Item -ItemType Directory -Force -Path $unpacked | Out-Null
    tar.exe -xzf $archive -C $unpacked
    if ($LASTEXITCODE -ne 0) { Stop-Hl "cannot unpack $archive" }
    foreach ($file in Get-ChildItem -Recurse -File -Filter '*.exe' $unpacked) {
        # flannel's release names its plugin flannel-amd64.exe; the CNI config says type flannel.
        $name = $file.Name -replace '^flannel-amd64\.exe$', 'flannel.exe'
        Copy-HlFile $file.FullName (Join-Path $cniBin $name) | Out-Null
    }
    Remove-Item -Recurse -Force $unpacked
}
Copy-HlFile (Join-Path $HlStage 'config\10-flannel.conf') 'C:\etc\cni\net.d\10-flannel.conf' | Out-Null

$config = (& $exe config default | Out-String)
$config = $config -replace '(?m)^(\s*)bin_dir = .*$', '$1bin_dir = "C:/opt/cni/bin"'
$config = $config -replace '(?m)^(\s*)conf_dir = .*$', '$1conf_dir = "C:/etc/cni/net.d"'
$config = $config -replace '(?m)^(\s*)sandbox_image = .*$', ('$1sandbox_image = "' + $Hl.HL_PAUSE_IMAGE + '"')
$restart = Set-HlFile (Join-Path $dir 'config.toml') $config

if (-not (Get-Service containerd -ErrorAction SilentlyContinue)) {
    & $exe --register-service
    if ($LASTEXITCODE -ne 0) { Stop-Hl 'containerd --register-service failed' }
    Write-HlChanged 'service containerd registered'
}
if ((Get-Service containerd).StartType -ne 'Automatic') {
    Set-Service containerd -StartupType Automatic
    Write-HlChanged 'service containerd starts automatically'
}
if ($restart) {
    Restart-Service containerd
    Write-HlChanged 'service containerd restarted'
} elseif ((Get-Service containerd).Status -ne 'Running') {
    Start-Service containerd
    Write-HlChanged 'service containerd started'
} else {
    Write-HlOk 'service containerd running'
}
