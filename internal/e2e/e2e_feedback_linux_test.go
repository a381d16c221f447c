//go:build linux

package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/whisperkey/whisperkey/internal/autostart"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// notifications is an org.freedesktop.Notifications server on the test's
// session bus, as a desktop's notification daemon is; it keeps each summary.
type notifications struct {
	mu  sync.Mutex
	got []string // "summary: body"
}

func (s *notifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, expire int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, summary+": "+body)
	return uint32(len(s.got)), nil
}

// wait returns the first notification whose summary starts with prefix.
func (s *notifications) wait(t testing.TB, prefix string, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		for _, n := range s.got {
			if strings.HasPrefix(n, prefix) {
				s.mu.Unlock()
				return n
			}
		}
		s.mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.Fatalf("no %q notification within %v; received %q", prefix, limit, s.got)
	return ""
}

func startNotificationServer(t testing.TB) *notifications {
	t.Helper()
	s := &notifications{}
	testenv.ServeNotifications(t, s)
	return s
}

// mic is a PulseAudio null sink of the test's own whose monitor is the
// app's microphone, with a silence stream playing as a real microphone
// delivers audio; unplug and plug it back like a USB microphone.
type mic struct {
	sink, desc, module string
	player             *exec.Cmd
}

func newMic(t testing.TB) *mic {
	t.Helper()
	stamp := time.Now().UnixNano() % 1e9
	m := &mic{sink: fmt.Sprintf("wk_e2e_mic_%d_%d", os.Getpid(), stamp), desc: fmt.Sprintf("WKE2EMic%d", stamp)}
	m.plug(t)
	t.Cleanup(func() { m.unplug(t) })
	return m
}

func (m *mic) plug(t testing.TB) {
	t.Helper()
	out, err := exec.Command("pactl", "load-module", "module-null-sink", "sink_name="+m.sink,
		"rate=16000", "channels=1", "sink_properties=device.description="+m.desc).CombinedOutput()
	if err != nil {
		t.Fatalf("load null sink: %v: %s", err, out)
	}
	m.module = strings.TrimSpace(string(out))
	m.player = exec.Command("pacat", "--playback", "-d", m.sink, "--rate=16000", "--channels=1", "--format=s16le", "--latency-msec=100")
	m.player.Stdin, _ = os.Open("/dev/zero")
	if err := m.player.Start(); err != nil {
		t.Fatal(err)
	}
}

func (m *mic) unplug(t testing.TB) {
	t.Helper()
	if m.module == "" {
		return
	}
	if out, err := exec.Command("pactl", "unload-module", m.module).CombinedOutput(); err != nil {
		t.Errorf("unload %s: %v: %s", m.module, err, out)
	}
	m.module = ""
	_ = m.player.Process.Kill()
	_ = m.player.Wait()
}

// say plays wav into the microphone and waits until it ends.
func (m *mic) say(t testing.TB, wav string) {
	t.Helper()
	if out, err := exec.Command("paplay", "--latency-msec=1000", "-d", m.sink, wav).CombinedOutput(); err != nil {
		t.Fatalf("paplay: %v %s", err, out)
	}
}

func focusedWindow(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("xdotool", "getwindowfocus").Output()
	if err != nil {
		t.Fatalf("xdotool getwindowfocus: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// What shows the user the app's work, in the real app on the headless
// desktop: the indicator is on screen while recording (pixel check) and gone
// after the paste, and the target keeps the focus and gets the text; the
// Recent submenu lists the dictation and choosing it puts the text on the
// clipboard; the Start at login toggle writes and removes the autostart
// entry; the microphone's sink unloaded mid-session brings a "Microphone
// lost" notification and the default input standing in (named in the tray)
// and, plugged back, "Microphone back", and the next dictation works.
func TestIndicatorRecentNotificationsAndLogin(t *testing.T) {
	desktopSession(t)
	for _, tool := range []string{"xwd", "pacat", "pactl"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Require(t, tool, "make deps")
		}
	}
	notes := startNotificationServer(t)
	m := newMic(t)
	wav := micWAV(t, dictated)
	red := indicator.DotColour(indicator.Recording)
	if n, _ := testenv.PixelsOf(testenv.Screenshot(t), red); n != 0 {
		t.Fatalf("%d pixels of the indicator's recording colour before the app started", n)
	}
	// pre_roll holds the stream open while idle, so the unplug below is seen at once;
	// with the default (closed while idle) it is seen at the next press.
	a := startApp(t, "audio:\n  input_device: "+m.desc+"\n  pre_roll: true\nindicator: bottom\nnotifications: true\n")

	// Dictation with the indicator on.
	tg := openTarget(t)
	focus := focusedWindow(t)
	xdo(t, "keydown", "ctrl+shift+F9")
	time.Sleep(300 * time.Millisecond)
	spoken := make(chan struct{})
	go func() { defer close(spoken); m.say(t, wav) }()
	time.Sleep(time.Second)
	shot := testenv.Screenshot(t)
	during := focusedWindow(t)
	<-spoken
	time.Sleep(300 * time.Millisecond)
	xdo(t, "keyup", "ctrl+shift+F9")
	n, box := testenv.PixelsOf(shot, red)
	w, h := shot.Bounds().Dx(), shot.Bounds().Dy()
	if n < 50 {
		t.Errorf("recording: %d pixels of the indicator's red on screen, want its dot (≥ 50)", n)
	} else if c := (box.Min.X + box.Max.X) / 2; c < w/2-indicator.Width/2 || c > w/2+indicator.Width/2 || box.Min.Y < h/2 {
		t.Errorf("recording: the indicator's red is at %v, want the bottom centre of the %dx%d screen", box, w, h)
	}
	t.Logf("recording: %d red indicator pixels at %v on the %dx%d screen; focus %s", n, box, w, h, during)
	if during != focus {
		t.Errorf("the focus moved from window %s to %s while the indicator showed", focus, during)
	}
	got := tg.waitText(t, 40*time.Second)
	if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
		t.Fatalf("target got %q (WER %.2f), want %q", got, wer, dictated)
	}
	if now := focusedWindow(t); now != focus {
		t.Errorf("the focus moved from window %s to %s after the paste", focus, now)
	}
	time.Sleep(time.Second) // gone within 1 s of the paste
	if n, box := testenv.PixelsOf(testenv.Screenshot(t), red); n != 0 {
		t.Errorf("1 s after the paste %d red indicator pixels remain at %v", n, box)
	}

	// The Recent submenu lists the dictation; choosing it copies it.
	var labels []string
	for deadline := time.Now().Add(5 * time.Second); len(labels) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		root, err := a.menu.Layout()
		if err != nil {
			t.Fatal(err)
		}
		if recent, err := root.Find("Recent"); err == nil {
			labels = recent.Labels()
		}
	}
	if len(labels) != 1 || !strings.HasPrefix(got, strings.TrimSuffix(labels[0], "…")) {
		t.Fatalf("Recent lists %q, want the start of %q", labels, got)
	}
	t.Logf("Recent lists %q", labels)
	setClipboard(t, clipFirst)
	if err := a.menu.Click("Recent", labels[0]); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for clipboardText(t) != got && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if c := clipboardText(t); c != got {
		t.Errorf("after choosing the Recent entry the clipboard holds %q, want %q", c, got)
	}

	// Start at login, on and off from the tray.
	entry := filepath.Join(filepath.Dir(filepath.Dir(a.config)), "autostart", autostart.FileName)
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("autostart entry before the toggle: %v", err)
	}
	if err := a.menu.Click("Start at login"); err != nil {
		t.Fatal(err)
	}
	waitFile(t, entry, "Exec=")
	if b, _ := os.ReadFile(entry); !strings.Contains(string(b), binary(t)) {
		t.Errorf("autostart entry does not start the app (%s):\n%s", binary(t), b)
	}
	// The entry is written before the menu is rebuilt: wait for the check.
	checked := false
	for deadline := time.Now().Add(5 * time.Second); !checked && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		root, _ := a.menu.Layout()
		n, err := root.Find("Start at login")
		checked = err == nil && n.Checked
	}
	if !checked {
		t.Error("Start at login is not checked after turning it on")
	}
	if err := a.menu.Click("Start at login"); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(entry); os.IsNotExist(err) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("autostart entry still there after turning it off: %v", err)
	}

	// The microphone goes away and comes back.
	m.unplug(t)
	lost := notes.wait(t, "Microphone lost", 15*time.Second)
	if !strings.Contains(lost, m.desc) {
		t.Errorf("lost notification %q does not name the microphone %s", lost, m.desc)
	}
	// The default input stands in until the microphone returns.
	if st := a.waitStatus(t, "Recording from", 15*time.Second); !strings.Contains(st, "was "+"Monitor of "+m.desc) {
		t.Errorf("tray status %q does not say the default stands in for %s", st, m.desc)
	}
	m.plug(t)
	t.Logf("notified %q", lost)
	t.Logf("notified %q", notes.wait(t, "Microphone back", 15*time.Second))
	a.waitStatus(t, "is back", 5*time.Second)
	if err := a.cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the app is gone after the microphone came back: %v", err)
	}
	tg2 := openTarget(t)
	holdWhile(t, 300*time.Millisecond, func() { m.say(t, wav) })
	got2 := tg2.waitText(t, 40*time.Second)
	if wer := whisper.WordErrorRate(dictated, got2); got2 == "" || wer > 0.15 {
		t.Fatalf("after the microphone came back the target got %q (WER %.2f), want %q", got2, wer, dictated)
	}
	log, err := os.ReadFile(a.log)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"coffee", "machine"} {
		if strings.Contains(strings.ToLower(string(log)), secret) {
			t.Errorf("the app log contains the dictated word %q", secret)
		}
	}
}

// A target that ignores the paste: the app does not claim success. The
// indicator shows the error, a "Text not pasted" notification arrives, the
// text stays on the clipboard, and Recent keeps it.
func TestNotPastedTellsTheUser(t *testing.T) {
	desktopSession(t)
	notes := startNotificationServer(t)
	wav := micWAV(t, dictated)
	a := startApp(t, "indicator: bottom\nnotifications: true\n")

	cmd := exec.Command("wish", filepath.Join(testenv.RepoRoot(t), "internal", "output", "testdata", "lazy.tcl"))
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "READY ") {
		t.Fatalf("lazy target did not start: %q", sc.Text())
	}
	xdo(t, "windowfocus", "--sync", strings.TrimPrefix(sc.Text(), "READY "))
	setClipboard(t, clipFirst)

	holdAndSay(t, wav)
	// The error shows for a moment (indicator.Config.FlashFor): watch for it.
	errRed := indicator.DotColour(indicator.Error)
	shown := 0
	for deadline := time.Now().Add(60 * time.Second); shown < 50 && time.Now().Before(deadline); {
		shown, _ = testenv.PixelsOf(testenv.Screenshot(t), errRed)
	}
	if shown < 50 {
		t.Errorf("the indicator never showed the error: %d pixels of its error colour", shown)
	}
	note := notes.wait(t, "Text not pasted", 10*time.Second)
	t.Logf("notified %q; the indicator showed the error (%d pixels)", note, shown)
	clip := clipboardText(t)
	if wer := whisper.WordErrorRate(dictated, clip); wer > 0.15 {
		t.Errorf("clipboard holds %q (WER %.2f), want the dictation waiting there", clip, wer)
	}
	a.waitStatus(t, "Ctrl+V", 5*time.Second)
	root, err := a.menu.Layout()
	if err != nil {
		t.Fatal(err)
	}
	if recent, err := root.Find("Recent"); err != nil || len(recent.Labels()) != 1 {
		t.Errorf("Recent after a text that was not pasted: %v, %v; want it listed", recent.Labels(), err)
	}
}
