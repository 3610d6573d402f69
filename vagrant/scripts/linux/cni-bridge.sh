#!/usr/bin/env bash
# The `bridge` CNI choice (cni: { plugin: bridge }): Debian's containernetworking-plugins bridge
# + host-local on the node's pod CIDR, routes to every other node's pod CIDR via its address
# (flannel's host-gw), and one masquerade rule for traffic leaving the cluster CIDR (flannel's
# ip-masq): pods see each other's own IPs, the outside sees the node's. Idempotent.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[[ $HL_CNI_PLUGIN == bridge ]] || hl_die "cni-bridge.sh runs only for cni plugin bridge (this lab: $HL_CNI_PLUGIN)"
gateway=${HL_NODE_POD_CIDR%.*}.1
prefix=${HL_NODE_POD_CIDR#*/}
hl_write_file /etc/cni/net.d/10-hybrid-lab-bridge.conflist 644 <<EOF2 || hl_ok "CNI config"
{
  "cniVersion": "0.4.0",
  "name": "hybrid-lab-bridge",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "$HL_NODE_POD_CIDR", "gateway": "$gateway" }]],
        "routes": [{ "dst": "0.0.0.0/0" }]
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
EOF2
[[ $prefix =~ ^[0-9]+$ ]] || hl_die "bad pod CIDR $HL_NODE_POD_CIDR"

# host-gw: the other nodes' pod CIDRs through their lab addresses.
for route in $HL_POD_ROUTES; do
  cidr=${route%=*} via=${route#*=}
  if [[ $(ip -4 route show "$cidr") == "$cidr via $via "* ]]; then
    hl_ok "route $cidr via $via"
  else
    ip route replace "$cidr" via "$via"
    hl_changed "route $cidr via $via"
  fi
done

# Outbound NAT: traffic from this node's pods to anything outside the cluster CIDR.
rule=(-s "$HL_NODE_POD_CIDR" ! -d "$HL_POD_CIDR" -m comment --comment "hybrid-lab bridge masquerade" -j MASQUERADE)
if iptables -w -t nat -C POSTROUTING "${rule[@]}" 2>/dev/null; then
  hl_ok "masquerade $HL_NODE_POD_CIDR"
else
  iptables -w -t nat -A POSTROUTING "${rule[@]}"
  hl_changed "masquerade $HL_NODE_POD_CIDR to outside $HL_POD_CIDR"
fi
