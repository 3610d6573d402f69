# Inbound firewall rules a Windows node needs: kubelet's API, kube-proxy's health port, the
# NodePort range (TCP and UDP) and, for vxlan, flannel's VXLAN port.
. "$PSScriptRoot\common.ps1"

$rules = @(
    @{ Name = 'hybrid-lab-kubelet'; Protocol = 'TCP'; LocalPort = '10250'; What = 'kubelet API' },
    @{ Name = 'hybrid-lab-kube-proxy-health'; Protocol = 'TCP'; LocalPort = '10256'; What = 'kube-proxy health' },
    @{ Name = 'hybrid-lab-nodeports-tcp'; Protocol = 'TCP'; LocalPort = $Hl.HL_NODEPORT_RANGE; What = 'NodePorts (TCP)' },
    @{ Name = 'hybrid-lab-nodeports-udp'; Protocol = 'UDP'; LocalPort = $Hl.HL_NODEPORT_RANGE; What = 'NodePorts (UDP)' }
)
if ($Hl.HL_CNI_BACKEND -eq 'vxlan') {
    $rules += @{ Name = 'hybrid-lab-vxlan'; Protocol = 'UDP'; LocalPort = $Hl.HL_VXLAN_PORT; What = 'flannel VXLAN' }
}
foreach ($rule in $rules) {
    $existing = Get-NetFirewallRule -Name $rule.Name -ErrorAction SilentlyContinue
    if ($null -eq $existing) {
        New-NetFirewallRule -Name $rule.Name -DisplayName "hybrid-lab: $($rule.What)" -Direction Inbound `
            -Action Allow -Protocol $rule.Protocol -LocalPort $rule.LocalPort | Out-Null
        Write-HlChanged "firewall rule $($rule.Name) ($($rule.Protocol) $($rule.LocalPort))"
        continue
    }
    $filter = Get-NetFirewallPortFilter -AssociatedNetFirewallRule $existing
    if ((@($filter.LocalPort) -join ',') -ne $rule.LocalPort -or $filter.Protocol -ne $rule.Protocol -or $existing.Enabled -ne 'True') {
        Set-NetFirewallRule -Name $rule.Name -Enabled True -Protocol $rule.Protocol -LocalPort $rule.LocalPort
        Write-HlChanged "firewall rule $($rule.Name) updated"
    } else {
        Write-HlOk "firewall rule $($rule.Name)"
    }
}
