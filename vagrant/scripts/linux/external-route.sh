#!/usr/bin/env bash
# The route to the lab's external CIDR (where outbound-NAT probes go) over the lab NIC: pod
# traffic NATed to the node then leaves with the node's lab address, not over the management
# NIC's default route. A oneshot unit sets it again at every boot.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dev=$(ip -o -4 addr show | awk -v ip="$HL_NODE_IP" '{ split($4, a, "/"); if (a[1] == ip) { print $2; exit } }')
[[ -n $dev ]] || hl_die "no interface carries the node address $HL_NODE_IP"
route=("$HL_EXTERNAL_CIDR" via "$HL_LAB_GATEWAY" dev "$dev")

changed=no
if hl_write_file /etc/systemd/system/hybrid-lab-external-route.service 644 <<EOF2; then changed=yes; fi
[Unit]
Description=hybrid-lab: route to the lab's external network over the lab NIC
After=network-online.target
Wants=network-online.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=$(command -v ip) route replace ${route[*]}

[Install]
WantedBy=multi-user.target
EOF2
hl_ensure_service hybrid-lab-external-route "$changed"

# Where systemd does not run the unit (or the route was removed since), set it here.
if [[ $(ip route show "$HL_EXTERNAL_CIDR") == "${route[*]}"* ]]; then
  hl_ok "route ${route[*]}"
else
  ip route replace "${route[@]}"
  hl_changed "route ${route[*]}"
fi
