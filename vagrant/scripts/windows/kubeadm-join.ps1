# Joins this Windows worker with the token and CA hash read from standard input. The secrets go
# into a JoinConfiguration only Administrators and SYSTEM may read, removed afterwards, never argv.
. "$PSScriptRoot\common.ps1"

if (Test-Path 'C:\etc\kubernetes\kubelet.conf') {
    Write-HlOk 'already joined'
    exit 0
}
# kubeadm's preflight runs `kubelet --version` by name: C:\k (install-kubernetes.ps1 put it on the
# Machine PATH in an earlier session) must be on this process's PATH.
Update-HlSessionPath
$kubelet = Get-Command kubelet.exe -ErrorAction SilentlyContinue
if ($null -eq $kubelet -or $kubelet.Source -ne 'C:\k\kubelet.exe') {
    Stop-Hl 'kubelet.exe is not C:\k\kubelet.exe on the Machine PATH; run install-kubernetes.ps1 (lab provision) first'
}
$token = [Console]::In.ReadLine()
$caHash = [Console]::In.ReadLine()
if ($token -notmatch '^[a-z0-9]{6}\.[a-z0-9]{16}$') { Stop-Hl 'no bootstrap token on standard input' }
if ($caHash -notmatch '^sha256:[a-f0-9]{64}$') { Stop-Hl 'no CA hash on standard input' }

$yaml = @"
apiVersion: $($Hl.HL_KUBEADM_API)
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "$($Hl.HL_CONTROL_PLANE_ENDPOINT)"
    token: "$token"
    caCertHashes: ["$caHash"]
nodeRegistration:
  name: "$($Hl.HL_NODE_NAME)"
  criSocket: "$($Hl.HL_CRI_SOCKET)"
"@

# Protected (no inherited entries): only BUILTIN\Administrators and SYSTEM.
$acl = New-Object System.Security.AccessControl.FileSecurity
$acl.SetAccessRuleProtection($true, $false)
foreach ($sid in 'S-1-5-32-544', 'S-1-5-18') {
    $who = New-Object System.Security.Principal.SecurityIdentifier $sid
    $acl.AddAccessRule((New-Object System.Security.AccessControl.FileSystemAccessRule $who, 'FullControl', 'Allow'))
}
$config = Join-Path ([IO.Path]::GetTempPath()) "hybrid-lab-join-$([guid]::NewGuid()).yaml"
try {
    # The ACL is set while the file is empty, so the secrets are never readable by others.
    New-Item -ItemType File -Path $config | Out-Null
    Set-Acl -Path $config -AclObject $acl
    [IO.File]::WriteAllText($config, $yaml, (New-Object System.Text.UTF8Encoding $false))
    & 'C:\k\kubeadm.exe' join --config $config
    $code = $LASTEXITCODE
}
finally {
    Remove-Item -Force -ErrorAction SilentlyContinue -LiteralPath $config
}
if ($code -ne 0) { Stop-Hl "kubeadm join exited $code" }
Write-HlChanged "joined $($Hl.HL_CONTROL_PLANE_ENDPOINT) as $($Hl.HL_NODE_NAME)"
