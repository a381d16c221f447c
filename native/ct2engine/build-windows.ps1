#Requires -Version 7
<#
.SYNOPSIS
Builds one Windows variant of WhisperKey's engine (ct2engine.dll) and gathers
the DLLs it needs into build\windows\engine\<variant>.

.DESCRIPTION
  cpu         ct2rs compiles the CTranslate2 it carries, statically, with the
              CPU backend -CpuFeatures (ruy, or dnnl) and the static C runtime.
              The folder holds ct2engine.dll alone.
  cuda        The same with CUDA 12 (our `cuda` feature: ct2rs cuda +
              cuda-dynamic-loading, CUDA_ARCH_LIST=Common). cudart is linked
              statically; cuBLAS 12 is loaded at run time from the user's CUDA
              install (docs/gpu-setup.md), or from the folder with -BundleCublas.
  rocm        CTranslate2 of the version ct2rs carries, built from its upstream
              tag with WITH_HIP against HIP SDK 7.x for CTranslate2's official
              gfx list, then linked through our `system` feature. The folder
              holds ct2engine.dll, ctranslate2.dll and the MSVC runtime; the
              HIP runtime, hipBLAS and rocBLAS come from the user's HIP SDK.
  rocm-rdna1  The same against HIP SDK 6.2 for gfx1010 only, with the
              __syncwarp fix and hipBLAS's v2 API (docs/gpu-setup.md#amd-rdna-1).

Needs Visual Studio 2022 with the C++ workload (the script enters its
developer shell), Rust (MSVC toolchain), CMake, Git; Ninja for the ROCm
variants; the CUDA 12 toolkit (CUDA_PATH) for cuda; the HIP SDK for rocm*
(-InstallHipSdk downloads and installs it, for CI).

.EXAMPLE
pwsh native/ct2engine/build-windows.ps1 -Variant cpu
.EXAMPLE
pwsh native/ct2engine/build-windows.ps1 -Variant rocm-rdna1 -InstallHipSdk
#>
param(
    [Parameter(Mandatory)]
    [ValidateSet('cpu', 'cuda', 'rocm', 'rocm-rdna1')]
    [string]$Variant,
    # CPU GEMM backend of the cpu variant; make engine on Linux uses ruy (docs/benchmarks.md).
    [ValidateSet('ruy', 'dnnl')]
    [string]$CpuFeatures = 'ruy',
    # HIP SDK folder; default: the newest C:\Program Files\AMD\ROCm\7.x (rocm) or \6.2 (rocm-rdna1).
    [string]$HipSdk = '',
    # Download and install the HIP SDK first (CI runners have none).
    [switch]$InstallHipSdk,
    [string]$HipInstallerUrl = '',
    # Also copy cublas64_12.dll and cublasLt64_12.dll (about 600 MB) into the cuda folder.
    [switch]$BundleCublas,
    # The MSVC toolset (VCToolsVersion prefix) the GPU variants build with;
    # '' takes the newest installed. Pinned because a newer Visual C++ library
    # breaks these builds: Visual Studio 2026's (14.50) needs Clang 20's
    # __builtin_verbose_trap, which HIP SDK 6.2's Clang 19 lacks (the gfx1010
    # notes met exactly that compile error), and CUDA 12's nvcc supports
    # Visual Studio 2022 only. 14.44 is Visual Studio 2022 17.14's, the one the
    # windows-2022 runners carry.
    [string]$MsvcToolset = '14.44',
    # Output folder; default <repo>\build\windows\engine\<variant>.
    [string]$Out = '',
    # Scratch space for sources and build trees; default <repo>\build\windows\work.
    [string]$WorkDir = ''
)

$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue' # the progress bar slows downloads a lot
Set-StrictMode -Version Latest

$CrateDir = $PSScriptRoot
$Repo = (Resolve-Path (Join-Path $PSScriptRoot '..\..')).Path
if (-not $Out) { $Out = Join-Path $Repo "build\windows\engine\$Variant" }
if (-not $WorkDir) { $WorkDir = Join-Path $Repo 'build\windows\work' }

# What each ROCm variant is built with. The gfx list of `rocm` is the one
# CTranslate2's own ROCm wheels use (python/tools/prepare_build_environment_*_rocm.sh).
$Rocm = @{
    'rocm'       = @{
        Sdk       = '7'
        HipDll    = 'amdhip64_7.dll'
        Archs     = 'gfx1030;gfx1100;gfx1101;gfx1102;gfx1150;gfx1151;gfx1200;gfx1201'
        # HIP SDK 7.1.1 for Windows.
        Installer = 'https://download.amd.com/developer/eula/rocm-hub/AMD-Software-PRO-Edition-26.Q1-Win11-For-HIP.exe'
    }
    'rocm-rdna1' = @{
        Sdk       = '6.2'
        HipDll    = 'amdhip64_6.dll'
        Archs     = 'gfx1010'
        # HIP SDK 6.2.4 for Windows (server edition; installs on CI runners).
        Installer = 'https://download.amd.com/developer/eula/rocm-hub/AMD-Software-PRO-Edition-24.Q4-WinSvr2022-For-HIP.exe'
    }
}

function Write-Step([string]$Text) {
    Write-Host "==> $Text" -ForegroundColor Cyan
}

# Runs a native program and throws when it fails ($LASTEXITCODE is not checked
# by Stop). Its output goes to the console, not into the caller's return value.
function Invoke-Checked {
    param([Parameter(Mandatory)][string]$Exe, [string[]]$Arguments = @())
    Write-Host "> $Exe $($Arguments -join ' ')"
    & $Exe @Arguments | Out-Host
    if ($LASTEXITCODE -ne 0) { throw "$Exe failed with exit code $LASTEXITCODE" }
}

# Makes cl, link, lib and dumpbin available (x64 host and target), and
# VCToolsRedistDir, where the Visual C++ runtime DLLs to ship are. With
# $Toolset, that MSVC toolset (vcvars_ver) and no other.
function Enter-VsDevShell64([string]$Toolset) {
    $ready = $env:VCToolsRedistDir -and (Get-Command cl.exe -ErrorAction SilentlyContinue) -and
        (Get-Command dumpbin.exe -ErrorAction SilentlyContinue)
    if (-not $ready) {
        $vswhere = Join-Path ${env:ProgramFiles(x86)} 'Microsoft Visual Studio\Installer\vswhere.exe'
        if (-not (Test-Path $vswhere)) { throw 'Visual Studio with the C++ workload is required: vswhere.exe was not found.' }
        $vs = & $vswhere -latest -products * -requires Microsoft.VisualStudio.Component.VC.Tools.x86.x64 -property installationPath
        if (-not $vs) { throw 'No Visual Studio with the C++ x64 tools; install the "Desktop development with C++" workload.' }
        $devArgs = '-arch=x64 -host_arch=x64'
        if ($Toolset) { $devArgs += " -vcvars_ver=$Toolset" }
        Import-Module (Join-Path $vs 'Common7\Tools\Microsoft.VisualStudio.DevShell.dll')
        Enter-VsDevShell -VsInstallPath $vs -SkipAutomaticLocation -DevCmdArguments $devArgs | Out-Null
        Write-Host "Visual Studio: $vs"
    }
    # vcvars_ver falls back quietly when the toolset is absent: check it.
    if ($Toolset -and -not "$env:VCToolsVersion".StartsWith("$Toolset.")) {
        throw "MSVC toolset $Toolset is needed for the $Variant variant, but the developer shell has '$env:VCToolsVersion': install the MSVC v143 $Toolset build tools (Visual Studio Installer, individual components) or pass -MsvcToolset."
    }
    Write-Host "MSVC toolset: $env:VCToolsVersion"
}

function Assert-Tool([string]$Name, [string]$Hint) {
    if (-not (Get-Command $Name -ErrorAction SilentlyContinue)) { throw "$Name not found: $Hint" }
}

# The CTranslate2 version whose headers ct2rs compiles against; a library
# linked through `system` must be built from the same version.
function Get-Ct2Version {
    $json = & cargo metadata --format-version 1 --locked --manifest-path (Join-Path $CrateDir 'Cargo.toml')
    if ($LASTEXITCODE -ne 0) { throw 'cargo metadata failed' }
    $pkg = ($json | ConvertFrom-Json).packages | Where-Object { $_.name -eq 'ct2rs' } | Select-Object -First 1
    if (-not $pkg) { throw 'ct2rs is not a dependency of native/ct2engine' }
    $file = Join-Path (Split-Path $pkg.manifest_path) 'CTranslate2\python\ctranslate2\version.py'
    $m = Select-String -Path $file -Pattern '__version__\s*=\s*"([0-9.]+)"'
    if (-not $m) { throw "no __version__ in $file" }
    return $m.Matches[0].Groups[1].Value
}

function Build-Ct2rsVariant {
    # ct2rs builds CTranslate2 with the static runtime and asks for the same here.
    $env:RUSTFLAGS = '-C target-feature=+crt-static'
    $env:CMAKE_PARALLEL = "$env:NUMBER_OF_PROCESSORS"
    $env:CARGO_TARGET_DIR = Join-Path $WorkDir "target-$Variant"
    $features = $CpuFeatures
    if ($Variant -eq 'cuda') {
        if (-not $env:CUDA_PATH -or -not (Test-Path (Join-Path $env:CUDA_PATH 'include\cuda.h'))) {
            throw 'CUDA_PATH does not name a CUDA 12 toolkit; install CUDA Toolkit 12.x (nvcc, cudart, cublas_dev, curand_dev).'
        }
        $env:CUDA_ARCH_LIST = 'Common'
        $features = 'cuda'
    }
    Write-Step "cargo build ($Variant, features $features)"
    Push-Location $CrateDir
    try {
        Invoke-Checked cargo @('build', '--release', '--locked', '--no-default-features', '--features', $features)
    } finally {
        Pop-Location
    }
    Copy-Item (Join-Path $env:CARGO_TARGET_DIR 'release\ct2engine.dll') $Out -Force
    if ($Variant -eq 'cuda' -and $BundleCublas) {
        foreach ($dll in 'cublas64_12.dll', 'cublasLt64_12.dll') {
            Copy-Item (Join-Path $env:CUDA_PATH "bin\$dll") $Out -Force
        }
    }
}

function Install-HipSdk([hashtable]$Spec) {
    $url = if ($HipInstallerUrl) { $HipInstallerUrl } else { $Spec.Installer }
    $exe = Join-Path ([IO.Path]::GetTempPath()) 'hip-sdk-setup.exe'
    Write-Step "downloading HIP SDK $($Spec.Sdk) from $url"
    Invoke-WebRequest -Uri $url -OutFile $exe
    Write-Step 'installing the HIP SDK (several minutes)'
    $p = Start-Process -FilePath $exe -ArgumentList '-install' -NoNewWindow -Wait -PassThru
    if ($p.ExitCode -ne 0) { throw "HIP SDK installer exited with $($p.ExitCode)" }
}

# The newest HIP SDK folder whose version starts with $Spec.Sdk and that has
# the HIP runtime this variant is for.
function Find-HipSdk([hashtable]$Spec) {
    if ($HipSdk) {
        if (-not (Test-Path (Join-Path $HipSdk "bin\$($Spec.HipDll)"))) { throw "$HipSdk has no bin\$($Spec.HipDll); it is not a HIP SDK $($Spec.Sdk)" }
        return (Resolve-Path $HipSdk).Path
    }
    $root = Join-Path $env:ProgramFiles 'AMD\ROCm'
    $found = Get-ChildItem $root -Directory -ErrorAction SilentlyContinue |
        Where-Object { $_.Name -like "$($Spec.Sdk)*" -and (Test-Path (Join-Path $_.FullName "bin\$($Spec.HipDll)")) } |
        Sort-Object Name -Descending | Select-Object -First 1
    if (-not $found) { throw "No HIP SDK $($Spec.Sdk) under $root (looked for bin\$($Spec.HipDll)); install it or pass -HipSdk or -InstallHipSdk." }
    return $found.FullName
}

function Find-First([string[]]$Paths) {
    foreach ($p in $Paths) { if (Test-Path $p) { return $p } }
    throw "none of these exist: $($Paths -join ', ')"
}

# HIP SDK 6.2 has no __syncwarp unless HIP_ENABLE_WARP_SYNC_BUILTINS is set.
# Mapping it to __syncthreads() (as the first gfx1010 build did) corrupts
# softmax: block_reduce() calls it from the first warp only, and that barrier
# releases the rest of the block early at the __syncthreads() that follows. A
# wavefront runs in lockstep on gfx1010, so a no-op is correct.
# Our patches on CTranslate2 (native/ct2-patches, the same set and rules as
# scripts/ct2-patch.sh): each in name order is applied, or skipped when it is
# already applied; one that does neither means the source moved under it.
function Add-Ct2Patches([string]$Src) {
    $dir = Join-Path $Repo 'native\ct2-patches'
    foreach ($p in Get-ChildItem -Path $dir -Filter '*.patch' | Sort-Object Name) {
        & git -C $Src apply --check $p.FullName 2>$null
        if ($LASTEXITCODE -eq 0) {
            Invoke-Checked git @('-C', $Src, 'apply', $p.FullName)
            Write-Host "applied $($p.Name)"
            continue
        }
        & git -C $Src apply --reverse --check $p.FullName 2>$null
        if ($LASTEXITCODE -eq 0) { Write-Host "$($p.Name) already applied"; continue }
        throw "$($p.Name) does not apply to CTranslate2 in $Src`: the source moved under it; refresh the patch"
    }
}

function Add-SyncwarpFix([string]$Src) {
    $file = Join-Path $Src 'src\cuda\helpers.h'
    $text = Get-Content -Raw $file
    if ($text.Contains('WHISPERKEY_SYNCWARP_FIX')) { return }
    $anchor = '#define __nv_bfloat16 __hip_bfloat16'
    if (-not $text.Contains($anchor)) { throw "$file changed ('$anchor' not found): re-check the __syncwarp fix for this CTranslate2 version" }
    $fix = @'
#define __nv_bfloat16 __hip_bfloat16
// WHISPERKEY_SYNCWARP_FIX (native/ct2engine/build-windows.ps1): a no-op, not
// __syncthreads(); see docs/building.md.
#ifndef __syncwarp
#define __syncwarp(mask) ((void)(mask))
#endif
'@
    Set-Content -Path $file -Value $text.Replace($anchor, $fix.TrimEnd()) -NoNewline -Encoding utf8
    Write-Host "patched $file"
}

# Empty static libraries for names ct2rs's `system` link line always asks for
# on Windows (cublas, cublasLt: only dropped with cuda-dynamic-loading, which
# implies CUDA) although a HIP build never calls them.
function New-StubLibraries([string]$Dir, [string[]]$Names) {
    New-Item -ItemType Directory -Force $Dir | Out-Null
    $c = Join-Path $Dir 'stub.c'
    Set-Content $c "/* Intentionally empty: see New-StubLibraries in build-windows.ps1. */`ntypedef int whisperkey_link_stub;"
    Invoke-Checked cl.exe @('/nologo', '/c', "/Fo$(Join-Path $Dir 'stub.obj')", $c)
    foreach ($n in $Names) {
        Invoke-Checked lib.exe @('/nologo', "/OUT:$(Join-Path $Dir "$n.lib")", (Join-Path $Dir 'stub.obj'))
    }
}

function Build-HipVariant {
    $spec = $Rocm[$Variant]
    if ($InstallHipSdk) { Install-HipSdk $spec }
    $sdk = Find-HipSdk $spec
    Write-Host "HIP SDK: $sdk"
    Assert-Tool ninja 'install Ninja (choco install ninja, or the one in Visual Studio''s CMake)'
    Assert-Tool git 'install Git for Windows'
    if ($Variant -eq 'rocm-rdna1' -and $env:VCToolsVersion -and [version]$env:VCToolsVersion -ge [version]'14.50') {
        Write-Warning 'MSVC 14.50''s C++ library (Visual Studio 2026) needs Clang 20 (__builtin_verbose_trap); HIP SDK 6.2 has Clang 19. Build with -MsvcToolset 14.44.'
    }

    $ct2 = Get-Ct2Version
    $src = Join-Path $WorkDir "CTranslate2-$ct2-$Variant"
    $build = Join-Path $WorkDir "ct2-build-$Variant"
    $install = Join-Path $WorkDir "ct2-install-$Variant"
    if (-not (Test-Path (Join-Path $src '.git'))) {
        Write-Step "fetching CTranslate2 v$ct2 (the version ct2rs compiles against)"
        Invoke-Checked git @('clone', '--quiet', '--depth', '1', '--branch', "v$ct2", 'https://github.com/OpenNMT/CTranslate2.git', $src)
        # Only these submodules are used by a HIP build without a CPU backend.
        Invoke-Checked git @('-C', $src, 'submodule', 'update', '--init', '--depth', '1', 'third_party/spdlog', 'third_party/cpu_features')
    }
    $tagVersion = (Select-String -Path (Join-Path $src 'python\ctranslate2\version.py') -Pattern '"([0-9.]+)"').Matches[0].Groups[1].Value
    if ($tagVersion -ne $ct2) { throw "CTranslate2 source is $tagVersion, ct2rs needs $ct2: delete $src and retry" }

    $flags = '-Wno-deprecated-literal-operator'
    Add-Ct2Patches $src
    if ($Variant -eq 'rocm-rdna1') {
        Add-SyncwarpFix $src
        # hipBLAS v2 API (hipDataType, hipblasComputeType_t) for GemmEx: the
        # legacy one takes other enums and fails float16 GEMMs at run time.
        # ROCm 7 has only the v2 API. The STL check: HIP SDK 6.2's Clang 19 is
        # a pre-release that Visual Studio's library may refuse.
        $flags += ' -DHIPBLAS_V2 -D_ALLOW_COMPILER_AND_STL_VERSION_MISMATCH'
    }
    $clang = Find-First @((Join-Path $sdk 'bin\clang.exe'), (Join-Path $sdk 'lib\llvm\bin\clang.exe'))
    $clangxx = Find-First @((Join-Path $sdk 'bin\clang++.exe'), (Join-Path $sdk 'lib\llvm\bin\clang++.exe'))
    $env:ROCM_PATH = $sdk
    $env:HIP_PATH = $sdk
    $env:HIP_PLATFORM = 'amd'
    $env:PATH = "$(Join-Path $sdk 'bin');$env:PATH"

    Write-Step "configuring CTranslate2 $ct2 for $($spec.Archs)"
    Invoke-Checked cmake @(
        '-G', 'Ninja', '-S', $src, '-B', $build,
        '-DCMAKE_BUILD_TYPE=Release',
        "-DCMAKE_INSTALL_PREFIX=$install",
        '-DCMAKE_POLICY_VERSION_MINIMUM=3.5',
        "-DCMAKE_C_COMPILER=$clang", "-DCMAKE_CXX_COMPILER=$clangxx", "-DCMAKE_HIP_COMPILER=$clangxx",
        "-DCMAKE_HIP_ARCHITECTURES=$($spec.Archs)",
        "-DCMAKE_PREFIX_PATH=$sdk",
        # The same C runtime as the Rust side (no crt-static below).
        '-DCMAKE_MSVC_RUNTIME_LIBRARY=MultiThreadedDLL',
        "-DCMAKE_CXX_FLAGS=$flags", "-DCMAKE_HIP_FLAGS=$flags",
        '-DBUILD_CLI=OFF', '-DBUILD_TESTS=OFF', '-DBUILD_SHARED_LIBS=ON',
        # GPU only: the worker runs the CPU with the cpu variant.
        '-DWITH_HIP=ON', '-DWITH_CUDA=OFF', '-DWITH_MKL=OFF', '-DWITH_DNNL=OFF', '-DWITH_RUY=OFF', '-DOPENMP_RUNTIME=NONE'
    )
    Write-Step 'building CTranslate2 (long: every kernel for every gfx target)'
    Invoke-Checked cmake @('--build', $build, '--parallel', "$env:NUMBER_OF_PROCESSORS")
    Invoke-Checked cmake @('--install', $build)

    # What ct2rs's `system` mode links, and how each is satisfied:
    #   ctranslate2            the import library just installed;
    #   cpu_features           (x86_64) the static library CTranslate2 built;
    #   cublas, cublasLt       empty stubs, see New-StubLibraries;
    #   ruy, cpuinfo, clog     not asked for: --no-default-features drops ruy;
    #   cudart_static          not asked for: only with the cuda feature.
    $stubs = Join-Path $WorkDir 'link-stubs'
    New-StubLibraries $stubs @('cublas', 'cublasLt')
    $libDirs = @((Join-Path $install 'lib'), $stubs)
    $cpuFeatures = Get-ChildItem $build -Recurse -Filter 'cpu_features.lib' | Select-Object -First 1
    if ($cpuFeatures) { $libDirs += $cpuFeatures.DirectoryName } else { New-StubLibraries $stubs @('cpu_features') }
    $env:LIBRARY_PATH = $libDirs -join ';'
    # Dynamic C runtime, like ctranslate2.dll: C++ objects cross the boundary.
    Remove-Item Env:RUSTFLAGS -ErrorAction SilentlyContinue
    $env:CARGO_TARGET_DIR = Join-Path $WorkDir "target-$Variant"
    Write-Step 'cargo build (features system)'
    Push-Location $CrateDir
    try {
        Invoke-Checked cargo @('build', '--release', '--locked', '--no-default-features', '--features', 'system')
    } finally {
        Pop-Location
    }
    Copy-Item (Join-Path $env:CARGO_TARGET_DIR 'release\ct2engine.dll') $Out -Force
    Copy-Item (Join-Path $install 'bin\ctranslate2.dll') $Out -Force
    return @{ Sdk = $sdk; Ct2 = $ct2; Ship = @((Join-Path $install 'bin')); External = @((Join-Path $sdk 'bin')) }
}

# The DLLs a PE file imports, normal and delay-loaded (dumpbin /dependents).
function Get-DllImports([string]$Dll) {
    $lines = & dumpbin.exe /nologo /dependents $Dll
    if ($LASTEXITCODE -ne 0) { throw "dumpbin /dependents $Dll failed" }
    $in = $false
    foreach ($line in $lines) {
        if ($line -match 'Image has the following (delay load )?dependencies') { $in = $true; continue }
        if ($line -match '^\s*Summary\s*$') { break }
        if ($in -and $line -match '^\s+(\S+\.dll)\s*$') { $Matches[1] }
    }
}

# Walks the imports of every DLL in $Out: a DLL found in a $Ship folder is
# copied in (and walked too), one in an $External folder is left to the user's
# install and listed, one of Windows' own is skipped; anything else fails the
# build, since the engine would not load on a user's machine.
function Copy-Dependencies([string[]]$Ship, [string[]]$External) {
    $queue = [System.Collections.Generic.Queue[string]]::new()
    Get-ChildItem $Out -Filter *.dll | ForEach-Object { $queue.Enqueue($_.FullName) }
    $seen = @{}
    $fromUser = [System.Collections.Generic.List[string]]::new()
    while ($queue.Count -gt 0) {
        $dll = $queue.Dequeue()
        foreach ($dep in Get-DllImports $dll) {
            $key = $dep.ToLowerInvariant()
            if ($seen.ContainsKey($key)) { continue }
            $seen[$key] = $true
            if (Test-Path (Join-Path $Out $dep)) { continue }
            $ship = $Ship | Where-Object { $_ -and (Test-Path (Join-Path $_ $dep)) } | Select-Object -First 1
            if ($ship) {
                Copy-Item (Join-Path $ship $dep) $Out
                Write-Host "  + $dep (from $ship)"
                $queue.Enqueue((Join-Path $Out $dep))
                continue
            }
            if ($External | Where-Object { $_ -and (Test-Path (Join-Path $_ $dep)) }) {
                $fromUser.Add($dep)
                continue
            }
            if ($key -like 'api-ms-win-*' -or $key -like 'ext-ms-*' -or (Test-Path (Join-Path $env:SystemRoot "System32\$dep"))) { continue }
            throw "$dep, needed by $(Split-Path -Leaf $dll), is neither in $($Ship -join ', ') nor part of Windows"
        }
    }
    return , $fromUser.ToArray()
}

# The MSVC runtime folders of the active Visual Studio (vcruntime, msvcp, vcomp).
function Get-VcRuntimeDirs {
    if (-not $env:VCToolsRedistDir) { return @() }
    return @(Get-ChildItem (Join-Path $env:VCToolsRedistDir 'x64') -Directory -ErrorAction SilentlyContinue |
            Where-Object { $_.Name -like 'Microsoft.VC*.CRT' -or $_.Name -like 'Microsoft.VC*.OpenMP' } |
            ForEach-Object { $_.FullName })
}

# Loads the engine the way the worker does (its folder and the external
# folders on the search path), checks that its C ABI is exported and calls
# ct2e_devices, which needs no GPU (no device is a count of 0, not an error).
# Any failure fails the build, for every variant: a release must not ship an
# engine that does not load. On a runner the HIP SDK is installed, so the
# ROCm variants find the DLLs they import there, as on a user's machine.
function Test-Engine([string[]]$ExtraDirs) {
    if (-not ('WhisperKeyEngineProbe' -as [type])) {
        Add-Type -TypeDefinition @'
using System;
using System.Runtime.InteropServices;
public static class WhisperKeyEngineProbe {
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)] public delegate IntPtr NoArgs();
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)] public delegate void FreeString(IntPtr s);
    public static string Devices(IntPtr lib) {
        var devices = Marshal.GetDelegateForFunctionPointer<NoArgs>(NativeLibrary.GetExport(lib, "ct2e_devices"));
        var free = Marshal.GetDelegateForFunctionPointer<FreeString>(NativeLibrary.GetExport(lib, "ct2e_string_free"));
        var lastError = Marshal.GetDelegateForFunctionPointer<NoArgs>(NativeLibrary.GetExport(lib, "ct2e_last_error"));
        IntPtr p = devices();
        if (p == IntPtr.Zero) { return "error: " + Marshal.PtrToStringUTF8(lastError()); }
        try { return Marshal.PtrToStringUTF8(p); } finally { free(p); }
    }
}
'@
    }
    $oldPath = $env:PATH
    try {
        $env:PATH = ((@($Out) + $ExtraDirs) -join ';') + ';' + $oldPath
        $lib = [System.Runtime.InteropServices.NativeLibrary]::Load((Join-Path $Out 'ct2engine.dll'))
        $header = Get-Content (Join-Path $CrateDir 'include\ct2engine.h') -Raw
        foreach ($m in [regex]::Matches($header, '\b(ct2e_[a-z_]+)\s*\(')) {
            $null = [System.Runtime.InteropServices.NativeLibrary]::GetExport($lib, $m.Groups[1].Value)
        }
        Write-Host 'engine loads and exports its C ABI'
        $devices = [WhisperKeyEngineProbe]::Devices($lib)
        Write-Host "ct2e_devices: $devices"
        if ($devices.StartsWith('error:')) { throw "ct2e_devices failed: $devices" }
    } catch {
        throw "the $Variant engine in $Out does not load or answer: $_"
    } finally {
        $env:PATH = $oldPath
    }
}

# --- main -------------------------------------------------------------------

# The cpu variant takes the newest toolset: it has neither nvcc nor HIP's clang.
Enter-VsDevShell64 $(if ($Variant -eq 'cpu') { '' } else { $MsvcToolset })
Assert-Tool cargo 'install Rust (rustup, MSVC toolchain)'
Assert-Tool cmake 'install CMake'
if (Test-Path $Out) { Remove-Item -Recurse -Force $Out }
New-Item -ItemType Directory -Force $Out, $WorkDir | Out-Null

$info = [ordered]@{ variant = $Variant }
if ($Variant -in 'cpu', 'cuda') {
    Build-Ct2rsVariant
    $info.ctranslate2 = "$(Get-Ct2Version) (built by ct2rs)"
    $info.features = if ($Variant -eq 'cuda') { 'cuda (CUDA_ARCH_LIST=Common)' } else { $CpuFeatures }
    $ship = @()
    $external = @()
    if ($env:CUDA_PATH) { $external = @((Join-Path $env:CUDA_PATH 'bin')) }
} else {
    $hip = Build-HipVariant
    $info.ctranslate2 = "$($hip.Ct2) (WITH_HIP, linked through ct2rs's system feature)"
    $info.hip_sdk = $hip.Sdk
    $info.gfx = $Rocm[$Variant].Archs
    $ship = $hip.Ship
    $external = $hip.External
}

Write-Step "collecting the DLLs ct2engine.dll needs into $Out"
$fromUser = Copy-Dependencies -Ship ($ship + (Get-VcRuntimeDirs)) -External $external
$info.files = (Get-ChildItem $Out -File | ForEach-Object { $_.Name }) -join ', '
$info.from_the_users_install = if ($fromUser.Count) { $fromUser -join ', ' } else { '(none)' }

Write-Step 'checking that the engine loads'
Test-Engine -ExtraDirs $external

$info.built = (Get-Date).ToUniversalTime().ToString('yyyy-MM-dd HH:mm') + ' UTC'
$info.GetEnumerator() | ForEach-Object { '{0}: {1}' -f $_.Key, $_.Value } |
    Set-Content -Path (Join-Path $Out 'build-info.txt') -Encoding utf8
Get-Content (Join-Path $Out 'build-info.txt')
