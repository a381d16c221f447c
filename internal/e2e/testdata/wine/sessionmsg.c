/* Tells WhisperKey's session watcher window that the session came back, as
 * Windows does (the wine tests have no sleep or lock screen to go through):
 *   sessionmsg.exe resume   WM_POWERBROADCAST, PBT_APMRESUMEAUTOMATIC
 *   sessionmsg.exe unlock   WM_WTSSESSION_CHANGE, WTS_SESSION_UNLOCK
 * It posts to every top-level window whose class starts with
 * "WhisperKeySessionWatcher-", prints how many, and exits 1 if none. */
#include <windows.h>
#include <stdio.h>
#include <string.h>

#ifndef WM_WTSSESSION_CHANGE
#define WM_WTSSESSION_CHANGE 0x02B1
#endif
#ifndef WTS_SESSION_UNLOCK
#define WTS_SESSION_UNLOCK 0x8
#endif

static UINT msg;
static WPARAM param;
static int posted;

static BOOL CALLBACK post(HWND hwnd, LPARAM unused) {
  (void)unused;
  char cls[256];
  static const char prefix[] = "WhisperKeySessionWatcher-";
  if (GetClassNameA(hwnd, cls, sizeof cls) && strncmp(cls, prefix, sizeof prefix - 1) == 0) {
    if (PostMessageA(hwnd, msg, param, 0)) posted++;
    else fprintf(stderr, "sessionmsg: PostMessage to %s failed (%lu)\n", cls, GetLastError());
  }
  return TRUE;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "resume") == 0) {
    msg = WM_POWERBROADCAST, param = PBT_APMRESUMEAUTOMATIC;
  } else if (argc == 2 && strcmp(argv[1], "unlock") == 0) {
    msg = WM_WTSSESSION_CHANGE, param = WTS_SESSION_UNLOCK;
  } else {
    fprintf(stderr, "usage: sessionmsg.exe resume|unlock\n");
    return 2;
  }
  EnumWindows(post, 0);
  printf("posted to %d window(s)\n", posted);
  return posted > 0 ? 0 : 1;
}
