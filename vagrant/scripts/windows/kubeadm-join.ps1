# Joins this Windows worker: `kubeadm join --cri-socket npipe:////./pipe/containerd-containerd`
# with the token and CA hash read from standard input (the harness never puts them in argv).
. "$PSScriptRoot\common.ps1"

if (Test-Path 'C:\etc\kubernetes\kubelet.conf') {
    Write-HlOk 'already joined'
    exit 0
}
$token = [Console]::In.ReadLine()
$caHash = [Console]::In.ReadLine()
if ($token -notmatch '^[a-z0-9]{6}\.[a-z0-9]{16}$') { Stop-Hl 'no bootstrap token on standard input' }
if ($caHash -notmatch '^sha256:[a-f0-9]{64}$') { Stop-Hl 'no CA hash on standard input' }
& 'C:\k\kubeadm.exe' join $Hl.HL_CONTROL_PLANE_ENDPOINT --token $token --discovery-token-ca-cert-hash $caHash `
    --cri-socket $Hl.HL_CRI_SOCKET --node-name $Hl.HL_NODE_NAME
if ($LASTEXITCODE -ne 0) { Stop-Hl "kubeadm join exited $LASTEXITCODE" }
Write-HlChanged "joined $($Hl.HL_CONTROL_PLANE_ENDPOINT) as $($Hl.HL_NODE_NAME)"
