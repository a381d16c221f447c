; WhisperKey installer: a per-user install (no administrator rights) into
; %LOCALAPPDATA%\Programs\WhisperKey, with a Start-menu entry, optional start at
; sign-in and an uninstaller that keeps the user's settings and models unless
; asked to remove them (its tick box, or /PURGE on the command line).
;
; Built by scripts/installer.sh, which passes:
;   VERSION      version string shown to the user (e.g. 1.2.3 or 1.2.3-4-gabcdef)
;   VERSION_NUM  four numbers a.b.c.d for the installer's own version resource
;   SRC          build/windows: whisperkey.exe and engine\<variant>\…
;   ROOT         the repository: config.example.yaml, docs, assets
;   OUTFILE      the installer to write
;   HAVE_CPU, HAVE_CUDA, HAVE_ROCM, HAVE_ROCM_RDNA1   one per engine folder present
;   HAVE_README, HAVE_LICENSE                         when those files exist
;   HAVE_VAD     when SRC\vad holds the speech detector (ONNX Runtime + Silero)
;   SIGN_SCRIPT  scripts/sign.sh, when a signing certificate is given

; A 64-bit installer for a 64-bit app: on 32-bit Windows it does not start at
; all, and it runs under a wine without 32-bit support (the wine tests use one).
Target amd64-unicode
ManifestDPIAware true
RequestExecutionLevel user
SetCompressor /SOLID lzma

!include MUI2.nsh
!include LogicLib.nsh
!include FileFunc.nsh
!include Sections.nsh

!define APP        "WhisperKey"
!define EXE        "whisperkey.exe"
!define PUBLISHER  "WhisperKey contributors"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP}"
!define APP_KEY    "Software\${APP}"
!define RUN_KEY    "Software\Microsoft\Windows\CurrentVersion\Run"
; The tray app holds this mutex while it runs (internal/instance, guard "app").
!define APP_MUTEX  "Local\WhisperKey-app"

!macro REQUIRE_DEFINE name
  !ifndef ${name}
    !error "${name} is not defined: build with scripts/installer.sh (make installer)."
  !endif
!macroend
!insertmacro REQUIRE_DEFINE VERSION
!insertmacro REQUIRE_DEFINE VERSION_NUM
!insertmacro REQUIRE_DEFINE SRC
!insertmacro REQUIRE_DEFINE ROOT
!insertmacro REQUIRE_DEFINE OUTFILE

!ifdef SIGN_SCRIPT
  ; Signed as makensis writes them: the uninstaller before it is packed in, so
  ; the installed uninstall.exe carries the signature too; the installer last.
  !uninstfinalize 'bash "${SIGN_SCRIPT}" sign "%1"' = 0
  !finalize 'bash "${SIGN_SCRIPT}" sign "%1"' = 0
!endif

Name "${APP}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "${APP_KEY}" "InstallDir"
ShowInstDetails show
ShowUninstDetails show
BrandingText "${APP} ${VERSION}"

VIProductVersion "${VERSION_NUM}"
VIFileVersion "${VERSION_NUM}"
VIAddVersionKey /LANG=1033 "ProductName" "${APP}"
VIAddVersionKey /LANG=1033 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "FileDescription" "${APP} setup"
VIAddVersionKey /LANG=1033 "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=1033 "LegalCopyright" "${PUBLISHER}"

!define MUI_ICON   "${ROOT}/assets/whisperkey.ico"
!define MUI_UNICON "${ROOT}/assets/whisperkey.ico"
!define MUI_ABORTWARNING
!define MUI_COMPONENTSPAGE_NODESC

!insertmacro MUI_PAGE_WELCOME
!ifdef HAVE_LICENSE
  !insertmacro MUI_PAGE_LICENSE "${ROOT}/LICENSE"
!endif
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!define MUI_FINISHPAGE_RUN "$INSTDIR\${EXE}"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP} now"
!define MUI_FINISHPAGE_SHOWREADME "$INSTDIR\docs\gpu-setup.md"
!define MUI_FINISHPAGE_SHOWREADME_TEXT "Show the GPU setup guide"
!define MUI_FINISHPAGE_SHOWREADME_NOTCHECKED
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"

; Windows keeps a running exe locked, so files cannot be replaced or removed
; while the app is running: ask the user to quit it first.
!macro DEFINE_WAIT_NOT_RUNNING prefix
Function ${prefix}WaitNotRunning
  ${Do}
    System::Call 'kernel32::OpenMutexW(i 0x00100000, i 0, w "${APP_MUTEX}") p .r0'
    ${If} $0 = 0
      ${Break}
    ${EndIf}
    System::Call 'kernel32::CloseHandle(p r0)'
    MessageBox MB_RETRYCANCEL|MB_ICONEXCLAMATION \
      "${APP} is running. Quit it from its tray icon (right-click, Quit), then click Retry." \
      /SD IDCANCEL IDRETRY +2
    Abort
  ${Loop}
FunctionEnd
!macroend
!insertmacro DEFINE_WAIT_NOT_RUNNING ""
!insertmacro DEFINE_WAIT_NOT_RUNNING "un."

Section "${APP} (required)" SecApp
  SectionIn RO
  SetOutPath "$INSTDIR"
  File "${SRC}/${EXE}"
  File "${ROOT}/config.example.yaml"

  SetOutPath "$INSTDIR\docs"
  File "${ROOT}/docs/gpu-setup.md"
  File "${ROOT}/docs/configuration.md"
  ; The app links here when no model can be downloaded (import, mirror).
  File "${ROOT}/docs/installing-at-work.md"
  File "${ROOT}/docs/models.md"
  !ifdef HAVE_README
    File "${ROOT}/README.md"
  !endif
  !ifdef HAVE_LICENSE
    File "${ROOT}/LICENSE"
  !endif

  ; Old engine DLLs must not survive an upgrade next to new ones.
  RMDir /r "$INSTDIR\engine"
  SetOutPath "$INSTDIR\engine"
  !ifdef HAVE_CPU
    File /r "${SRC}/engine/cpu"
  !endif
  !ifdef HAVE_CUDA
    File /r "${SRC}/engine/cuda"
  !endif
  !ifdef HAVE_ROCM
    File /r "${SRC}/engine/rocm"
  !endif
  !ifdef HAVE_ROCM_RDNA1
    File /r "${SRC}/engine/rocm-rdna1"
  !endif

  ; The speech detector: presses without speech end in milliseconds, with no
  ; decoding (and no upload to a remote engine).
  RMDir /r "$INSTDIR\vad"
  !ifdef HAVE_VAD
    SetOutPath "$INSTDIR\vad"
    File "${SRC}/vad/onnxruntime.dll"
    File "${SRC}/vad/silero_vad_v6.onnx"
    File "${SRC}/vad/LICENSES.txt"
  !endif

  SetOutPath "$INSTDIR"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortCut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\${EXE}" "" "$INSTDIR\${EXE}" 0

  WriteRegStr HKCU "${APP_KEY}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${APP_KEY}" "Version" "${VERSION}"
  ; Start at sign-in only when its component is chosen (it writes the value back).
  DeleteRegValue HKCU "${RUN_KEY}" "${APP}"

  ; Apps & features (Add/Remove Programs), per user.
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\${EXE}"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINST_KEY}" "EstimatedSize" $0
SectionEnd

Section "Start ${APP} when I sign in" SecAutostart
  WriteRegStr HKCU "${RUN_KEY}" "${APP}" '"$INSTDIR\${EXE}"'
SectionEnd

Function .onInit
  SetRegView 64
  Call WaitNotRunning
  ; On an upgrade, keep the user's earlier choice about starting at sign-in.
  ReadRegStr $0 HKCU "${APP_KEY}" "InstallDir"
  ReadRegStr $1 HKCU "${RUN_KEY}" "${APP}"
  ${If} $0 != ""
  ${AndIf} $1 == ""
    !insertmacro UnselectSection ${SecAutostart}
  ${EndIf}
FunctionEnd

Section "un.${APP}" SecUnApp
  SectionIn RO
  Delete "$SMPROGRAMS\${APP}.lnk"
  DeleteRegValue HKCU "${RUN_KEY}" "${APP}"
  DeleteRegKey HKCU "${UNINST_KEY}"
  DeleteRegKey HKCU "${APP_KEY}"

  RMDir /r "$INSTDIR\engine"
  RMDir /r "$INSTDIR\vad"
  RMDir /r "$INSTDIR\docs"
  Delete "$INSTDIR\${EXE}"
  Delete "$INSTDIR\config.example.yaml"
  Delete "$INSTDIR\uninstall.exe"
  ; Only if empty: the folder may hold files the user put there.
  RMDir "$INSTDIR"
SectionEnd

; Settings live in %APPDATA%\whisperkey (config.yaml); downloaded models, logs
; and GPU check results in %LOCALAPPDATA%\whisperkey. Kept unless ticked.
Section /o "un.Also remove my settings and downloaded models" SecUnData
  RMDir /r "$APPDATA\whisperkey"
  RMDir /r "$LOCALAPPDATA\whisperkey"
SectionEnd

; "uninstall.exe /S /PURGE" also removes settings and models, for silent uninstalls.
Function un.onInit
  SetRegView 64
  ${un.GetParameters} $0
  ClearErrors
  ${un.GetOptions} $0 "/PURGE" $1
  ${IfNot} ${Errors}
    !insertmacro SelectSection ${SecUnData}
  ${EndIf}
  Call un.WaitNotRunning
FunctionEnd
