/**
 * What a power cycle leaves of a node's network namespace: its loopback and its NIC, unconfigured.
 * Every other link (the pod bridge, pod veths, VXLAN), every address, route and neighbour, every
 * iptables and nftables rule and every conntrack entry is gone. `sh -c SCRIPT reset NIC`.
 */
export const NETWORK_RESET_SCRIPT = [
  'set -u',
  'for link in $(ip -o link show | awk -F": " \'{print $2}\' | cut -d@ -f1); do',
  '  case $link in lo|"$1") ;; *) ip link del "$link" 2>/dev/null ;; esac',
  'done',
  'ip addr flush dev "$1"',
  'ip route flush table main',
  'ip neigh flush all',
  'for t in nat filter mangle raw; do iptables -w -t "$t" -F; iptables -w -t "$t" -X; done',
  'nft flush ruleset',
  'conntrack -F 2>/dev/null',
  'true',
].join('\n');
