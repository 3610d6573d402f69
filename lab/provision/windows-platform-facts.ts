/**
 * The facts catalogue's rows on the platform around the Windows node scripts: the SSH session, the
 * box's buses, the CNI API containerd uses, flannel's network and its lifecycle, kube-proxy's
 * source VIP, kubeadm and the kubelet on Windows, hcsshim's HostProcess environment, tokens.
 * windows-facts.ts holds the rest and renders both (docs/windows-facts.md).
 */
import type { WindowsFact } from './windows-facts.ts';

const LEARN = 'https://learn.microsoft.com/en-us';
const K8S_DOCS = 'https://kubernetes.io/docs';
const K8S = 'https://github.com/kubernetes/kubernetes/blob';
const CNI = 'https://github.com/containernetworking/plugins/blob/v1.5.1';
const FLANNEL = 'https://github.com/flannel-io/flannel/blob/v0.25.6';
const HCSSHIM_JOB = 'https://github.com/microsoft/hcsshim/blob/main/internal/jobcontainers';
const SWT = 'https://github.com/kubernetes-sigs/sig-windows-tools/blob/master';
const PS51 = 'view=powershell-5.1';

const SCRIPTS = 'lab/provision/windows-node-scripts.test.ts';
const PLATFORM = 'lab/provision/windows-platform-facts.test.ts';

export const WINDOWS_PLATFORM_FACTS: readonly WindowsFact[] = [
  {
    id: 'cni-hns-api-under-containerd',
    fact: 'containerd attaches Windows pods through HCN (HNS v2) namespaces. win-overlay and win-bridge take the HCN path only when the delegate says `apiVersion: 2` (matched as Go decodes JSON, regardless of case), and then hand each policy value on as an hcn.EndpointPolicy: `Type` and `Settings` (OutBoundNAT `Settings.Exceptions`, SDNRoute `DestinationPrefix`/`NeedEncap`, ProviderAddress). Without it they use the v1 API, which finds no HNS endpoint for a containerd pod: every Windows pod fails to start.',
    soTheCode:
      'windowsCniConfig writes `apiVersion: 2` and v2 policies (ProviderAddress = the node address on win-overlay); the emulated lab (outboundNat) and the fault edits read each API in its own form, so a v1 list in a v2 config counts for nothing, as on a node.',
    sources: [
      `${CNI}/plugins/main/windows/win-overlay/win-overlay_windows.go`,
      `${CNI}/plugins/main/windows/win-bridge/win-bridge_windows.go`,
      `${CNI}/pkg/hns/netconf_windows.go`,
      `${CNI}/plugins/main/windows/win-overlay/sample-v2.conf`,
      'https://github.com/containernetworking/plugins/pull/725',
      'https://github.com/containernetworking/plugins/issues/1229',
    ],
    reliedOnBy: [
      'lab/cni/windows-cni-config.ts',
      'lab/faults/windows-cni-edits.ts',
      'vagrant/scripts/windows/install-containerd.ps1',
    ],
    checkedBy: [
      {
        file: 'lab/cni/windows-cni-config.test.ts',
        test: 'asks win-overlay and win-bridge for the HCN (v2) API, which containerd attaches pods with',
      },
      {
        file: 'lab/cni/windows-cni-config.test.ts',
        test: 'reads each API in its own form: v2 Settings.Exceptions, v1 (and wincni AdditionalArgs) ExceptionList',
      },
    ],
    values: { apiVersion: '2' },
  },
  {
    id: 'openssh-session-environment',
    fact: "Windows Server 2022's in-box OpenSSH (8.1) gives each session the environment sshd started with: a folder another session added to the Machine PATH is not on a new session's PATH until sshd restarts (fixed in later OpenSSH releases). kubeadm's join preflight runs `kubelet --version` by name and fails (not retried) when kubelet is not on PATH.",
    soTheCode:
      "kubeadm-join.ps1 sets its own process's PATH from the Machine and User PATH (Update-HlSessionPath), checks that kubelet.exe resolves to C:\\k\\kubelet.exe, and only then runs kubeadm join.",
    sources: [
      'https://github.com/PowerShell/Win32-OpenSSH/issues/1329',
      'https://github.com/PowerShell/openssh-portable/pull/509',
      `${K8S}/master/cmd/kubeadm/app/preflight/utils.go`,
    ],
    reliedOnBy: [
      'vagrant/scripts/windows/kubeadm-join.ps1',
      'vagrant/scripts/windows/common.ps1',
      'vagrant/scripts/windows/install-kubernetes.ps1',
    ],
    checkedBy: [
      {
        file: SCRIPTS,
        test: 'kubeadm-join.ps1 takes the Machine PATH, where install-kubernetes.ps1 put C:\\k, before kubeadm runs kubelet by name',
      },
    ],
  },
  {
    id: 'box-disk-and-nic-bus',
    fact: "Windows installed on one storage controller has boot drivers enabled for it only: booted on another (IDE to SATA/AHCI) it stops with 0x7B INACCESSIBLE_BOOT_DEVICE. Stock Windows Server 2022 carries IDE, AHCI and e1000 drivers, not virtio. The qemu builder of Packer 1.6.6 (Debian's, which the box recipe uses) takes `disk_interface` ide, scsi, virtio or virtio-scsi; sata came in later releases.",
    soTheCode:
      "vagrant/boxes/windows/devices.json names the disk bus (ide) and NIC (e1000) once: the Packer template installs the box on them (-var-file) and the lab's Vagrantfile boots a box without virtio drivers on the same.",
    sources: [
      `${LEARN}/troubleshoot/windows-client/performance/stop-error-7b-or-inaccessible-boot-device-troubleshooting`,
      'https://github.com/hashicorp/packer/blob/v1.6.6/builder/qemu/config.go',
      'https://github.com/hashicorp/packer-plugin-qemu/blob/main/builder/qemu/config.go',
      'https://github.com/vagrant-libvirt/vagrant-libvirt/blob/main/docs/configuration.markdown',
    ],
    reliedOnBy: [
      'vagrant/boxes/windows/devices.json',
      'vagrant/boxes/windows/windows-2022.json',
      'vagrant/boxes/windows/build.sh',
      'vagrant/Vagrantfile',
    ],
    checkedBy: [
      {
        file: SCRIPTS,
        test: 'the Windows box boots on the disk bus and NIC it was installed on: one devices.json for Packer and the Vagrantfile',
      },
    ],
  },
  {
    id: 'hns-network-lifecycle',
    fact: "flannel's Windows VXLAN backend creates its HNS network with the EnableNonPersistent flag and lists it before the vNIC it made carries the node address: flannel itself polls up to 45 s for the interface with that address. After a reboot the network is gone until flannel makes it again, on a new vEthernet adapter with a new interface index.",
    soTheCode:
      'external-route.ps1 looks for the HNS network and the node address together inside its 10-minute deadline loop, keeps the route in the active store only, removes routes earlier runs persisted, and registers itself as a task that runs at startup, so the route follows the new adapter after a reboot.',
    sources: [
      `${FLANNEL}/pkg/backend/vxlan/device_windows.go`,
      'https://github.com/microsoft/hcsshim/blob/main/hcn/hcnnetwork.go',
      `${LEARN}/powershell/module/nettcpip/new-netroute?view=windowsserver2022-ps`,
      `${LEARN}/powershell/module/scheduledtasks/new-scheduledtasktrigger?view=windowsserver2022-ps`,
    ],
    reliedOnBy: ['vagrant/scripts/windows/external-route.ps1'],
    checkedBy: [
      {
        file: SCRIPTS,
        test: "external-route.ps1 looks for the node address inside its deadline loop, as flannel waits for its vNIC's address",
      },
      {
        file: SCRIPTS,
        test: "external-route.ps1 keeps its route in the active store and runs again at startup: flannel's HNS network is not persistent",
      },
    ],
  },
  {
    id: 'flannel-windows-vxlan-backend',
    fact: "flannel's Windows VXLAN backend refuses a VNI below 4096, any port but 4789, DirectRouting and GBP; its MAC prefix defaults to 0E-2A, as win-overlay's endpointMacPrefix does; the HNS network is named by Backend.Name (default flannel.<VNI>).",
    soTheCode:
      "The plan's VXLAN keeps VNI 4096 and port 4789; the Windows net-conf names the network (Backend.Name) and sets no MacPrefix, DirectRouting or GBP, and the CNI delegate no endpointMacPrefix, so both sides use 0E-2A.",
    sources: [
      `${FLANNEL}/pkg/backend/vxlan/vxlan_windows.go`,
      `${CNI}/plugins/main/windows/win-overlay/win-overlay_windows.go`,
    ],
    reliedOnBy: [
      'lab/cni/flannel-net-conf.ts',
      'lab/provision/render-manifests.ts',
      'lab/cni/windows-cni-config.ts',
    ],
    checkedBy: [
      {
        file: PLATFORM,
        test: "the Windows net-conf is one flannel's Windows VXLAN backend takes, with the MAC prefix win-overlay defaults to",
      },
    ],
    values: { VNI: '4096 or more', port: '4789', 'MAC prefix': '0E-2A' },
  },
  {
    id: 'one-network-name',
    fact: "The CNI delegate finds its HNS network by the config's `name` (flannel's CNI plugin passes its own name to the delegate); Windows kube-proxy (winkernel) programs the network named by --network-name (KUBE_NETWORK); flanneld creates the network named by Backend.Name.",
    soTheCode:
      "One plan value, cni.windowsNetworkName, is the CNI config's name, the Windows net-conf's Backend.Name and KUBE_NETWORK of both DaemonSets; kube-proxy's start script passes it as --network-name.",
    sources: [
      'https://github.com/flannel-io/cni-plugin/blob/main/flannel_windows.go',
      `${CNI}/plugins/main/windows/win-overlay/win-overlay_windows.go`,
      `${K8S_DOCS}/reference/command-line-tools-reference/kube-proxy/`,
    ],
    reliedOnBy: [
      'lab/cni/windows-cni-config.ts',
      'lab/provision/render-manifests.ts',
      'manifests/windows/kube-proxy-hostprocess.yaml',
      'manifests/windows/flannel-hostprocess.yaml',
    ],
    checkedBy: [
      {
        file: PLATFORM,
        test: 'the CNI config, the Windows net-conf and both DaemonSets name one HNS network',
      },
    ],
  },
  {
    id: 'source-vip-host-local-store',
    fact: "host-local keeps its reservations in dataDir/<network name> (default /var/lib/cni/networks; on Windows a path rooted at \\ is on the current drive of the process that opens it, C: for a containerd started from C:, so C:\\var\\lib\\cni\\networks); flannel's Windows CNI plugin delegates IPAM to host-local with the node's subnet and no dataDir, under the config's network name.",
    soTheCode:
      "kube-proxy's start script reserves its --source-vip with host-local under the same network name and C:\\var\\lib\\cni\\networks, so no pod is given that address, and keeps what it reserved.",
    sources: [
      `${CNI}/plugins/ipam/host-local/backend/disk/backend.go`,
      'https://github.com/flannel-io/cni-plugin/blob/main/flannel_windows.go',
      `${LEARN}/dotnet/standard/io/file-path-formats`,
    ],
    reliedOnBy: ['manifests/windows/kube-proxy-hostprocess.yaml'],
    checkedBy: [
      {
        file: PLATFORM,
        test: "kube-proxy reserves its source VIP in the store and network of the pods' IPAM",
      },
    ],
  },
  {
    id: 'winkernel-source-vip-endpoint',
    fact: 'On an overlay network Windows kube-proxy (winkernel) needs --source-vip and creates the HNS endpoint for it itself; Windows Server ships only the Get-Hns*/Remove-Hns* cmdlets, not New-HnsEndpoint.',
    soTheCode:
      "kube-proxy's start script passes --source-vip on vxlan and creates no endpoint; no script calls a New-Hns* command.",
    sources: [
      `${K8S}/master/pkg/proxy/winkernel/proxier.go`,
      `${LEARN}/powershell/module/hostnetworkingservice/`,
      `${K8S_DOCS}/concepts/services-networking/windows-networking/`,
    ],
    reliedOnBy: ['manifests/windows/kube-proxy-hostprocess.yaml'],
    checkedBy: [
      {
        file: PLATFORM,
        test: 'kube-proxy gets --source-vip on vxlan and no script makes an HNS endpoint',
      },
    ],
  },
  {
    id: 'stdin-through-powershell-c',
    fact: "sshd runs the command as `powershell.exe -c LINE` with the session's standard input; a program LINE starts (here `powershell -File SCRIPT -NonInteractive`) inherits that handle, and [Console]::In reads it line by line. Read-Host reads the console host, not redirected input.",
    soTheCode:
      "The join token and CA hash reach kubeadm-join.ps1 only on standard input (the step's input), read with [Console]::In.ReadLine(), never on the command line.",
    sources: [
      'https://github.com/PowerShell/Win32-OpenSSH/wiki/DefaultShell',
      `${LEARN}/powershell/module/microsoft.powershell.core/about/about_powershell_exe?${PS51}`,
      `${LEARN}/dotnet/api/system.console.in`,
    ],
    reliedOnBy: ['vagrant/scripts/windows/kubeadm-join.ps1', 'lab/provision/provision-steps.ts'],
    checkedBy: [
      {
        file: PLATFORM,
        test: 'the join secrets reach kubeadm-join.ps1 on standard input only, read with [Console]::In',
      },
    ],
  },
  {
    id: 'openssh-powershell-double-quotes',
    fact: 'Windows PowerShell 5.1 passes an argument holding a double quote to a native program without escaping it (the Legacy argument passing PowerShell 7.3 made optional), so the program splits it differently than it was given.',
    soTheCode:
      'quoteArg refuses a double quote for a Windows node, naming it (`lab ssh NODE -- CMD` included); every line the harness builds for a Windows node carries none.',
    sources: [
      `${LEARN}/powershell/module/microsoft.powershell.core/about/about_parsing?view=powershell-7.4`,
      'https://github.com/PowerShell/Win32-OpenSSH/wiki/DefaultShell',
    ],
    reliedOnBy: ['lab/remote/quote.ts', 'lab/remote/ssh-node-shell.ts'],
    checkedBy: [
      {
        file: 'lab/remote/remote.test.ts',
        test: 'refuses a double quote for a Windows node, whose Windows PowerShell passes it on unescaped',
      },
    ],
  },
  {
    id: 'windows-image-platform',
    fact: "An image index holds one manifest per platform; `ctr images pull` and `ctr images export` take the host's platform unless --platform names another, so a Linux host that stages a Windows image must name windows/amd64 on both.",
    soTheCode:
      'The artifact catalogue stages every Windows image with `--platform windows/amd64` on pull and export, and Linux images with linux/amd64.',
    sources: [
      'https://github.com/containerd/containerd/blob/main/cmd/ctr/commands/images/pull.go',
      'https://github.com/containerd/containerd/blob/main/cmd/ctr/commands/images/export.go',
    ],
    reliedOnBy: ['lab/provision/artifact-catalogue.ts'],
    checkedBy: [
      {
        file: PLATFORM,
        test: 'every Windows image is staged for windows/amd64 on pull and export',
      },
    ],
  },
  {
    id: 'kubeadm-join-without-crictl',
    fact: "kubeadm's preflight requires crictl on PATH only on Linux; on Windows a missing crictl (kubeadm before 1.31 reaches the runtime through it) is a warning, not an error.",
    soTheCode: 'Windows nodes install no crictl and kubeadm-join.ps1 ignores no preflight error.',
    sources: [`${K8S}/v1.30.4/cmd/kubeadm/app/preflight/checks.go`],
    reliedOnBy: ['vagrant/scripts/windows/kubeadm-join.ps1', 'lab/provision/artifact-catalogue.ts'],
    checkedBy: [
      {
        file: PLATFORM,
        test: 'a Windows node joins without crictl and without ignoring a preflight error',
      },
    ],
  },
  {
    id: 'openssh-administrator-keys',
    fact: "Windows OpenSSH reads the keys of a member of the local Administrators group from C:\\ProgramData\\ssh\\administrators_authorized_keys (only Administrators and SYSTEM may have access), not from the user's own authorized_keys; such a session runs with the user's administrator rights.",
    soTheCode:
      "The box puts Vagrant's key in administrators_authorized_keys for the vagrant administrator; the node scripts (services, routes, firewall) rely on that session's rights.",
    sources: [
      `${LEARN}/windows-server/administration/openssh/openssh_keymanagement`,
      `${LEARN}/windows-server/administration/openssh/openssh_server_configuration`,
    ],
    reliedOnBy: ['vagrant/boxes/windows/scripts/setup-openssh.ps1'],
    checkedBy: [
      {
        file: PLATFORM,
        test: "the box authorises Vagrant's key for the administrator in administrators_authorized_keys",
      },
    ],
  },
  {
    id: 'strict-mode-missing-property',
    fact: 'Under Set-StrictMode -Version Latest (2.0 and up) reading a property an object does not have is an error. Get-HnsNetwork and Get-HnsEndpoint return objects built from HNS JSON, which omits fields it has no value for; ConvertFrom-Json objects (node.json) have only the keys the file has.',
    soTheCode:
      "Strict scripts read only Name, Id and Type from HNS objects and test a node.json key's presence (PSObject.Properties) before reading one that may be absent.",
    sources: [
      `${LEARN}/powershell/module/microsoft.powershell.core/set-strictmode?${PS51}`,
      `${LEARN}/powershell/module/hostnetworkingservice/get-hnsnetwork?view=windowsserver2022-ps`,
    ],
    reliedOnBy: [
      'vagrant/scripts/windows/common.ps1',
      'vagrant/scripts/windows/external-route.ps1',
    ],
    checkedBy: [
      {
        file: PLATFORM,
        test: 'strict-mode scripts read only properties every HNS object has',
      },
    ],
  },
  {
    id: 'kubelet-windows-config-refusals',
    fact: 'Before Kubernetes 1.30 the Windows kubelet refuses a configuration with CgroupsPerQOS true or a non-empty EnforceNodeAllocatable; from 1.30 it only warns that they are ignored (kubernetes#123137). Both are defaults of the Linux KubeletConfiguration kubeadm gives every node; flags given on the command line override the file.',
    soTheCode:
      "The kubelet service's wrapper passes --cgroups-per-qos=false and an empty --enforce-node-allocatable (and --resolv-conf=) after kubeadm's flags, as sig-windows-tools' PrepareNode.ps1 does.",
    sources: [
      `${K8S}/master/pkg/kubelet/apis/config/validation/validation_windows.go`,
      'https://github.com/kubernetes/kubernetes/pull/123137',
      `${SWT}/hostprocess/PrepareNode.ps1`,
      `${K8S_DOCS}/tasks/administer-cluster/kubelet-config-file/`,
    ],
    reliedOnBy: ['vagrant/scripts/windows/install-kubernetes.ps1'],
    checkedBy: [
      {
        file: PLATFORM,
        test: "the kubelet wrapper overrides what the Windows kubelet refuses in kubeadm's Linux configuration",
      },
    ],
  },
  {
    id: 'hostprocess-path',
    fact: "hcsshim starts a HostProcess container's processes with the host's PATH plus the container's files folder and C:\\WINDOWS\\System32\\WindowsPowerShell\\v1.0 and System32\\Wbem appended.",
    soTheCode:
      'HostProcess containers start powershell.exe by name; anything else they run is called by full path.',
    sources: [`${HCSSHIM_JOB}/jobcontainer.go`],
    reliedOnBy: [
      'manifests/windows/flannel-hostprocess.yaml',
      'manifests/windows/kube-proxy-hostprocess.yaml',
      'manifests/suite/host-netexec-pod-windows.yaml',
    ],
    checkedBy: [
      {
        file: PLATFORM,
        test: 'every HostProcess container starts powershell.exe by name and nothing else',
      },
    ],
  },
  {
    id: 'service-account-token-lifetime',
    fact: "A pod's service account token is a projected, bound token with an expiry that the kubelet replaces in its file before it expires; a copy of its text stops working once it expires. client-go reads a kubeconfig's tokenFile again as it changes.",
    soTheCode:
      "flannel's start script names the token file in flanneld's kubeconfig (tokenFile), never pastes the token itself.",
    sources: [
      `${K8S_DOCS}/concepts/security/service-accounts/`,
      `${K8S_DOCS}/reference/config-api/kubeconfig.v1/`,
    ],
    reliedOnBy: ['manifests/windows/flannel-hostprocess.yaml'],
    checkedBy: [
      {
        file: PLATFORM,
        test: "flanneld's kubeconfig names the service account token's file, not its text",
      },
    ],
  },
  {
    id: 'containerd-shims-outlive-containerd',
    fact: "containerd starts one shim process per pod sandbox (on Windows containerd-shim-runhcs-v1.exe, looked up beside containerd's own binary first), and the shims keep running when containerd stops, so containers survive a containerd restart. Windows does not let a file a running program holds be replaced (what the Restart Manager exists for).",
    soTheCode:
      'install-containerd.ps1 refuses another containerd version on a joined node, before it stops containerd, and says how to change it (keep the pin, or recreate the node).',
    sources: [
      'https://github.com/containerd/containerd/blob/main/core/runtime/v2/README.md',
      'https://github.com/containerd/containerd/blob/main/pkg/shim/util_windows.go',
      'https://github.com/containerd/containerd/blob/main/core/runtime/v2/shim_manager.go',
      `${LEARN}/windows/win32/rstmgr/about-restart-manager`,
    ],
    reliedOnBy: ['vagrant/scripts/windows/install-containerd.ps1'],
    checkedBy: [
      {
        file: SCRIPTS,
        test: 'install-containerd.ps1 refuses another containerd pin on a joined node before it touches the running containerd',
      },
    ],
  },
  {
    id: 'exit-3010-reboot-required',
    fact: 'Exit code 3010 is ERROR_SUCCESS_REBOOT_REQUIRED: the operation succeeded, and its changes take effect only after a restart.',
    soTheCode:
      'A node script whose change needs a restart (the Containers feature, a new computer name) exits 3010; the step runner then reboots the node and runs the script again, which finds the change in effect.',
    sources: [`${LEARN}/windows/win32/debug/system-error-codes--1700-3999-`],
    reliedOnBy: [
      'lab/provision/provision-steps.ts',
      'vagrant/scripts/windows/install-containers-feature.ps1',
      'vagrant/scripts/windows/set-hostname.ps1',
    ],
    checkedBy: [
      {
        file: PLATFORM,
        test: 'a script that needs a restart exits 3010, the code the step runner reboots on',
      },
    ],
  },
  {
    id: 'computer-name-after-restart',
    fact: 'A new computer name is stored in the registry and takes effect the next time the computer starts: until then the active name is the old one. NetBIOS names compare without case.',
    soTheCode:
      "set-hostname.ps1 compares the active and the pending name in the registry with PowerShell's -eq (which ignores case): the active one right, nothing to do; the pending one right, exit 3010 for the reboot; else Rename-Computer and exit 3010.",
    sources: [
      `${LEARN}/windows/win32/api/sysinfoapi/nf-sysinfoapi-setcomputernamew`,
      `${LEARN}/powershell/module/microsoft.powershell.management/rename-computer`,
    ],
    reliedOnBy: ['vagrant/scripts/windows/set-hostname.ps1'],
    checkedBy: [
      {
        file: PLATFORM,
        test: 'set-hostname.ps1 reads the active and the pending name, and asks for a restart until the new one is active',
      },
    ],
  },
  {
    id: 'ctr-import-host-platform',
    fact: "ctr images import takes only the content for the host's platform unless --all-platforms is given: an archive that holds only another platform's image imports nothing usable.",
    soTheCode:
      'The artifact cache exports the Windows node images for windows/amd64 (--platform), and import-images.ps1 imports them without --all-platforms on the Windows node, then checks that the images are there.',
    sources: [
      'https://github.com/containerd/containerd/blob/main/cmd/ctr/commands/images/import.go',
      'https://github.com/containerd/containerd/pull/6491',
    ],
    reliedOnBy: ['vagrant/scripts/windows/import-images.ps1'],
    checkedBy: [
      {
        file: PLATFORM,
        test: 'import-images.ps1 imports for the host platform only and reports the images it added',
      },
    ],
  },
];
