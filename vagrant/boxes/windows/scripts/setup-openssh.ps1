# hybrid-lab: first logon of the Windows box build. Installs and starts the OpenSSH server,
# makes PowerShell its shell, and authorises Vagrant's insecure public key (vagrant.pub on the
# floppy) for the vagrant administrator, so Packer and Vagrant both connect over OpenSSH.
$ErrorActionPreference = 'Stop'
Start-Transcript -Path C:\Windows\Temp\hybrid-lab-openssh.log

# The OpenSSH server ships as a capability (Features on Demand; Windows Update or FoD media).
$capability = Get-WindowsCapability -Online -Name 'OpenSSH.Server*'
if ($capability.State -ne 'Installed') { Add-WindowsCapability -Online -Name $capability.Name | Out-Null }
Set-Service -Name sshd -StartupType Automatic
Start-Service sshd
New-ItemProperty -Path 'HKLM:\SOFTWARE\OpenSSH' -Name DefaultShell -PropertyType String -Force `
  -Value 'C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe' | Out-Null
if (-not (Get-NetFirewallRule -Name 'OpenSSH-Server-In-TCP' -ErrorAction SilentlyContinue)) {
  New-NetFirewallRule -Name 'OpenSSH-Server-In-TCP' -DisplayName 'OpenSSH Server (sshd)' `
    -Enabled True -Direction Inbound -Protocol TCP -Action Allow -LocalPort 22 | Out-Null
}

# Administrators' keys live in one file that only SYSTEM and Administrators may read.
$keys = 'C:\ProgramData\ssh\administrators_authorized_keys'
Get-Content A:\vagrant.pub | Set-Content -Encoding ascii $keys
icacls.exe $keys /inheritance:r /grant 'Administrators:F' /grant 'SYSTEM:F' | Out-Null

# Network profile private, so the lab network is not firewalled as public.
Get-NetConnectionProfile | Set-NetConnectionProfile -NetworkCategory Private
Stop-Transcript
