# Inbound firewall rules for every port a process of this node listens on for other hosts
# (node.json's HL_FIREWALL_RULES, from lab/provision/windows-host-listeners.ts): inbound traffic is
# blocked by default, HostProcess containers' listeners included.
. "$PSScriptRoot\common.ps1"

$rules = @($Hl.HL_FIREWALL_RULES | ForEach-Object {
        @{ Name = "hybrid-lab-$($_.name)"; Protocol = $_.protocol; LocalPort = $_.port; What = $_.what }
    })
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
