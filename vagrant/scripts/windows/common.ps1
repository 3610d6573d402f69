# Helpers every hybrid-lab Windows node script dot-sources: settings, change reporting, artifacts.
# Each script prints "hl: changed: ..." for every change it makes, so a re-run that prints none
# changed nothing. Output goes through [Console]::Out so functions never return it by accident.
Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'

$HlStage = 'C:\hybrid-lab'
$HlConfigFile = Join-Path $HlStage 'config\node.json'
if (-not (Test-Path $HlConfigFile)) {
    [Console]::Error.WriteLine("hl: error: $HlConfigFile is missing; the harness uploads it before running any script")
    exit 2
}
$Hl = Get-Content -Raw $HlConfigFile | ConvertFrom-Json
# Exit codes the harness understands: 3 = an artifact is missing, 75 = try again later.
$HlExitMissing = 3
$HlExitTransient = 75

function Write-HlLog([string]$Text) { [Console]::Out.WriteLine("hl: $Text") }
function Write-HlOk([string]$What) { [Console]::Out.WriteLine("hl: ok: $What") }
function Write-HlChanged([string]$What) { [Console]::Out.WriteLine("hl: changed: $What") }

function Stop-Hl([string]$Message, [int]$Code = 1) {
    [Console]::Error.WriteLine("hl: error: $Message")
    exit $Code
}

function Get-HlMissingMessage([string]$Rel) {
    "artifact missing: $Rel for Kubernetes $($Hl.HL_K8S_VERSION) $([char]0x2014) stage it in $($Hl.HL_ARTIFACTS_HINT)"
}

# The local path of a cache file: downloaded first from the cache URL (or, without a cache, from
# upstream, each of its addresses in turn); fails naming the file when it is nowhere.
function Get-HlArtifact([string]$Rel) {
    $path = Join-Path $Hl.HL_ARTIFACTS_DIR ($Rel -replace '/', '\')
    if ((Test-Path $path) -and (Get-Item $path).Length -gt 0) { return $path }
    $urls = @()
    if ($Hl.HL_ARTIFACTS_SOURCE -eq 'url') { $urls = @("$($Hl.HL_ARTIFACTS_URL)/$Rel") }
    elseif ($Hl.HL_ARTIFACTS_SOURCE -eq 'none' -and $Hl.HL_UPSTREAM.PSObject.Properties[$Rel]) {
        $urls = @($Hl.HL_UPSTREAM.$Rel | Where-Object { $_ -match '^https?://\S+$' })
    }
    $failures = @()
    foreach ($url in $urls) {
        New-Item -ItemType Directory -Force -Path (Split-Path $path) | Out-Null
        try {
            Invoke-WebRequest -UseBasicParsing -Uri $url -OutFile "$path.part"
            Move-Item -Force "$path.part" $path
            return $path
        }
        catch { $failures += "$url ($($_.Exception.Message))" }
    }
    if ($failures.Count -gt 0) { Stop-Hl "cannot download $Rel from $($failures -join '; ')" $HlExitTransient }
    Stop-Hl (Get-HlMissingMessage $Rel) $HlExitMissing
}

# Writes a file only when its content differs (UTF-8 without BOM); $true when it changed.
function Set-HlFile([string]$Path, [string]$Content) {
    if ((Test-Path $Path) -and ([IO.File]::ReadAllText($Path) -ceq $Content)) { return $false }
    New-Item -ItemType Directory -Force -Path (Split-Path $Path) | Out-Null
    [IO.File]::WriteAllText($Path, $Content, (New-Object System.Text.UTF8Encoding $false))
    Write-HlChanged $Path
    return $true
}

# Copies a file only when its content differs; $true when it changed.
function Copy-HlFile([string]$Source, [string]$Destination) {
    if ((Test-Path $Destination) -and ((Get-FileHash $Source).Hash -eq (Get-FileHash $Destination).Hash)) {
        return $false
    }
    New-Item -ItemType Directory -Force -Path (Split-Path $Destination) | Out-Null
    Copy-Item -Force $Source $Destination
    Write-HlChanged $Destination
    return $true
}

# The running services that depend on $Name: Stop-Service and Restart-Service refuse a service with
# running dependents unless -Force, which stops them too; the caller starts them again.
function Get-HlRunningDependent([string]$Name) {
    @((Get-Service $Name).DependentServices | Where-Object { $_.Status -eq 'Running' } | ForEach-Object { $_.Name })
}

# Starts the services in $Names that are not running (dependents a forced stop took down).
function Start-HlDependent([string[]]$Names) {
    foreach ($name in $Names) {
        if ((Get-Service $name).Status -ne 'Running') {
            Start-Service $name
            Write-HlChanged "service $name started again"
        }
    }
}

# This process's PATH from the Machine and User PATH as they are now. The in-box OpenSSH of Windows
# Server 2022 (8.1) gives a session the environment sshd started with (Win32-OpenSSH#1329), so a
# folder an earlier session added to the Machine PATH is not on this one's.
function Update-HlSessionPath {
    $env:Path = (@('Machine', 'User') | ForEach-Object { [Environment]::GetEnvironmentVariable('Path', $_) } |
            Where-Object { $_ }) -join ';'
}

# Adds a folder to the machine PATH once.
function Add-HlMachinePath([string]$Folder) {
    $current = [Environment]::GetEnvironmentVariable('Path', 'Machine')
    if (($current -split ';') -notcontains $Folder) {
        [Environment]::SetEnvironmentVariable('Path', "$current;$Folder", 'Machine')
        Write-HlChanged "PATH += $Folder"
    }
    if (($env:Path -split ';') -notcontains $Folder) { $env:Path = "$env:Path;$Folder" }
}

# The "key = value" lines of a TOML text, trimmed and without quotes.
function ConvertTo-HlSetting([string]$Text) {
    foreach ($line in ($Text -split "`r?`n")) {
        $setting = $line.Trim() -replace '["'']', ''
        if ($setting -match '^[A-Za-z_]+ = ') { $setting }
    }
}

# The settings of a TOML config that the program's effective config (e.g. `containerd config
# dump`) lacks, quotes aside: a program drops keys it does not know, so those are not in effect.
function Get-HlUnappliedSetting([string]$Config, [string]$Effective) {
    $have = @(ConvertTo-HlSetting $Effective)
    ConvertTo-HlSetting $Config | Where-Object { $_ -notmatch '^version = ' -and $have -cnotcontains $_ }
}
