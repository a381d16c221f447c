//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// The app keeps working without a restart through what changes under it on a
// long day: keyboard layouts, microphones, sleep. Each test ends with a
// dictation that must paste.

// resilientConfig is a config for the real app on the base model.
func resilientConfig(t testing.TB, record, extra string) string {
	return "model: " + testenv.Model(t, "base") + "\nhotkeys:\n  record: " + record + "\n  cancel: esc\n" + extra
}

// startRecording holds keys until the tray says the app listens: right after
// a layout change the app moves its grab when it reads the server's
// MappingNotify, and a press before that reaches no grab and is tried again.
func startRecording(t testing.TB, a *runningApp, keys string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		xdo(t, "keydown", keys)
		for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if s, _ := a.menu.Status(); strings.Contains(s, "Listening") {
				return
			}
		}
		xdo(t, "keyup", keys)
		if time.Now().After(deadline) {
			s, _ := a.menu.Status()
			t.Fatalf("%s never started a recording (tray: %q)", keys, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// dictate holds keys, plays wav through play, releases, and checks that a new
// target gets the sentence.
func dictate(t testing.TB, a *runningApp, keys string, play func()) {
	t.Helper()
	tg := openTarget(t)
	startRecording(t, a, keys)
	time.Sleep(300 * time.Millisecond)
	play()
	time.Sleep(300 * time.Millisecond)
	xdo(t, "keyup", keys)
	got := tg.waitText(t, 40*time.Second)
	if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
		t.Fatalf("target got %q (WER %.2f), want %q", got, wer, dictated)
	}
	t.Logf("pasted %q", got)
}

func setxkbmap(t testing.TB, layout string) {
	t.Helper()
	if out, err := exec.Command("setxkbmap", layout).CombinedOutput(); err != nil {
		t.Fatalf("setxkbmap %s: %v: %s", layout, err, out)
	}
}

// A German layout swaps Y and Z: the record hotkey ctrl+shift+z moves to
// another keycode with each switch (us → de → us) and still dictates.
func TestLayoutSwitchStillDictates(t *testing.T) {
	desktopSession(t)
	if _, err := exec.LookPath("setxkbmap"); err != nil {
		testenv.Require(t, "setxkbmap", "apt-get install x11-xkb-utils")
	}
	t.Cleanup(func() { _ = exec.Command("setxkbmap", "us").Run() })
	wav := micWAV(t, dictated)
	a, _ := launchApp(t, resilientConfig(t, "ctrl+shift+z", ""))
	a.waitStatus(t, "ready", 90*time.Second)
	for _, layout := range []string{"us", "de", "us"} {
		t.Run(layout, func(t *testing.T) {
			setxkbmap(t, layout)
			dictate(t, a, "ctrl+shift+z", func() { say(t, wav) })
		})
	}
	if b, _ := os.ReadFile(a.log); strings.Count(string(b), "hotkey re-grabbed for the new keyboard mapping") < 2 {
		t.Errorf("the app log does not show the grab moving with each layout switch")
	}
}

// With no input_device the app follows PulseAudio's default source, on the
// default config (no stream open while idle): the microphone it used is
// unloaded and a new one made default, the tray and a notification name the
// new one before any press, and the next dictation is heard through it.
func TestDefaultMicrophoneFollowedByTheApp(t *testing.T) {
	desktopSession(t)
	notes := startNotificationServer(t)
	first := newMic(t)
	setSource := func(src string) {
		if out, err := exec.Command("pactl", "set-default-source", src).CombinedOutput(); err != nil {
			t.Fatalf("pactl set-default-source %s: %v: %s", src, err, out)
		}
	}
	setSource(first.sink + ".monitor")
	t.Cleanup(func() { setSource("vmic.monitor") })
	wav := micWAV(t, dictated)
	// The default config: no stream open while idle, the devices watched
	// without one (audio's watch.go).
	a, _ := launchApp(t, resilientConfig(t, "ctrl+shift+f9", "notifications: true\n"))
	a.waitStatus(t, "ready", 90*time.Second)
	dictate(t, a, "ctrl+shift+F9", func() { first.say(t, wav) })

	second := newMic(t)
	setSource(second.sink + ".monitor")
	first.unplug(t)
	note := notes.wait(t, "Microphone changed", 15*time.Second)
	if !strings.Contains(note, second.desc) {
		t.Errorf("notification %q does not name the new microphone %s", note, second.desc)
	}
	t.Logf("notified %q", note)
	t.Logf("tray: %q", a.waitStatus(t, second.desc, 5*time.Second))
	out, err := exec.Command("pactl", "list", "source-outputs").CombinedOutput()
	if err != nil {
		t.Fatalf("pactl list source-outputs: %v: %s", err, out)
	}
	if strings.Contains(string(out), fmt.Sprintf(`application.process.id = "%d"`, a.cmd.Process.Pid)) {
		t.Fatalf("the app holds a capture stream while idle:\n%s", out)
	}
	dictate(t, a, "ctrl+shift+F9", func() { second.say(t, wav) })
}

// logind's PrepareForSleep, on a bus of the test's own standing in for the
// system bus: on resume the app re-checks the hotkeys, the microphone and the
// engine (a worker that died during sleep is replaced before the next
// dictation), and the next dictation pastes.
func TestResumeFromSleepRechecks(t *testing.T) {
	desktopSession(t)
	bus := testenv.PrivateBus(t)
	wav := micWAV(t, dictated)
	a, _ := launchApp(t, resilientConfig(t, "ctrl+shift+f9", "audio:\n  pre_roll: true\n"), "DBUS_SYSTEM_BUS_ADDRESS="+bus) // a microphone held open to reopen
	a.waitStatus(t, "ready", 90*time.Second)
	logind := testenv.NewLogind(t, bus)

	logind.Sleep(t, true)
	old := a.workerPID(t)
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	logind.Sleep(t, false)
	waitFile(t, a.log, "resume checks done")
	waitWorkerChange(t, a, old)
	b, _ := os.ReadFile(a.log)
	for _, want := range []string{"resumed from sleep", "re-registering hotkeys", "microphone reopened", "engine checked"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the app log lacks %q after the resume", want)
		}
	}
	dictate(t, a, "ctrl+shift+F9", func() { say(t, wav) })
}
