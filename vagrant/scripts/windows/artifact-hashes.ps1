# Creates the given folders under the node's artifact folder, then prints "sha256  path" of every
# file in it (as sha256sum does), so the harness uploads only what is missing or different.
param([Parameter(ValueFromRemainingArguments = $true)][string[]]$Folders = @())
Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

$root = 'C:\hybrid-lab\artifacts'
New-Item -ItemType Directory -Force -Path $root | Out-Null
foreach ($folder in $Folders) {
    if ($folder -match '(^|[\\/])\.\.([\\/]|$)' -or [IO.Path]::IsPathRooted($folder)) {
        [Console]::Error.WriteLine("hl: error: bad folder $folder")
        exit 2
    }
    New-Item -ItemType Directory -Force -Path (Join-Path $root $folder) | Out-Null
}
$prefix = (Resolve-Path $root).Path.TrimEnd('\') + '\'
foreach ($file in Get-ChildItem -Recurse -File $root | Where-Object { $_.Name -notlike '*.part' } | Sort-Object FullName) {
    $hash = (Get-FileHash -Algorithm SHA256 $file.FullName).Hash.ToLowerInvariant()
    $rel = $file.FullName.Substring($prefix.Length) -replace '\\', '/'
    [Console]::Out.WriteLine("$hash  $rel")
}
