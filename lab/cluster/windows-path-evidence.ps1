# Path evidence on a Windows node. windows-path-evidence.ts (beside it) sends the settings below and
# the functions one call needs, with the call appended (-EncodedCommand): Start-HlCapture before the
# probe's retry, Stop-HlCapture and Write-HlNodeView after it. Every part is printed under a
# `==hl-evidence== FILE` line.
Set-StrictMode -Version Latest
$ErrorActionPreference = 'Continue'
$HlEvidenceEtl = 'C:\Windows\Temp\hl-evidence.etl'
$HlEvidenceText = 'C:\Windows\Temp\hl-evidence.txt'

# HNS's own view: networks, endpoints and the load-balancer policy lists VFP applies, as JSON, and
# hnsdiag's detailed listing of every HNS object; VFP's vSwitch ports, and for each of the flow's
# endpoints its port's state, its rules' counters and its own counters; then the node's
# IPv4 routes and neighbours. hnsdiag and vfpctrl are called only in the forms Microsoft's pages
# and its published diagnostic scripts show (lab/provision/windows-builtin-commands.ts).
function Write-HlNodeView([string[]]$Addresses) {
  Write-Output '==hl-evidence== hnsdiag.txt'
  hnsdiag.exe list all -d
  Write-Output '==hl-evidence== vfp-ports.txt'
  $ports = @(vfpctrl.exe /list-vmswitch-port)
  $ports
  foreach ($endpoint in @(Get-HnsEndpoint | Where-Object { $Addresses -contains $_.IPAddress })) {
    $port = Get-HlVfpPort -Listing $ports -Mac $endpoint.MacAddress
    if ($null -eq $port) { continue }
    Write-Output "==hl-evidence== vfp-port-$($endpoint.IPAddress).txt"
    vfpctrl.exe /port $port /get-port-state
    Write-Output "==hl-evidence== vfp-rule-counters-$($endpoint.IPAddress).txt"
    vfpctrl.exe /port $port /get-rule-counter
    Write-Output "==hl-evidence== vfp-counters-$($endpoint.IPAddress).txt"
    vfpctrl.exe /port $port /get-port-counter
  }
  Write-Output '==hl-evidence== hns-networks.json'
  Get-HnsNetwork | ConvertTo-Json -Depth 20
  Write-Output '==hl-evidence== hns-endpoints.json'
  Get-HnsEndpoint | ConvertTo-Json -Depth 20
  Write-Output '==hl-evidence== hns-policylists.json'
  Get-HnsPolicyList | ConvertTo-Json -Depth 20
  Write-Output '==hl-evidence== routes.txt'
  Get-NetRoute -AddressFamily IPv4 | Format-Table -AutoSize | Out-String -Width 4096
  Write-Output '==hl-evidence== neighbours.txt'
  Get-NetNeighbor -AddressFamily IPv4 | Format-Table -AutoSize | Out-String -Width 4096
}

# The name of the VFP port whose block in `vfpctrl /list-vmswitch-port` shows the MAC address $Mac
# (each block starts with its `Port name : …` line); $null when none does.
function Get-HlVfpPort([string[]]$Listing, [string]$Mac) {
  $current = $null
  foreach ($line in $Listing) {
    if ($line -match '^\s*Port name\s*:\s*(\S+)') {
      $current = $Matches[1]
    } elseif ($null -ne $current -and $Mac -ne '' -and $line -match [regex]::Escape($Mac)) {
      return $current
    }
  }
  return $null
}

# A packet capture of the flow's addresses (one pktmon filter each, matching inner headers of
# VXLAN packets too: -e), every component, whole packets.
function Start-HlCapture([string[]]$Addresses) {
  pktmon.exe filter remove | Out-Null
  foreach ($address in $Addresses) {
    pktmon.exe filter add "hl-$address" -i $address -e | Out-Null
  }
  pktmon.exe start --capture --pkt-size 0 --file-name $HlEvidenceEtl | Out-Null
}

# Ends the capture, prints it as text (drops name their reason and component), removes the files.
function Stop-HlCapture {
  pktmon.exe stop | Out-Null
  pktmon.exe etl2txt $HlEvidenceEtl --out $HlEvidenceText | Out-Null
  Write-Output '==hl-evidence== pktmon.txt'
  Get-Content -Path $HlEvidenceText
  pktmon.exe filter remove | Out-Null
  Remove-Item -Force -Path $HlEvidenceEtl, $HlEvidenceText
}
