//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/whisperkey/whisperkey/internal/models/hubtest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/tray/traytest"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// desktopSession checks the real parts the end-to-end tests drive: an X
// display, a session D-Bus, PulseAudio with the null sink "vmic" as the
// default microphone and another as the default output, and the X tools. scripts/testenv.sh provides them.
func desktopSession(t testing.TB) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		testenv.Require(t, "an X display and a session D-Bus", "run the tests through scripts/testenv.sh (make test)")
	}
	if out, err := exec.Command("pactl", "get-default-source").Output(); err != nil || strings.TrimSpace(string(out)) != "vmic.monitor" {
		testenv.Require(t, "PulseAudio with the vmic null sink as default source", "run the tests through scripts/testenv.sh (make test)")
	}
	if out, err := exec.Command("pactl", "get-default-sink").Output(); err != nil || strings.TrimSpace(string(out)) == "vmic" {
		testenv.Require(t, "PulseAudio with a default sink other than the microphone, so the app's cues are not recorded", "run the tests through scripts/testenv.sh (make test)")
	}
	for _, tool := range []string{"xdotool", "wish", "xclip", "paplay", "espeak-ng"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Require(t, tool, "make deps")
		}
	}
}

// runningApp is the real whisperkey binary running as the tray app.
type runningApp struct {
	cmd  *exec.Cmd
	menu *traytest.Menu
	log  string
	// config is the app's config.yaml.
	config string
}

// startApp starts the app with a fresh config (extra YAML lines appended)
// and waits until its tray says it is ready.
func startApp(t testing.TB, extra string) *runningApp {
	t.Helper()
	cfg := "model: " + testenv.Model(t, "base") + "\nhotkeys:\n  record: ctrl+shift+f9\n  cancel: esc\n" + extra
	a, _ := launchApp(t, cfg, "WHISPERKEY_LOG_FORMAT=json") // the bench reads the records' fields
	a.waitStatus(t, "ready", 90*time.Second)
	return a
}

// launchApp starts `whisperkey run` with cfg as its config.yaml in a fresh
// home, env added to its environment, and waits until its tray appears. The
// channel receives the app's exit; the test's cleanup stops it.
func launchApp(t testing.TB, cfg string, env ...string) (*runningApp, <-chan error) {
	t.Helper()
	home := t.TempDir()
	cfgDir := filepath.Join(home, "config", "whisperkey")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), "run", "--verbose")
	cmd.Env = append(append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"),
		"WHISPERKEY_CACHE="+filepath.Join(home, "cache"),
		"WHISPERKEY_ENGINE_ROOT="+filepath.Dir(testenv.EngineDir(t)),
		// As installed: the speech detector beside the app (transcribe finds
		// it in the user cache, so both cut the audio alike).
		"WHISPERKEY_VAD_DIR="+testenv.VADDir(t),
	), env...)
	stderr, err := os.Create(filepath.Join(home, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	a := &runningApp{cmd: cmd, log: filepath.Join(home, "state", "whisperkey", "logs", "whisperkey.log"),
		config: filepath.Join(cfgDir, "config.yaml")}
	t.Cleanup(func() {
		testenv.Terminate(cmd, exited, 10*time.Second)
		if t.Failed() {
			b, _ := os.ReadFile(a.log)
			e, _ := os.ReadFile(stderr.Name())
			t.Logf("app log:\n%s\nstderr:\n%s", b, e)
		}
	})
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if a.menu, err = traytest.Wait(ctx, conn, cmd.Process.Pid); err != nil {
		t.Fatalf("tray did not appear: %v", err)
	}
	return a, exited
}

func (a *runningApp) waitStatus(t testing.TB, want string, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	var s string
	for time.Now().Before(deadline) {
		s, _ = a.menu.Status()
		if strings.Contains(s, want) {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("tray status %q never contained %q", s, want)
	return ""
}

// engineWorkers lists the app's engine workers: the main one, and the
// background one of early transcriptions when it runs.
func (a *runningApp) engineWorkers(t testing.TB) []int {
	t.Helper()
	pids, err := testenv.Children(a.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	var workers []int
	for _, pid := range pids {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if strings.Contains(string(cmdline), "engine-worker") {
			workers = append(workers, pid)
		}
	}
	return workers
}

// workerPID finds the app's main engine worker.
func (a *runningApp) workerPID(t testing.TB) int {
	t.Helper()
	app := testenv.ProcStat(strconv.Itoa(a.cmd.Process.Pid))
	if len(app) < 17 {
		t.Fatalf("no /proc entry for the app (pid %d)", a.cmd.Process.Pid)
	}
	for _, pid := range a.engineWorkers(t) {
		// The background worker of early transcriptions runs below the
		// app's niceness (field 19 of stat); the tests mean the main one.
		if f := testenv.ProcStat(strconv.Itoa(pid)); len(f) > 16 && f[16] == app[16] {
			return pid
		}
	}
	t.Fatal("no engine worker found")
	return 0
}

// target is a test window with a text field that has the keyboard focus: a
// Tk window (internal/output/testdata/target.tcl) on X11, or a native Wayland
// GTK window (wltarget.py). Its script answers each command line with one
// line.
type target struct {
	name string // in messages: "target", "the Wayland window"
	in   io.Writer
	out  *bufio.Scanner
}

// transcribeLatest is `transcribe` on the recording the app kept last in
// recordings, with the app's config: what a whole-recording decode says.
func (a *runningApp) transcribeLatest(t testing.TB, recordings string) string {
	t.Helper()
	recs, _ := filepath.Glob(filepath.Join(recordings, "*.wav"))
	slices.Sort(recs)
	if len(recs) == 0 {
		t.Fatal("the app kept no recording")
	}
	cmd := exec.Command(binary(t), "transcribe", "--config", a.config, recs[len(recs)-1])
	cmd.Env = append(os.Environ(), "WHISPERKEY_ENGINE_ROOT="+filepath.Dir(testenv.EngineDir(t)))
	r := runCmd(t, cmd)
	if r.code != 0 {
		t.Fatalf("transcribe: exit %d: %s", r.code, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// openTarget starts the target; args go to wish after the script, e.g.
// "-name", "wkterm" for that WM_CLASS.
func openTarget(t testing.TB, args ...string) *target {
	t.Helper()
	cmd := exec.Command("wish", append([]string{filepath.Join(testenv.RepoRoot(t), "internal", "output", "testdata", "target.tcl")}, args...)...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	tg := &target{name: "target", in: in, out: bufio.NewScanner(out)}
	if !tg.out.Scan() || !strings.HasPrefix(tg.out.Text(), "READY") {
		t.Fatalf("target did not start: %q", tg.out.Text())
	}
	// The script takes the keyboard focus itself (focus -force); xdotool
	// windowfocus on its frame would move X focus away from the text widget.
	return tg
}

func (tg *target) text(t testing.TB) string {
	t.Helper()
	fmt.Fprintln(tg.in, "dump")
	if !tg.out.Scan() {
		t.Fatal(tg.name + " closed")
	}
	b, err := hex.DecodeString(strings.TrimPrefix(tg.out.Text(), "GOT "))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// focus gives the target's text widget the keyboard focus.
func (tg *target) focus(t testing.TB) {
	t.Helper()
	tg.ask(t, "focus", "FOCUSED", "take the focus")
}

// clear empties the target's text.
func (tg *target) clear(t testing.TB) {
	t.Helper()
	tg.ask(t, "clear", "CLEARED", "clear")
}

// ask sends the script cmd and stops the test unless it answers want; doing
// says what the window was asked to do.
func (tg *target) ask(t testing.TB, cmd, want, doing string) {
	t.Helper()
	fmt.Fprintln(tg.in, cmd)
	if !tg.out.Scan() || tg.out.Text() != want {
		t.Fatalf("%s did not %s: %q", tg.name, doing, tg.out.Text())
	}
}

// waitText polls the target until it holds something, or limit passes.
func (tg *target) waitText(t testing.TB, limit time.Duration) string {
	t.Helper()
	return pollText(func() string { return tg.text(t) }, limit, 300*time.Millisecond)
}

// pollText polls read until it gives something, or limit passes; then,
// after settle (let a paste finish), it reads once more.
func pollText(read func() string, limit, settle time.Duration) string {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if read() != "" {
			time.Sleep(settle)
			return read()
		}
	}
	return ""
}

// setClipboard makes another application own the clipboard with text.
func setClipboard(t testing.TB, text string) {
	t.Helper()
	cmd := exec.Command("wish", filepath.Join(testenv.RepoRoot(t), "internal", "output", "testdata", "setclip.tcl"), hex.EncodeToString([]byte(text)))
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	if sc := bufio.NewScanner(out); !sc.Scan() || sc.Text() != "READY" {
		t.Fatal("clipboard owner did not start")
	}
}

func clipboardText(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("xclip", "-o", "-selection", "clipboard").Output()
	if err != nil {
		t.Fatalf("read clipboard: %v", err)
	}
	return string(out)
}

func xdo(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v: %v %s", args, err, out)
	}
}

// ptt runs `whisperkey ptt cmd`, as a desktop's key binding would.
func ptt(t testing.TB, cmd string) {
	t.Helper()
	if out, err := exec.Command(binary(t), "ptt", cmd).CombinedOutput(); err != nil {
		t.Fatalf("whisperkey ptt %s: %v %s", cmd, err, out)
	}
}

// say plays a sentence into the virtual microphone and waits until it ends.
func say(t testing.TB, wav string) {
	t.Helper()
	if out, err := exec.Command("paplay", "--latency-msec=1000", "-d", "vmic", wav).CombinedOutput(); err != nil {
		t.Fatalf("paplay: %v %s", err, out)
	}
}

const (
	dictated  = "The coffee machine on the second floor is broken again."
	clipFirst = "what the user had copied before ✓"
)

// holdAndSay holds the hotkey, speaks, and releases.
func holdAndSay(t testing.TB, wav string) {
	holdWhile(t, 300*time.Millisecond, func() { say(t, wav) })
}

// holdWhile holds the test hotkey while speak plays, with pause before and
// after it, as a person leaves around what they say.
func holdWhile(t testing.TB, pause time.Duration, speak func()) {
	holdKeysWhile(t, "ctrl+shift+F9", pause, speak)
}

// holdKeysWhile is holdWhile for any hotkey chord.
func holdKeysWhile(t testing.TB, chord string, pause time.Duration, speak func()) {
	xdo(t, "keydown", chord)
	time.Sleep(pause)
	speak()
	time.Sleep(pause)
	xdo(t, "keyup", chord)
}

// toggleAndSay dictates wav in toggle mode: a press of chord starts, a
// second stops. It speaks at once after the first press, as people do; with
// the wine rig's latency a longer pause gives about 1 s of digital silence
// before the sentence.
func toggleAndSay(t testing.TB, chord, wav string) {
	xdo(t, "keydown", chord)
	time.Sleep(150 * time.Millisecond)
	xdo(t, "keyup", chord)
	time.Sleep(50 * time.Millisecond)
	say(t, wav)
	time.Sleep(300 * time.Millisecond)
	xdo(t, "keydown", chord)
	time.Sleep(150 * time.Millisecond)
	xdo(t, "keyup", chord)
}

// micWAV is speech already at the virtual microphone's format (16 kHz mono),
// so PulseAudio does not resample it while the test machine is busy.
func micWAV(t testing.TB, text string, voice ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "mic.wav")
	if o, err := exec.Command("sox", speechWAV(t, text, voice...), "-r", "16000", "-c", "1", "-b", "16", out).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, o)
	}
	return out
}

// micSpeech is micWAV's file and how long its speech lasts.
func micSpeech(t testing.TB, text string) (string, time.Duration) {
	t.Helper()
	wav := micWAV(t, text)
	fi, err := os.Stat(wav)
	if err != nil {
		t.Fatal(err)
	}
	return wav, time.Duration(fi.Size()-44) * time.Second / 32000 // 16 kHz, 16-bit mono, a 44-byte header
}

func TestPushToTalk(t *testing.T) {
	desktopSession(t)
	notes := startNotificationServer(t)
	wav := micWAV(t, dictated)
	cases := []struct {
		name   string
		config string
		act    func(t *testing.T, a *runningApp)
		// wantPasted: the target receives the sentence; otherwise it stays empty.
		wantPasted bool
		// wantClip: the clipboard afterwards; "" means what it held before.
		wantClip string
		// wantNote: the summary of a notification the user must get.
		wantNote string
	}{
		{name: "hold, speak, release", wantPasted: true,
			act: func(t *testing.T, a *runningApp) { holdAndSay(t, wav) }},
		{name: "cancel key discards", act: func(t *testing.T, a *runningApp) {
			xdo(t, "keydown", "ctrl+shift+F9")
			time.Sleep(300 * time.Millisecond)
			say(t, wav)
			xdo(t, "key", "Escape")
			time.Sleep(300 * time.Millisecond)
			xdo(t, "keyup", "ctrl+shift+F9")
		}},
		{name: "toggle mode", config: "  mode: toggle\n", wantPasted: true, act: func(t *testing.T, a *runningApp) {
			toggleAndSay(t, "ctrl+shift+F9", wav)
		}},
		// The compositor's binding on Wayland; on X11 it must take the same path.
		{name: "ptt press and release from the command line", wantPasted: true, act: func(t *testing.T, a *runningApp) {
			ptt(t, "press")
			time.Sleep(300 * time.Millisecond)
			say(t, wav)
			time.Sleep(300 * time.Millisecond)
			ptt(t, "release")
		}},
		{name: "clipboard-only mode leaves the text on the clipboard", config: "paste: clipboard\n", wantClip: dictated,
			act: func(t *testing.T, a *runningApp) { holdAndSay(t, wav) }},
		{name: "0.1 s tap pastes nothing", act: func(t *testing.T, a *runningApp) {
			xdo(t, "keydown", "ctrl+shift+F9")
			time.Sleep(100 * time.Millisecond)
			xdo(t, "keyup", "ctrl+shift+F9")
			// Dropped for the key's time down, whatever the pre-roll holds.
			a.waitStatus(t, "Too short", 5*time.Second)
		}},
		// The release's own transcription, long enough to be caught running:
		// no early text, and the full window.
		{name: "engine worker killed during transcription", config: "decoding:\n  early: false\n  short_window: false\n",
			wantPasted: true, wantNote: "Engine restarted", act: func(t *testing.T, a *runningApp) {
				holdAndSay(t, wav)
				a.waitStatus(t, "Transcribing", 5*time.Second)
				if err := syscall.Kill(a.workerPID(t), syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := startApp(t, tc.config)
			setClipboard(t, clipFirst)
			tg := openTarget(t)
			tc.act(t, a)
			limit := 30 * time.Second
			if !tc.wantPasted {
				limit = 8 * time.Second // a transcription here takes about 1 s
			}
			got := tg.waitText(t, limit)
			if tc.wantPasted {
				if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
					t.Fatalf("target got %q (WER %.2f), want %q", got, wer, dictated)
				}
				t.Logf("pasted %q", got)
			} else if got != "" {
				t.Fatalf("target got %q, want nothing", got)
			}
			if tc.wantNote != "" {
				t.Logf("notified %q", notes.wait(t, tc.wantNote, 5*time.Second))
			}
			time.Sleep(time.Second) // the app restores the clipboard after its delay
			clip := clipboardText(t)
			switch {
			case tc.wantClip == "" && clip != clipFirst:
				t.Fatalf("clipboard holds %q, want what it held before: %q", clip, clipFirst)
			case tc.wantClip != "" && whisper.WordErrorRate(tc.wantClip, clip) > 0.15:
				t.Fatalf("clipboard holds %q, want the dictation %q", clip, tc.wantClip)
			}
		})
	}
}

// submenu reads the tray's menu and returns its node at path ("Model"), or
// stops the test.
func (a *runningApp) submenu(t testing.TB, path ...string) traytest.Node {
	t.Helper()
	root, err := a.menu.Layout()
	if err != nil {
		t.Fatal(err)
	}
	n, err := root.Find(path...)
	if err != nil {
		t.Fatalf("no %s menu: %v (menu %v)", strings.Join(path, " › "), err, root.Labels())
	}
	return n
}

// The tray is the user's whole interface: its menu is read and clicked over
// D-Bus (StatusNotifierItem + dbusmenu), and each choice must reach both the
// config file and the running engine.
func TestTrayMenuDrivesConfigAndEngine(t *testing.T) {
	desktopSession(t)
	hub := hubtest.New(map[string]string{"Systran/faster-whisper-tiny.en": testenv.Model(t, "tiny.en")})
	defer hub.Close()
	t.Setenv("HF_ENDPOINT", hub.URL)
	a := startApp(t, "")
	cfgPath := a.config

	// A second launch says the first is running, and leaves it alone.
	second := exec.Command(binary(t), "run")
	second.Env = a.cmd.Env
	out, err := second.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "already running") {
		t.Errorf("second launch: err %v, output %q; want a clear 'already running'", err, out)
	}

	root, err := a.menu.Layout()
	if err != nil {
		t.Fatal(err)
	}
	labels := strings.Join(root.Labels(), " | ")
	for _, want := range []string{"Model", "Device", "Compute type", "Language", "Input device", "Paste mode",
		"Open config file", "GPU setup guide", "Open log", "Quit"} {
		if !strings.Contains(labels, want) {
			t.Errorf("menu lacks %q: %s", want, labels)
		}
	}
	status, _ := a.menu.Status()
	if !gpuMessageMatches(t, status) {
		t.Errorf("status %q does not say why the GPU is not used", status)
	}
	dev, err := root.Find("Device")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("status %q; devices %v", status, dev.Labels())

	worker := a.workerPID(t)
	if err := a.menu.Click("Device", "CPU"); err != nil {
		t.Fatal(err)
	}
	waitFile(t, cfgPath, "device: cpu")
	waitWorkerChange(t, a, worker)
	a.waitStatus(t, "ready", 60*time.Second)

	worker = a.workerPID(t)
	if err := a.menu.Click("Model", "tiny.en"); err != nil {
		t.Fatal(err)
	}
	waitFile(t, cfgPath, "model: tiny.en")
	waitWorkerChange(t, a, worker)
	status = a.waitStatus(t, "model tiny.en", 120*time.Second)
	t.Logf("after switching: %q", status)
	root, _ = a.menu.Layout()
	models, _ := root.Find("Model")
	for _, n := range models.Shown() {
		if strings.HasPrefix(n.Label, "tiny.en") && !n.Checked {
			t.Errorf("tiny.en is not checked in the Model menu after the switch")
		}
	}

	// Editing the file by hand takes effect without a restart.
	worker = a.workerPID(t)
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "model: tiny.en", "model: "+testenv.Model(t, "base"), 1)
	if err := os.WriteFile(cfgPath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	waitWorkerChange(t, a, worker)
	a.waitStatus(t, "model whisper-base", 60*time.Second)

	// A broken file is reported, and the app keeps running on the last good config.
	worker = a.workerPID(t)
	if err := os.WriteFile(cfgPath, []byte(edited+"device: [cpu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status = a.waitStatus(t, "config.yaml", 30*time.Second)
	t.Logf("corrupt config: %q", status)
	if pid := a.workerPID(t); pid != worker {
		t.Errorf("a corrupt config restarted the engine (%d → %d)", worker, pid)
	}
	if err := os.WriteFile(cfgPath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	a.waitStatus(t, "ready", 30*time.Second)
}

func waitFile(t testing.TB, path, want string) {
	t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(path); strings.Contains(string(b), want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(path)
	t.Fatalf("%s never contained %q:\n%s", path, want, b)
}

func waitWorkerChange(t testing.TB, a *runningApp, old int) {
	t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(old, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("engine worker %d was not replaced", old)
}
