# hybrid-lab: last step of the box build. Keeps the vagrant account password from expiring,
# turns off the autologon used by the installer, and trims the disk before Packer exports it.
$ErrorActionPreference = 'Stop'
Set-LocalUser -Name vagrant -PasswordNeverExpires $true
Remove-ItemProperty -Path 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Winlogon' `
  -Name 'AutoAdminLogon', 'DefaultPassword' -ErrorAction SilentlyContinue
Dism.exe /Online /Cleanup-Image /StartComponentCleanup /ResetBase | Out-Null
Optimize-Volume -DriveLetter C -ReTrim -ErrorAction SilentlyContinue
