//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Dictation on a Wayland desktop, end to end: headless sway, a native
// Wayland GTK window with the focus, and sway's own key binding running
// `whisperkey ptt press` and, with --release, `ptt release` (no application
// may grab a key on Wayland). The sentence comes from the PulseAudio
// microphone; the text must arrive in the window through the Wayland
// clipboard and the paste keystroke, and the clipboard must hold what the
// user had copied again afterwards.
func TestWaylandPushToTalk(t *testing.T) {
	desktopSession(t)
	testenv.RequireWaylandTarget(t, true)
	bin := binary(t)
	pttLog := filepath.Join(t.TempDir(), "ptt.log")
	// The snippet docs/wayland.md gives sway users, with this build's path.
	sway := testenv.StartSway(t, fmt.Sprintf(
		"bindsym Ctrl+Shift+F9 exec %[1]s ptt press >>%[2]s 2>&1\n"+
			"bindsym --release Ctrl+Shift+F9 exec %[1]s ptt release >>%[2]s 2>&1\n", bin, pttLog))
	sway.Keyboard(t)
	env := sway.Env()
	// The app shares sway's runtime folder, as in a desktop session (the
	// binding's `ptt` finds the control socket there); the microphone stays
	// the test desktop's PulseAudio.
	appEnv := append(env, "PULSE_SERVER=unix:"+filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "pulse", "native"))

	tg := openWaylandWindow(t, env)

	// Before the app runs, the binding's `ptt` has no app to drive and no
	// terminal to say so on: it tells the desktop.
	notes := startNotificationServer(t)
	tap := exec.Command("wtype", "-M", "ctrl", "-M", "shift", "-k", "F9", "-m", "shift", "-m", "ctrl", "-s", "200")
	tap.Env = append(os.Environ(), env...)
	if out, err := tap.CombinedOutput(); err != nil {
		t.Fatalf("wtype: %v %s", err, out)
	}
	if n := notes.wait(t, "WhisperKey is not running", 10*time.Second); !strings.Contains(n, "whisperkey run") {
		t.Errorf("notification %q does not say how to start the app", n)
	}

	wav, speech := micSpeech(t, dictated)

	for _, tc := range []struct {
		name string
		env  []string
	}{
		{name: "XWayland beside"}, // DISPLAY is the test desktop's X server
		{name: "Wayland alone", env: []string{"DISPLAY="}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			caseEnv := append(slices.Clone(appEnv), tc.env...)
			wlCopy := exec.Command("wl-copy", clipFirst)
			wlCopy.Env = append(os.Environ(), env...)
			if err := wlCopy.Run(); err != nil { // no pipes: its server lives on
				t.Fatalf("wl-copy: %v", err)
			}
			tg.clear(t)

			cfg := "model: " + testenv.Model(t, "base") + "\nhotkeys:\n  record: ctrl+shift+f9\n"
			a, _ := launchApp(t, cfg, caseEnv...)
			status := a.waitStatus(t, "ready", 90*time.Second)
			if !strings.Contains(status, "Wayland: bind `whisperkey ptt`") {
				t.Errorf("tray status %q does not say how to dictate on Wayland", status)
			}

			// Hold Ctrl+Shift+F9 on a (virtual) keyboard of sway's seat while
			// the sentence plays, then let go: sway runs the bindings.
			hold := 400*time.Millisecond + speech + 500*time.Millisecond
			key := exec.Command("wtype", "-M", "ctrl", "-M", "shift", "-P", "F9", "-s", fmt.Sprint(hold.Milliseconds()),
				"-p", "F9", "-m", "shift", "-m", "ctrl", "-s", "200")
			key.Env = append(os.Environ(), env...)
			if err := key.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(400 * time.Millisecond)
			say(t, wav)
			// Still held: the indicator shows as a layer surface, its red dot
			// 48 px above the bottom centre of the 1280x800 output.
			dot := image.Rect(640-120+15, 800-48-36+15, 640-120+23, 800-48-36+21)
			if n, _ := testenv.PixelsOf(sway.Screenshot(t).SubImage(dot).(*image.RGBA), 0xe8453c); n != dot.Dx()*dot.Dy() {
				t.Errorf("while recording, %d of %d pixels of the indicator's dot are red on sway's screen", n, dot.Dx()*dot.Dy())
			}
			if err := key.Wait(); err != nil {
				t.Fatalf("wtype holding the key: %v", err)
			}

			got := pollText(func() string { return tg.text(t) }, 30*time.Second, 300*time.Millisecond)
			if b, _ := os.ReadFile(pttLog); len(b) > 0 {
				t.Logf("ptt output: %s", b)
			}
			if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
				t.Fatalf("the Wayland window got %q (WER %.2f), want %q", got, wer, dictated)
			}
			t.Logf("pasted %q", got)
			time.Sleep(time.Second) // the restore follows the paste by its delay
			paste := exec.Command("wl-paste", "--no-newline")
			paste.Env = append(os.Environ(), env...)
			clip, err := paste.Output()
			if err != nil || string(clip) != clipFirst {
				t.Fatalf("Wayland clipboard holds %q (%v), want what the user had copied: %q", clip, err, clipFirst)
			}

			// doctor in the same session lists it and the routes it takes.
			doc := exec.Command(bin, "doctor", "--json", "--model", testenv.Model(t, "base"))
			doc.Env = append(append(os.Environ(), "WHISPERKEY_ENGINE_ROOT="+filepath.Dir(testenv.EngineDir(t))), caseEnv...)
			r := runCmd(t, doc)
			var rep struct {
				Desktop struct {
					Type, Desktop string
					Routes        []struct {
						Name string
						Used bool
					}
				}
			}
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatalf("doctor --json: %v\n%s", err, r.stderr)
			}
			used := map[string]bool{}
			for _, rt := range rep.Desktop.Routes {
				used[rt.Name] = rt.Used
			}
			if rep.Desktop.Type != "wayland" || rep.Desktop.Desktop != "sway" || !used["ptt-command"] ||
				!used["wayland-clipboard"] || !used["virtual-keyboard"] || !used["layer-shell"] || used["x11-grab"] != (len(tc.env) == 0) {
				t.Errorf("doctor's desktop %+v: want wayland on sway with ptt-command, wayland-clipboard, virtual-keyboard and layer-shell used, and the X grab only beside XWayland", rep.Desktop)
			}
		})
	}
}

// openWaylandWindow starts internal/output/testdata/wltarget.py: a native
// Wayland GTK window that reports its text.
func openWaylandWindow(t testing.TB, env []string) *target {
	t.Helper()
	in, out := testenv.WaylandTarget(t, env)
	return &target{name: "the Wayland window", in: in, out: out}
}
