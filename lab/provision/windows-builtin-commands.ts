/**
 * The commands Windows node scripts (vagrant/**\/*.ps1) and the HostProcess start scripts of
 * manifests/ may run without installing them: what Windows Server 2022 ships — cmdlets of its
 * Windows PowerShell 5.1 modules and inbox executables — each with the Microsoft Learn page that
 * documents it. Only commands the scripts use are listed (a unit test keeps it so). Aliases (`%`,
 * `?`, `cd`, `sc`, …) are not allowed: the scripts spell out the command.
 *
 * Not here on purpose: New-HnsEndpoint, Attach-HnsHostEndpoint and the rest of microsoft/SDN's
 * hns.psm1 helper module. Windows Server's own HostNetworkingService module only has the Get-Hns*
 * and Remove-Hns* cmdlets (https://learn.microsoft.com/en-us/powershell/module/hostnetworkingservice/).
 */

export interface BuiltinCommand {
  /** As the scripts spell it: `Get-Content`, `tar.exe`. */
  name: string;
  /** The PowerShell module, or `executable` for a program in System32. */
  module: string;
  /** The Microsoft Learn page that documents it. */
  doc: string;
  /**
   * For a tool documented only by a troubleshooting page: the invocations the page shows, `<…>`
   * standing for a value. The scripts may call it only so.
   */
  forms?: readonly string[];
  /**
   * Forms `doc` does not show, each with the Microsoft-published diagnostic script that runs it
   * (microsoft/SDN's Kubernetes debug scripts, which Microsoft's Windows Kubernetes
   * troubleshooting points to): form → that script's address.
   */
  shownBy?: Readonly<Record<string, string>>;
}

/** microsoft/SDN's Kubernetes debug scripts. */
const sdnDebug = 'https://github.com/microsoft/SDN/blob/master/Kubernetes/windows/debug';

const learn = 'https://learn.microsoft.com/en-us';

/**
 * The hnsdiag and vfpctrl forms microsoft/SDN's debug scripts run, as read from their master
 * branch (script → forms, `<…>` standing for a value): what a `shownBy` may credit to them.
 */
export const MICROSOFT_SCRIPT_FORMS: Readonly<Record<string, readonly string[]>> = {
  [`${sdnDebug}/dumpVfpPolicies.ps1`]: [
    'vfpctrl /list-space /port <port>',
    'vfpctrl /list-mapping /port <port>',
    'vfpctrl /port <port> /get-rule-counter',
    'vfpctrl /port <port> /get-port-state',
    'vfpctrl /port <port> /list-nat-range',
    'vfpctrl /switch <switch> /get-switch-forwarding-settings',
  ],
  [`${sdnDebug}/VFP.psm1`]: [
    'vfpctrl /list-vmswitch-port',
    'vfpctrl /list-layer /port <port>',
    'vfpctrl /list-group /port <port> /layer <layer>',
    'vfpctrl /list-rule /port <port> /layer <layer> /group <group>',
  ],
  [`${sdnDebug}/collectlogs.ps1`]: [
    'vfpctrl /list-vmswitch-port',
    'vfpctrl /port <port> /get-port-counter',
    'hnsdiag list all -d',
    'hnsdiag list adapters',
  ],
};

export const WINDOWS_BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
  // Microsoft.PowerShell.Core
  {
    name: 'ForEach-Object',
    module: 'Microsoft.PowerShell.Core',
    doc: `${learn}/powershell/module/microsoft.powershell.core/foreach-object?view=powershell-5.1`,
  },
  {
    name: 'Get-Command',
    module: 'Microsoft.PowerShell.Core',
    doc: `${learn}/powershell/module/microsoft.powershell.core/get-command?view=powershell-5.1`,
  },
  {
    name: 'Out-Null',
    module: 'Microsoft.PowerShell.Core',
    doc: `${learn}/powershell/module/microsoft.powershell.core/out-null?view=powershell-5.1`,
  },
  {
    name: 'Set-StrictMode',
    module: 'Microsoft.PowerShell.Core',
    doc: `${learn}/powershell/module/microsoft.powershell.core/set-strictmode?view=powershell-5.1`,
  },
  {
    name: 'Where-Object',
    module: 'Microsoft.PowerShell.Core',
    doc: `${learn}/powershell/module/microsoft.powershell.core/where-object?view=powershell-5.1`,
  },
  // Microsoft.PowerShell.Management
  ...[
    'Copy-Item',
    'Get-ChildItem',
    'Get-Content',
    'Get-Item',
    'Get-ItemProperty',
    'Get-Service',
    'Join-Path',
    'Move-Item',
    'New-Item',
    'New-ItemProperty',
    'Remove-Item',
    'Remove-ItemProperty',
    'Rename-Computer',
    'Resolve-Path',
    'Restart-Service',
    'Set-Content',
    'Set-Service',
    'Split-Path',
    'Start-Service',
    'Stop-Service',
    'Test-Path',
  ].map((name) => ({
    name,
    module: 'Microsoft.PowerShell.Management',
    doc: `${learn}/powershell/module/microsoft.powershell.management/${name.toLowerCase()}?view=powershell-5.1`,
  })),
  // Microsoft.PowerShell.Utility
  ...[
    'ConvertFrom-Json',
    'ConvertTo-Json',
    'Format-Table',
    'Get-Date',
    'Get-FileHash',
    'Invoke-WebRequest',
    'New-Object',
    'Out-String',
    'Sort-Object',
    'Start-Sleep',
    'Write-Host',
    'Write-Output',
  ].map((name) => ({
    name,
    module: 'Microsoft.PowerShell.Utility',
    doc: `${learn}/powershell/module/microsoft.powershell.utility/${name.toLowerCase()}?view=powershell-5.1`,
  })),
  {
    name: 'Set-Acl',
    module: 'Microsoft.PowerShell.Security',
    doc: `${learn}/powershell/module/microsoft.powershell.security/set-acl?view=powershell-5.1`,
  },
  {
    name: 'Start-Transcript',
    module: 'Microsoft.PowerShell.Host',
    doc: `${learn}/powershell/module/microsoft.powershell.host/start-transcript?view=powershell-5.1`,
  },
  {
    name: 'Stop-Transcript',
    module: 'Microsoft.PowerShell.Host',
    doc: `${learn}/powershell/module/microsoft.powershell.host/stop-transcript?view=powershell-5.1`,
  },
  {
    name: 'Set-LocalUser',
    module: 'Microsoft.PowerShell.LocalAccounts',
    doc: `${learn}/powershell/module/microsoft.powershell.localaccounts/set-localuser?view=powershell-5.1`,
  },
  // Windows Server 2022 modules
  ...[
    'Get-NetFirewallPortFilter',
    'Get-NetFirewallRule',
    'New-NetFirewallRule',
    'Set-NetFirewallRule',
  ].map((name) => ({
    name,
    module: 'NetSecurity',
    doc: `${learn}/powershell/module/netsecurity/${name.toLowerCase()}?view=windowsserver2022-ps`,
  })),
  ...['Get-NetIPAddress', 'Get-NetNeighbor', 'Get-NetRoute', 'New-NetRoute', 'Remove-NetRoute'].map(
    (name) => ({
      name,
      module: 'NetTCPIP',
      doc: `${learn}/powershell/module/nettcpip/${name.toLowerCase()}?view=windowsserver2022-ps`,
    }),
  ),
  ...[
    'Get-ScheduledTask',
    'New-ScheduledTaskAction',
    'New-ScheduledTaskPrincipal',
    'New-ScheduledTaskTrigger',
    'Register-ScheduledTask',
  ].map((name) => ({
    name,
    module: 'ScheduledTasks',
    doc: `${learn}/powershell/module/scheduledtasks/${name.toLowerCase()}?view=windowsserver2022-ps`,
  })),
  ...['Get-NetConnectionProfile', 'Set-NetConnectionProfile'].map((name) => ({
    name,
    module: 'NetConnection',
    doc: `${learn}/powershell/module/netconnection/${name.toLowerCase()}?view=windowsserver2022-ps`,
  })),
  ...['Get-WindowsFeature', 'Install-WindowsFeature'].map((name) => ({
    name,
    module: 'ServerManager',
    doc: `${learn}/powershell/module/servermanager/${name.toLowerCase()}?view=windowsserver2022-ps`,
  })),
  ...['Add-WindowsCapability', 'Get-WindowsCapability'].map((name) => ({
    name,
    module: 'Dism',
    doc: `${learn}/powershell/module/dism/${name.toLowerCase()}?view=windowsserver2022-ps`,
  })),
  {
    name: 'Optimize-Volume',
    module: 'Storage',
    doc: `${learn}/powershell/module/storage/optimize-volume?view=windowsserver2022-ps`,
  },
  ...['Get-HnsEndpoint', 'Get-HnsNetwork', 'Get-HnsPolicyList'].map((name) => ({
    name,
    module: 'HostNetworkingService',
    doc: `${learn}/powershell/module/hostnetworkingservice/${name.toLowerCase()}?view=windowsserver2022-ps`,
  })),
  // Programs in %SystemRoot%\System32
  {
    name: 'Dism.exe',
    module: 'executable',
    doc: `${learn}/windows-hardware/manufacture/desktop/what-is-dism`,
  },
  {
    // Learn documents it only in a troubleshooting page's commands, not a page of its own.
    name: 'hnsdiag.exe',
    module: 'executable',
    doc: `${learn}/virtualization/windowscontainers/kubernetes/common-problems`,
    forms: ['hnsdiag list all -d'],
    shownBy: { 'hnsdiag list all -d': `${sdnDebug}/collectlogs.ps1` },
  },
  {
    name: 'pktmon.exe',
    module: 'executable',
    doc: `${learn}/windows-server/administration/windows-commands/pktmon`,
  },
  {
    // The Windows Server 2016 SDN troubleshooting guide's "advanced diagnostics" commands.
    name: 'vfpctrl.exe',
    module: 'executable',
    doc: `${learn}/windows-server/networking/sdn/troubleshoot/troubleshoot-windows-server-2016-software-defined-networking-stack`,
    forms: [
      'vfpctrl /list-vmswitch-port',
      'vfpctrl /port <port name> /get-port-state',
      'vfpctrl /port <port name> /get-rule-counter',
      'vfpctrl /port <port name> /get-port-counter',
    ],
    // Today's dumpVfpPolicies.ps1 reads a port's rules with /get-rule-counter; VFP.psm1 calls
    // /list-rule only with /layer and /group, so /list-rule /port alone is shown by neither.
    shownBy: {
      'vfpctrl /port <port name> /get-port-state': `${sdnDebug}/dumpVfpPolicies.ps1`,
      'vfpctrl /port <port name> /get-rule-counter': `${sdnDebug}/dumpVfpPolicies.ps1`,
      'vfpctrl /port <port name> /get-port-counter': `${sdnDebug}/collectlogs.ps1`,
    },
  },
  {
    name: 'icacls.exe',
    module: 'executable',
    doc: `${learn}/windows-server/administration/windows-commands/icacls`,
  },
  {
    name: 'powershell.exe',
    module: 'executable',
    doc: `${learn}/powershell/module/microsoft.powershell.core/about/about_powershell_exe?view=powershell-5.1`,
  },
  {
    // bsdtar, in System32 since Windows 10 1803 / Windows Server 2019.
    name: 'tar.exe',
    module: 'executable',
    doc: `${learn}/windows-server/administration/windows-commands/tar`,
  },
];

/**
 * Default aliases of Windows PowerShell 5.1 the scripts must not use, with what they stand for
 * (https://learn.microsoft.com/en-us/powershell/module/microsoft.powershell.core/about/about_aliases?view=powershell-5.1).
 * Only for the message: an alias is not in the list above, so it fails anyway.
 */
export const WINDOWS_POWERSHELL_ALIASES: Readonly<Record<string, string>> = {
  '%': 'ForEach-Object',
  '?': 'Where-Object',
  foreach: 'ForEach-Object',
  where: 'Where-Object',
  cat: 'Get-Content',
  gc: 'Get-Content',
  type: 'Get-Content',
  sc: 'Set-Content',
  cd: 'Set-Location',
  sl: 'Set-Location',
  ls: 'Get-ChildItem',
  dir: 'Get-ChildItem',
  gci: 'Get-ChildItem',
  cp: 'Copy-Item',
  copy: 'Copy-Item',
  mv: 'Move-Item',
  move: 'Move-Item',
  rm: 'Remove-Item',
  del: 'Remove-Item',
  ri: 'Remove-Item',
  ni: 'New-Item',
  echo: 'Write-Output',
  sleep: 'Start-Sleep',
  select: 'Select-Object',
  sort: 'Sort-Object',
  iwr: 'Invoke-WebRequest',
  curl: 'Invoke-WebRequest',
  wget: 'Invoke-WebRequest',
  iex: 'Invoke-Expression',
  ipmo: 'Import-Module',
  gsv: 'Get-Service',
};
