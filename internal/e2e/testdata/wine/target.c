/* A dictation target for the wine tests: a window holding an edit control
 * that takes the keyboard focus and, whenever its text changes, rewrites
 * OUTFILE with that text as UTF-8 (atomically, via OUTFILE.tmp).
 *   target.exe OUTFILE
 * It writes OUTFILE (empty) once it is focused, so the test knows when to
 * start, and exits when the window is closed or stdin reaches EOF. */
#include <windows.h>
#include <stdio.h>

static HWND edit;
static wchar_t out[MAX_PATH], tmp[MAX_PATH];

static void dump(void) {
  int n = GetWindowTextLengthW(edit);
  wchar_t *w = calloc(n + 1, sizeof *w);
  GetWindowTextW(edit, w, n + 1);
  int m = WideCharToMultiByte(CP_UTF8, 0, w, n, NULL, 0, NULL, NULL);
  char *u = malloc(m + 1);
  WideCharToMultiByte(CP_UTF8, 0, w, n, u, m, NULL, NULL);
  HANDLE f = CreateFileW(tmp, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
  if (f != INVALID_HANDLE_VALUE) {
    DWORD done;
    WriteFile(f, u, m, &done, NULL);
    CloseHandle(f);
    MoveFileExW(tmp, out, MOVEFILE_REPLACE_EXISTING);
  }
  free(w);
  free(u);
}

static LRESULT CALLBACK proc(HWND h, UINT msg, WPARAM wp, LPARAM lp) {
  switch (msg) {
  case WM_COMMAND:
    if ((HWND)lp == edit && HIWORD(wp) == EN_CHANGE) dump();
    return 0;
  case WM_ACTIVATE:
    if (LOWORD(wp) != WA_INACTIVE) SetFocus(edit);
    return 0;
  case WM_DESTROY:
    PostQuitMessage(0);
    return 0;
  }
  return DefWindowProcW(h, msg, wp, lp);
}

/* The test closes stdin to end the program. */
static DWORD WINAPI watch(LPVOID hwnd) {
  char buf[64];
  DWORD n;
  while (ReadFile(GetStdHandle(STD_INPUT_HANDLE), buf, sizeof buf, &n, NULL) && n > 0) {}
  PostMessageW((HWND)hwnd, WM_CLOSE, 0, 0);
  return 0;
}

int WINAPI wWinMain(HINSTANCE inst, HINSTANCE prev, LPWSTR cmd, int show) {
  int argc;
  wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
  if (argc != 2) {
    fprintf(stderr, "usage: target.exe OUTFILE\n");
    return 2;
  }
  lstrcpynW(out, argv[1], MAX_PATH - 4);
  lstrcpyW(tmp, out);
  lstrcatW(tmp, L".tmp");

  WNDCLASSW wc = {0};
  wc.lpfnWndProc = proc;
  wc.hInstance = inst;
  wc.lpszClassName = L"WhisperKeyTestTarget";
  wc.hbrBackground = (HBRUSH)(COLOR_WINDOW + 1);
  RegisterClassW(&wc);
  HWND w = CreateWindowExW(0, wc.lpszClassName, L"WhisperKey test target", WS_OVERLAPPEDWINDOW | WS_VISIBLE,
                           40, 40, 640, 240, NULL, NULL, inst, NULL);
  edit = CreateWindowExW(WS_EX_CLIENTEDGE, L"EDIT", L"", WS_CHILD | WS_VISIBLE | ES_MULTILINE | ES_AUTOVSCROLL | WS_VSCROLL,
                         0, 0, 620, 200, w, NULL, inst, NULL);
  ShowWindow(w, SW_SHOW);
  SetForegroundWindow(w);
  SetFocus(edit);
  dump(); /* the empty file says: ready */
  CreateThread(NULL, 0, watch, w, 0, NULL);

  MSG m;
  while (GetMessageW(&m, NULL, 0, 0) > 0) {
    TranslateMessage(&m);
    DispatchMessageW(&m);
  }
  return 0;
}
