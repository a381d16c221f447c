#Requires -Version 7
<#
.SYNOPSIS
Installs a WhisperKey setup silently, checks what it installed, runs
`whisperkey doctor --json` and transcribes a WAV made with Windows' own
text-to-speech, then uninstalls and checks what was removed and what was kept.

.DESCRIPTION
The CPU engine is always tried. A GPU variant is tried when doctor chose it,
which needs that GPU and its driver (hosted CI runners have neither; the
build script already checked that every GPU variant loads).
The release workflow runs this on a Windows runner after building the setup.

.EXAMPLE
pwsh installer/smoke-test.ps1 -Setup build\windows\whisperkey-setup-1.2.3.exe
#>
param(
    [Parameter(Mandatory)][string]$Setup,
    [string]$InstallDir = (Join-Path ([IO.Path]::GetTempPath()) 'WhisperKey smoke'),
    [string]$Model = 'base',
    # What the WAV says; the transcript must contain most of these words.
    [string]$Sentence = 'The quick brown fox jumps over the lazy dog.',
    # Windows must trust the exe's signature (a tagged release, signed with
    # the project's certificate); otherwise a throwaway signature will do.
    [switch]$RequireTrusted
)

$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'
# No strict mode: doctor's JSON leaves out fields that do not apply.

$Exe = Join-Path $InstallDir 'whisperkey.exe'
$UninstKey = 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Uninstall\WhisperKey'
$RunKey = 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Run'
$failures = [System.Collections.Generic.List[string]]::new()

function Write-Step([string]$Text) { Write-Host "==> $Text" -ForegroundColor Cyan }

function Assert-That([bool]$Ok, [string]$What) {
    if ($Ok) {
        Write-Host "  ok   $What"
    } else {
        Write-Host "  FAIL $What" -ForegroundColor Red
        $failures.Add($What)
    }
}

# Quotes an argument for a Windows command line when it needs it.
function Format-Argument([string]$Arg) {
    if ($Arg -match '[\s"]') { return '"' + ($Arg -replace '"', '\"') + '"' }
    return $Arg
}

# Runs a program to completion with its output captured. whisperkey.exe is a
# GUI-subsystem program: PowerShell would not wait for it when called with &.
function Invoke-Program([string]$Path, [string[]]$Arguments) {
    $out = New-TemporaryFile
    $err = New-TemporaryFile
    try {
        $p = Start-Process -FilePath $Path -ArgumentList (($Arguments | ForEach-Object { Format-Argument $_ }) -join ' ') `
            -NoNewWindow -Wait -PassThru -RedirectStandardOutput $out -RedirectStandardError $err
        $r = [pscustomobject]@{
            Code = $p.ExitCode
            Out  = [string](Get-Content -Raw $out)
            Err  = [string](Get-Content -Raw $err)
        }
        Write-Host "> $(Split-Path -Leaf $Path) $($Arguments -join ' ') -> exit $($r.Code)"
        if ($r.Err) { Write-Host $r.Err.TrimEnd() }
        return $r
    } finally {
        Remove-Item $out, $err -ErrorAction SilentlyContinue
    }
}

# Writes $Text as 16 kHz mono 16-bit speech with SAPI. System.Speech belongs
# to the .NET Framework, so Windows PowerShell (powershell.exe) does it.
function New-SpeechWav([string]$Path, [string]$Text) {
    $script = Join-Path ([IO.Path]::GetTempPath()) 'whisperkey-tts.ps1'
    Set-Content -Path $script -Encoding utf8 -Value @'
param([string]$Path, [string]$Text)
$ErrorActionPreference = 'Stop'
Add-Type -AssemblyName System.Speech
$synth = New-Object System.Speech.Synthesis.SpeechSynthesizer
if (-not $synth.GetInstalledVoices().Count) { throw 'no SAPI voice is installed' }
$format = New-Object System.Speech.AudioFormat.SpeechAudioFormatInfo(16000,
    [System.Speech.AudioFormat.AudioBitsPerSample]::Sixteen, [System.Speech.AudioFormat.AudioChannel]::Mono)
$synth.SetOutputToWaveFile($Path, $format)
$synth.Speak($Text)
$synth.Dispose()
'@
    & powershell.exe -NoProfile -ExecutionPolicy Bypass -File $script -Path $Path -Text $Text
    if ($LASTEXITCODE -ne 0 -or -not (Test-Path $Path)) { throw "text-to-speech failed (exit $LASTEXITCODE)" }
    Remove-Item $script
}

# The share of the expected words found in the transcript (case and punctuation ignored).
function Get-WordRecall([string]$Expected, [string]$Got) {
    $words = { param($s) @(($s.ToLowerInvariant() -replace "[^a-z0-9' ]", ' ') -split '\s+' | Where-Object { $_ }) }
    $want = & $words $Expected
    $have = & $words $Got
    $hit = @($want | Where-Object { $have -contains $_ }).Count
    return $hit / [math]::Max(1, $want.Count)
}

function Test-Transcribe([string]$Wav, [string]$Device) {
    $r = Invoke-Program $Exe @('transcribe', $Wav, '--model', $Model, '--language', 'en', '--device', $Device, '--json')
    Assert-That ($r.Code -eq 0) "transcribe --device $Device exits 0"
    if ($r.Code -ne 0) { return }
    $res = $r.Out | ConvertFrom-Json
    $recall = Get-WordRecall $Sentence $res.text
    Write-Host "  text: $($res.text.Trim())  (device $($res.device), $($res.compute_type), real-time factor $([math]::Round($res.real_time_factor, 3)))"
    Assert-That ($recall -ge 0.75) "transcript has most of the spoken words (recall $([math]::Round($recall, 2)))"
    return $res
}

# --- install ------------------------------------------------------------------
Write-Step "installing $Setup into $InstallDir"
if (Test-Path $InstallDir) { Remove-Item -Recurse -Force $InstallDir }
# NSIS: /S silent; /D= must come last and unquoted, even with spaces.
$p = Start-Process -FilePath $Setup -ArgumentList '/S', "/D=$InstallDir" -Wait -PassThru
Assert-That ($p.ExitCode -eq 0) 'the installer exits 0'
Assert-That (Test-Path $Exe) 'whisperkey.exe is installed'
Assert-That (Test-Path (Join-Path $InstallDir 'engine\cpu\ct2engine.dll')) 'the cpu engine is installed'
Assert-That (Test-Path (Join-Path $InstallDir 'config.example.yaml')) 'config.example.yaml is installed'
Assert-That (Test-Path (Join-Path $InstallDir 'docs\gpu-setup.md')) 'docs\gpu-setup.md is installed'
Assert-That (Test-Path (Join-Path $InstallDir 'uninstall.exe')) 'the uninstaller is installed'
Assert-That (Test-Path $UninstKey) 'Apps & features lists WhisperKey (HKCU)'
Assert-That ((Get-ItemProperty $UninstKey -ErrorAction SilentlyContinue).InstallLocation -eq $InstallDir) 'its InstallLocation is the install folder'
Assert-That (Test-Path (Join-Path ([Environment]::GetFolderPath('Programs')) 'WhisperKey.lnk')) 'the Start-menu shortcut exists'
Assert-That ($null -ne (Get-ItemProperty $RunKey -Name WhisperKey -ErrorAction SilentlyContinue)) 'start at sign-in is on (the default)'
$variants = Get-ChildItem (Join-Path $InstallDir 'engine') -Directory | ForEach-Object { $_.Name }
Write-Host "  engine variants: $($variants -join ', ')"

if (-not (Test-Path $Exe)) { throw "nothing to test: $Exe is missing" }

# --- run ------------------------------------------------------------------------
Write-Step 'whisperkey version'
$r = Invoke-Program $Exe @('version')
Assert-That ($r.Code -eq 0 -and $r.Out -match '^whisperkey ') 'version prints "whisperkey <version>"'

Write-Step "downloading the $Model model"
$r = Invoke-Program $Exe @('models', 'pull', $Model)
Assert-That ($r.Code -eq 0) "models pull $Model exits 0"

Write-Step 'whisperkey doctor --json'
$r = Invoke-Program $Exe @('doctor', '--json', '--model', $Model)
$doctor = $null
try { $doctor = $r.Out | ConvertFrom-Json } catch { Write-Host $r.Out }
Assert-That ($null -ne $doctor) 'doctor --json prints JSON'
if ($doctor) {
    Write-Host "  decision: $($doctor.message)"
    Assert-That ($r.Code -eq 0) 'doctor exits 0 (engine loaded, self-test passed)'
    Assert-That ([bool]$doctor.variants.cpu) 'doctor sees the cpu engine'
    foreach ($v in $variants) {
        Assert-That ([bool]$doctor.variants.$v) "doctor sees the $v engine"
    }
    Assert-That ($null -ne $doctor.self_test -and [bool]$doctor.self_test.ok) 'the self-test transcription is right'
    # make test signed the exe; doctor's verdict (WinVerifyTrust) must be
    # PowerShell's own (Get-AuthenticodeSignature asks the same API).
    $sig = $doctor.signature
    $ps = Get-AuthenticodeSignature $Exe
    Write-Host "  signature: $($sig.signer), trusted: $($sig.trusted) $($sig.problem); Get-AuthenticodeSignature: $($ps.Status)"
    Assert-That ($null -ne $sig -and [bool]$sig.signed) 'doctor says the exe is signed'
    Assert-That ([bool]$sig.trusted -eq ($ps.Status -eq 'Valid')) 'doctor and Get-AuthenticodeSignature agree on the trust'
    if ($RequireTrusted) {
        Assert-That ([bool]$sig.trusted) 'Windows trusts the signature'
    }
}

Write-Step 'transcribing speech made with Windows text-to-speech'
$wav = Join-Path ([IO.Path]::GetTempPath()) 'whisperkey-smoke.wav'
New-SpeechWav $wav $Sentence
$null = Test-Transcribe $wav 'cpu'
if ($doctor -and $doctor.decision.variant -ne 'cpu') {
    $res = Test-Transcribe $wav 'auto'
    if ($res) { Assert-That ($res.device -ne 'cpu') "the $($doctor.decision.variant) engine ran on the GPU" }
} else {
    Write-Host '  GPU variants: not run, no usable GPU on this machine (build-windows.ps1 checked that they load)'
}

# --- uninstall ------------------------------------------------------------------
Write-Step 'uninstalling (keeping settings and models, the default)'
$modelsDir = Join-Path $env:LOCALAPPDATA 'whisperkey\models'
# _?= runs the uninstaller in place, so -Wait really waits for it.
$p = Start-Process -FilePath (Join-Path $InstallDir 'uninstall.exe') -ArgumentList '/S', "_?=$InstallDir" -Wait -PassThru
Assert-That ($p.ExitCode -eq 0) 'the uninstaller exits 0'
Assert-That (-not (Test-Path $Exe)) 'whisperkey.exe is removed'
Assert-That (-not (Test-Path (Join-Path $InstallDir 'engine'))) 'the engine folders are removed'
Assert-That (-not (Test-Path $UninstKey)) 'the Apps & features entry is removed'
Assert-That (-not (Test-Path (Join-Path ([Environment]::GetFolderPath('Programs')) 'WhisperKey.lnk'))) 'the Start-menu shortcut is removed'
Assert-That ($null -eq (Get-ItemProperty $RunKey -Name WhisperKey -ErrorAction SilentlyContinue)) 'start at sign-in is removed'
Assert-That (Test-Path $modelsDir) "downloaded models are kept ($modelsDir)"

if ($failures.Count) {
    Write-Host "`n$($failures.Count) check(s) failed:" -ForegroundColor Red
    $failures | ForEach-Object { Write-Host "  - $_" -ForegroundColor Red }
    exit 1
}
Write-Host "`nall checks passed" -ForegroundColor Green
