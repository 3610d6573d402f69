# containerd for Windows at the lab's version (kubeadm.versions.containerd, else 1.7.22), the
# Windows CNI plugins (win-overlay, win-bridge, host-local, flannel), the node's CNI config
# (written by the harness from windowsCniConfig, the function the netns emulation uses too) and
# containerd's config: the harness's config\containerd.toml for this containerd version,
# installed only when containerd reports every setting of it back.
. "$PSScriptRoot\common.ps1"

$dir = 'C:\Program Files\containerd'
$exe = Join-Path $dir 'containerd.exe'
$want = $Hl.HL_CONTAINERD_VERSION
# "containerd github.com/containerd/containerd v1.7.22 <commit>": the third word, without its v.
$have = ''
# kubelet depends on containerd once install-kubernetes.ps1 ran: a forced stop takes it down too.
$dependents = @()
if (Test-Path $exe) { $have = ((& $exe --version) -split ' ')[2] -replace '^v', '' }
# A joined node's pods hold containerd's runhcs shim (containerd-shim-runhcs-v1.exe, a running
# executable Windows will not let tar.exe overwrite), and stopping containerd leaves the shims
# running: another pin on a joined node is refused, naming the way out.
if ($have -ne '' -and $have -ne $want -and (Test-Path 'C:\etc\kubernetes\kubelet.conf')) {
    Stop-Hl "containerd $have runs this joined node's pods and the lab now pins $want: its runhcs shim is in use and cannot be replaced in place. Keep kubeadm.versions.containerd at $have, or recreate the node (lab down, then lab up) to change it."
}
if ($have -ne $want) {
    $archive = Get-HlArtifact $Hl.HL_ARTIFACT_CONTAINERD
    if (Get-Service containerd -ErrorAction SilentlyContinue) {
        $dependents = Get-HlRunningDependent containerd
        Stop-Service containerd -Force
    }
    New-Item -ItemType Directory -Force -Path $dir | Out-Null
    tar.exe -xzf $archive -C $dir '--strip-components=1'
    if ($LASTEXITCODE -ne 0) { Stop-Hl "cannot unpack $archive" }
    $have = ((& $exe --version) -split ' ')[2] -replace '^v', ''
    if ($have -ne $want) { Stop-Hl "$($Hl.HL_ARTIFACT_CONTAINERD) holds containerd $have, the lab pins $want" }
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

$config = Join-Path $HlStage 'config\containerd.toml'
$effective = (& $exe --config $config config dump | Out-String)
if ($LASTEXITCODE -ne 0) { Stop-Hl "containerd $have cannot read $config" }
$unapplied = @(Get-HlUnappliedSetting ([IO.File]::ReadAllText($config)) $effective)
if ($unapplied.Count -gt 0) {
    Stop-Hl ("containerd $have ignores these settings of config\containerd.toml (containerd config dump lacks them): " + ($unapplied -join '; '))
}
$restart = Copy-HlFile $config (Join-Path $dir 'config.toml')

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
    $dependents = @(@($dependents) + @(Get-HlRunningDependent containerd) | Sort-Object -Unique)
    Restart-Service containerd -Force
    Write-HlChanged 'service containerd restarted'
} elseif ((Get-Service containerd).Status -ne 'Running') {
    Start-Service containerd
    Write-HlChanged 'service containerd started'
} else {
    Write-HlOk 'service containerd running'
}
Start-HlDependent $dependents
