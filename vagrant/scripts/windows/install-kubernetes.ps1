# kubelet, kubeadm, kubectl at the spec's version in C:\k, kube-proxy.exe and flanneld.exe for the
# HostProcess DaemonSets, and the kubelet service (nssm runs a wrapper that reads the flags
# kubeadm join writes to C:\var\lib\kubelet\kubeadm-flags.env).
. "$PSScriptRoot\common.ps1"

$k = 'C:\k'
$copies = @(
    @($Hl.HL_ARTIFACT_KUBELET, "$k\kubelet.exe"),
    @($Hl.HL_ARTIFACT_KUBEADM, "$k\kubeadm.exe"),
    @($Hl.HL_ARTIFACT_KUBECTL, "$k\kubectl.exe"),
    @($Hl.HL_ARTIFACT_KUBE_PROXY, "$k\kube-proxy\kube-proxy.exe"),
    @($Hl.HL_ARTIFACT_FLANNELD, "$k\flannel\flanneld.exe")
)
# Every file is looked up first, so a half-filled cache names what is missing and changes nothing.
$sources = @($copies | ForEach-Object { Get-HlArtifact $_[0] })
$nssmArchive = Get-HlArtifact $Hl.HL_ARTIFACT_NSSM
for ($i = 0; $i -lt $copies.Count; $i++) {
    if (-not (Copy-HlFile $sources[$i] $copies[$i][1])) { Write-HlOk $copies[$i][1] }
}
# nssm is released as a zip: tar.exe (bsdtar) reads zip archives and takes the one member out.
$unpacked = Join-Path $env:TEMP 'hl-nssm'
Remove-Item -Recurse -Force $unpacked -ErrorAction SilentlyContinue
New-Item -ItemType Directory -Force -Path $unpacked | Out-Null
tar.exe -xf $nssmArchive -C $unpacked $Hl.HL_NSSM_MEMBER
if ($LASTEXITCODE -ne 0) { Stop-Hl "cannot take $($Hl.HL_NSSM_MEMBER) out of $nssmArchive" }
if (-not (Copy-HlFile (Join-Path $unpacked ($Hl.HL_NSSM_MEMBER -replace '/', '\')) "$k\nssm.exe")) { Write-HlOk "$k\nssm.exe" }
Remove-Item -Recurse -Force $unpacked
Add-HlMachinePath $k

$version = (& "$k\kubeadm.exe" version -o short)
if ($version -ne $Hl.HL_K8S_VERSION) { Stop-Hl "kubeadm.exe is $version, the lab wants $($Hl.HL_K8S_VERSION)" }
# From Kubernetes 1.23 (the planner's floor) the kubelet reads kubeadm's absolute C:\etc\kubernetes\pki
# as it is; older ones looked below C:\var\lib\kubelet (kubeadm#2330), which no lab here runs.
foreach ($folder in 'C:\var\log\kubelet', 'C:\etc\kubernetes\pki') {
    if (-not (Test-Path $folder)) {
        New-Item -ItemType Directory -Force -Path $folder | Out-Null
        Write-HlChanged $folder
    }
}

# kubeadm join writes KUBELET_KUBEADM_ARGS; the lab adds the node's lab address and name.
$wrapper = @"
`$ErrorActionPreference = 'Stop'
`$flags = (Get-Content -Raw 'C:\var\lib\kubelet\kubeadm-flags.env') -replace '^KUBELET_KUBEADM_ARGS="?(.*?)"?\s*$', '`$1'
`$kubeadmArgs = @(`$flags -split ' ' | Where-Object { `$_ -ne '' })
& 'C:\k\kubelet.exe' @kubeadmArgs ``
  '--cert-dir=C:\var\lib\kubelet\pki' '--config=C:\var\lib\kubelet\config.yaml' ``
  '--bootstrap-kubeconfig=C:\etc\kubernetes\bootstrap-kubelet.conf' '--kubeconfig=C:\etc\kubernetes\kubelet.conf' ``
  '--hostname-override=$($Hl.HL_NODE_NAME)' '--node-ip=$($Hl.HL_NODE_IP)' ``
  '--enable-debugging-handlers' '--cgroups-per-qos=false' '--enforce-node-allocatable=' '--resolv-conf='
exit `$LASTEXITCODE
"@
Set-HlFile "$k\StartKubelet.ps1" $wrapper | Out-Null

$nssm = "$k\nssm.exe"
if (-not (Get-Service kubelet -ErrorAction SilentlyContinue)) {
    & $nssm install kubelet "$env:SystemRoot\System32\WindowsPowerShell\v1.0\powershell.exe" '-NoProfile' '-ExecutionPolicy' 'Bypass' '-File' "$k\StartKubelet.ps1" | Out-Null
    & $nssm set kubelet AppDirectory $k | Out-Null
    & $nssm set kubelet DependOnService containerd | Out-Null
    & $nssm set kubelet AppStdout 'C:\var\log\kubelet\kubelet.log' | Out-Null
    & $nssm set kubelet AppStderr 'C:\var\log\kubelet\kubelet.log' | Out-Null
    Write-HlChanged 'service kubelet registered (kubeadm join starts it)'
} else {
    Write-HlOk 'service kubelet registered'
}
