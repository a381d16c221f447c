/* The Windows clipboard for the wine tests.
 *   cliptool.exe set TEXT      owns the clipboard with TEXT (CF_UNICODETEXT),
 *                              the same text as "HTML Format" and a 2x2 CF_DIB
 *   cliptool.exe dump          one line per format EnumClipboardFormats lists:
 *                              "ID NAME BYTES HEX" for memory formats and
 *                              "ID NAME handle" for GDI handles
 * TEXT is UTF-8 on the command line. */
#include <windows.h>
#include <stdio.h>
#include <string.h>

static int open_clipboard(void) {
  for (int i = 0; i < 100; i++) {
    if (OpenClipboard(NULL)) return 1;
    Sleep(20);
  }
  /* Say who holds it, so that a test that gives up can tell why. */
  DWORD err = GetLastError(), pid = 0;
  HWND holder = GetOpenClipboardWindow();
  char cls[128] = "";
  if (holder) {
    GetWindowThreadProcessId(holder, &pid);
    GetClassNameA(holder, cls, sizeof cls);
  }
  fprintf(stderr, "cliptool: OpenClipboard failed for 2 s (error %lu); held by window %p class \"%s\" pid %lu\n", err,
          (void *)holder, cls, pid);
  return 0;
}

static int put(UINT format, const void *data, SIZE_T n) {
  HGLOBAL h = GlobalAlloc(GMEM_MOVEABLE, n);
  memcpy(GlobalLock(h), data, n);
  GlobalUnlock(h);
  if (!SetClipboardData(format, h)) {
    fprintf(stderr, "cliptool: SetClipboardData(%u) failed (%lu)\n", format, GetLastError());
    return 0;
  }
  return 1;
}

/* CF_HTML: a header of byte offsets, then the fragment. */
static char *html(const char *text) {
  const char *pre = "<html><body><!--StartFragment--><b>";
  const char *post = "</b><!--EndFragment--></body></html>";
  const char *hdr = "Version:0.9\r\nStartHTML:%010d\r\nEndHTML:%010d\r\nStartFragment:%010d\r\nEndFragment:%010d\r\n";
  int hlen = snprintf(NULL, 0, hdr, 0, 0, 0, 0);
  int start = hlen, sfrag = hlen + (int)strlen("<html><body><!--StartFragment-->");
  int efrag = hlen + (int)strlen(pre) + (int)strlen(text) + (int)strlen("</b>");
  int end = hlen + (int)(strlen(pre) + strlen(text) + strlen(post));
  char *s = malloc(end + 1);
  sprintf(s, hdr, start, end, sfrag, efrag);
  strcat(s, pre);
  strcat(s, text);
  strcat(s, post);
  return s;
}

static int set(const char *utf8) {
  int n = MultiByteToWideChar(CP_UTF8, 0, utf8, -1, NULL, 0);
  wchar_t *w = calloc(n, sizeof *w);
  MultiByteToWideChar(CP_UTF8, 0, utf8, -1, w, n);
  char *h = html(utf8);
  struct {
    BITMAPINFOHEADER bi;
    DWORD px[4];
  } dib = {{sizeof(BITMAPINFOHEADER), 2, 2, 1, 32, BI_RGB, 16, 2835, 2835, 0, 0},
           {0x00ff0000, 0x0000ff00, 0x000000ff, 0x00ffffff}};
  if (!open_clipboard()) return 1;
  int ok = EmptyClipboard() && put(CF_UNICODETEXT, w, n * sizeof *w) &&
           put(RegisterClipboardFormatW(L"HTML Format"), h, strlen(h) + 1) && put(CF_DIB, &dib, sizeof dib);
  CloseClipboard();
  return ok ? 0 : 1;
}

static int dump(void) {
  if (!open_clipboard()) return 1;
  UINT f = 0;
  while ((f = EnumClipboardFormats(f)) != 0) {
    char name[256] = "";
    if (!GetClipboardFormatNameA(f, name, sizeof name)) snprintf(name, sizeof name, "#%u", f);
    for (char *p = name; *p; p++)
      if (*p == ' ') *p = '_';
    HANDLE h = GetClipboardData(f);
    if (f == CF_BITMAP || f == CF_PALETTE || f == CF_METAFILEPICT || f == CF_ENHMETAFILE) {
      printf("%u %s handle\n", f, name);
      continue;
    }
    if (!h) {
      printf("%u %s unrendered\n", f, name);
      continue;
    }
    SIZE_T n = GlobalSize(h);
    unsigned char *p = GlobalLock(h);
    printf("%u %s %lu ", f, name, (unsigned long)n);
    for (SIZE_T i = 0; p && i < n; i++) printf("%02x", p[i]);
    printf("\n");
    if (p) GlobalUnlock(h);
  }
  CloseClipboard();
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "set") == 0) {
    /* argv is in the ANSI code page; take the UTF-8 from the wide command line. */
    int wc;
    wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &wc);
    int n = WideCharToMultiByte(CP_UTF8, 0, wargv[2], -1, NULL, 0, NULL, NULL);
    char *u = malloc(n);
    WideCharToMultiByte(CP_UTF8, 0, wargv[2], -1, u, n, NULL, NULL);
    return set(u);
  }
  if (argc == 2 && strcmp(argv[1], "dump") == 0) return dump();
  fprintf(stderr, "usage: cliptool.exe set TEXT | dump\n");
  return 2;
}
