//go:build linux

package e2e

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/cleanup"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Dictation with the installed whisperkey.exe under wine: the default
// ctrl+win hotkey through the low-level keyboard hook, WASAPI capture from
// the test desktop's microphone (winepulse), the Windows clipboard kept with
// every format, and SendInput's ctrl+v into a Win32 edit control.
// Transcription runs on the installed CPU engine (engine\cpu\ct2engine.dll,
// no remote.url) or on a Linux `whisperkey serve` on loopback (remote.url).

// clipFormats dumps the Windows clipboard: one "NAME BYTES HEX" line per
// format. Registered formats are named, since wine may give a name a new
// number once no process holds it.
func clipFormats(t testing.TB, w *winePrefix, tools string) []string {
	t.Helper()
	lines, err := dumpClipboard(t, w, tools)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// dumpClipboard is cliptool.exe dump's lines without their index.
func dumpClipboard(t testing.TB, w *winePrefix, tools string) ([]string, error) {
	t.Helper()
	r := w.run(t, filepath.Join(tools, "cliptool.exe"), "dump")
	if r.code != 0 {
		return nil, fmt.Errorf("cliptool dump: exit %d %s", r.code, strings.TrimSpace(r.stderr))
	}
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(r.stdout, "\r", ""), "\n") {
		if _, rest, ok := strings.Cut(l, " "); ok {
			lines = append(lines, rest)
		}
	}
	return lines, nil
}

// setWineClipboard makes cliptool.exe own the clipboard with text in three
// formats and returns the dump. Under load wine's clipboard can be briefly
// held by another process (the app starting, wine's X11 clipboard sync), so a
// failed set or a dump without the formats is retried for a while, and each
// try's reason is logged; only a clipboard that stays unusable fails the test.
func setWineClipboard(t *testing.T, w *winePrefix, tools, text string) []string {
	t.Helper()
	want := []string{"#13 ", "HTML_Format ", "#8 "} // CF_UNICODETEXT, HTML, CF_DIB
	var why string
	for try, deadline := 1, time.Now().Add(20*time.Second); ; try++ {
		if r := w.run(t, filepath.Join(tools, "cliptool.exe"), "set", text); r.code != 0 {
			why = fmt.Sprintf("cliptool set: exit %d %s", r.code, strings.TrimSpace(r.stderr))
		} else if lines, err := dumpClipboard(t, w, tools); err != nil {
			why = err.Error()
		} else {
			why = ""
			for _, f := range want {
				if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, f) }) {
					why = fmt.Sprintf("the clipboard lacks %q after cliptool set: %v", f, lines)
					break
				}
			}
			if why == "" {
				return lines
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("could not set the wine clipboard in %d tries; the last: %s", try, why)
		}
		t.Logf("setting the wine clipboard, try %d: %s; trying again", try, why)
		time.Sleep(time.Second)
	}
}

// clipMarkers are the formats the app adds to what it restores, so that
// clipboard history and monitors do not record the restore as a new copy.
var clipMarkers = []string{"ExcludeClipboardContentFromMonitorProcessing", "CanIncludeInClipboardHistory", "CanUploadToCloudClipboard"}

// clipSummary is the dump to compare: every format with its bytes, in order,
// and the GDI-handle formats Windows makes from them (CF_BITMAP from CF_DIB)
// at the end: those are listed after whatever was set explicitly, and the
// app restores the memory formats explicitly, synthesised ones included.
func clipSummary(lines []string) string {
	var mem, handles []string
	for _, l := range lines {
		if strings.HasSuffix(l, " handle") {
			handles = append(handles, l)
		} else {
			mem = append(mem, l)
		}
	}
	sort.Strings(handles)
	return strings.Join(append(mem, handles...), "\n")
}

// utf16Hex decodes cliptool's hex dump of CF_UNICODETEXT.
func utf16Hex(t testing.TB, hx string) string {
	t.Helper()
	b, err := hex.DecodeString(hx)
	if err != nil {
		t.Fatal(err)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return strings.TrimRight(string(utf16.Decode(u)), "\x00")
}

func withoutMarkers(lines []string) []string {
	var out []string
	for _, l := range lines {
		marker := false
		for _, m := range clipMarkers {
			marker = marker || strings.HasPrefix(l, m+" ")
		}
		if !marker {
			out = append(out, l)
		}
	}
	return out
}

// wineTarget is target.exe: a window with an edit control that has the
// keyboard focus and writes its text to a file.
type wineTarget struct {
	out    string
	stdin  io.WriteCloser
	window string // its X window id
}

func openWineTarget(t *testing.T, w *winePrefix, tools string) *wineTarget {
	t.Helper()
	tg := &wineTarget{out: filepath.Join(t.TempDir(), "received.txt")}
	cmd := w.command(filepath.Join(tools, "target.exe"), winPath(tg.out))
	var err error
	if tg.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tg.stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for !exists(tg.out) {
		if time.Now().After(deadline) {
			t.Fatal("target.exe did not start within 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// There is no window manager on the test display, so nothing gives the
	// new window the X input focus, as a click would: xdotool does.
	// A search fails outright when a window it walks goes away meanwhile (X's
	// BadWindow): the last case's windows may still be closing. Try again.
	var ids []string
	for try := 1; len(ids) == 0; try++ {
		cmd := exec.Command("xdotool", "search", "--name", "WhisperKey test target")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		ids = strings.Fields(string(out))
		if len(ids) > 0 {
			break
		}
		if try == 50 {
			t.Fatalf("find the target window: %v %s", err, stderr.String())
		}
		if err != nil && stderr.Len() > 0 {
			t.Logf("find the target window, try %d: %v %s", try, err, strings.TrimSpace(stderr.String()))
		}
		time.Sleep(200 * time.Millisecond)
	}
	xdo(t, "windowfocus", "--sync", ids[0])
	tg.window = ids[0]
	return tg
}

func (tg *wineTarget) text(t testing.TB) string {
	t.Helper()
	return readText(t, tg.out)
}

// readText is the file at path as text, or stops the test.
func readText(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitText polls the target until it holds something, or limit passes.
func (tg *wineTarget) waitText(t testing.TB, limit time.Duration) string {
	t.Helper()
	return pollText(func() string { return tg.text(t) }, limit, 500*time.Millisecond)
}

// wineApp is the installed whisperkey.exe, started as the Start-menu entry starts it.
type wineApp struct {
	cmd *exec.Cmd
	log string
}

// readyLine is the status the tray shows once dictation works: idle, waiting
// for the hotkey (on Windows there is no tray to read over D-Bus; the log has it).
var readyLine = regexp.MustCompile(`(?m)msg=status .*\bstate=(?:idle|ready)\b`)

// startWineApp writes config.yaml and starts the app, waiting until it is ready.
func startWineApp(t *testing.T, w *winePrefix, exe, config string) *wineApp {
	t.Helper()
	cfgDir := filepath.Join(w.profile, "AppData", "Roaming", "whisperkey")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &wineApp{log: filepath.Join(w.profile, "AppData", "Local", "whisperkey", "logs", "whisperkey.log")}
	_ = os.Remove(a.log)
	a.cmd = w.command(exe)
	// Wine's output goes to a file, not a pipe: a process the app starts
	// inherits it (wine's explorer.exe /desktop, which stays for the
	// prefix), and Wait would wait for that one to close a pipe, long after
	// whisperkey.exe has quit.
	out, err := os.Create(filepath.Join(t.TempDir(), "wine-output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	a.cmd.Stdout, a.cmd.Stderr = out, out
	wineOutput := func() string { b, _ := os.ReadFile(out.Name()); return string(b) }
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = a.cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		// The tray app quits when its window gets WM_CLOSE; wine's taskkill sends it.
		w.run(t, "taskkill.exe", "/im", "whisperkey.exe")
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			// Seen once in about twenty quits under wine 8.0: the log had no
			// "tray window closed by the system" line, so the tray window never
			// got that WM_CLOSE. A second one is what an installer sends
			// too; say which case it was, and fail only if the app still runs.
			b, _ := os.ReadFile(a.log)
			t.Logf("whisperkey.exe still runs 15 s after taskkill (tray told: %v); sending WM_CLOSE again",
				bytes.Contains(b, []byte("tray window closed by the system")))
			w.run(t, "taskkill.exe", "/im", "whisperkey.exe")
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				_ = a.cmd.Process.Kill()
				<-done
				t.Error("whisperkey.exe did not quit after two WM_CLOSE (taskkill), 30 s")
			}
		}
		if t.Failed() {
			b, _ := os.ReadFile(a.log)
			t.Logf("app log:\n%s\nwine output:\n%s", b, wineOutput())
		}
	})
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(a.log)
		if readyLine.Match(b) {
			return a
		}
		select {
		case <-done:
			t.Fatalf("whisperkey.exe exited before it was ready:\n%s\n%s", b, wineOutput())
		case <-time.After(200 * time.Millisecond):
		}
	}
	t.Fatal("whisperkey.exe was not ready within 90 s")
	return nil
}

func (a *wineApp) logText(t testing.TB) string {
	t.Helper()
	return readText(t, a.log)
}

// pressKeys presses a chord as a hand does, down for a tenth of a second:
// xdotool's key holds it 12 ms, which no keyboard sends.
func pressKeys(t testing.TB, chord string) {
	t.Helper()
	xdo(t, "keydown", chord)
	time.Sleep(100 * time.Millisecond)
	xdo(t, "keyup", chord)
}

// The hotkey is the default ctrl+win: X's Super_L is VK_LWIN under wine.
func holdWinHotkey(t testing.TB, wav string) {
	holdKeysWhile(t, "ctrl+super", 300*time.Millisecond, func() { say(t, wav) })
}

// noiseWAV is a press without speech at the microphone's format: key clicks
// over pink noise, as when someone types with the hotkey held.
func noiseWAV(t testing.TB) string {
	t.Helper()
	clicks, noise := testenv.Clicks(2, 31), testenv.PinkNoise(2, 32)
	for i := range clicks {
		clicks[i] += noise[i]
	}
	p := filepath.Join(t.TempDir(), "noise.wav")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := audio.EncodeWAV(f, clicks, audio.SampleRate, 1, audio.PCM16); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWineDictation(t *testing.T) {
	w, tools, dir, srv := installedWine(t)
	exe := dir + `\whisperkey.exe`
	wav, noise := micWAV(t, dictated), noiseWAV(t)
	instruction := micWAV(t, "Make this more formal.")
	chatURL := testenv.ChatServer(t)
	// The local engine's model: the cached base, as a folder (no download);
	// one thread, since wine's thread synchronisation makes two slower on a
	// loaded machine (docs/benchmarks.md).
	localModel := "model: " + winPath(testenv.Model(t, "base")) + "\ncpu_threads: 1\n"
	served := func() int { return strings.Count(srv.stderr.String(), "path=/v1/audio/transcriptions") }
	var app *wineApp // the case's app, for acts that read its log
	// comeBack posts what Windows sends when the session returns, and waits
	// until the app has re-armed its hook and checked the microphone and the
	// engine (a short transcription: seconds under wine on a loaded machine).
	comeBack := func(t *testing.T, what, reason string) {
		t.Helper()
		before := strings.Count(app.logText(t), "resume checks done")
		if r := w.run(t, filepath.Join(tools, "sessionmsg.exe"), what); r.code != 0 {
			t.Fatalf("sessionmsg %s: exit %d %s%s", what, r.code, r.stdout, r.stderr)
		}
		deadline := time.Now().Add(45 * time.Second)
		for {
			log := app.logText(t)
			if regexp.MustCompile(`msg="keyboard hook reinstalled" .*reason="`+reason+`"`).MatchString(log) &&
				strings.Count(log, "resume checks done") > before {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no hook re-arm and resume checks within 45 s of %s:\n%s", what, log)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	cases := []struct {
		name       string
		config     string
		act        func(t *testing.T)
		wantPasted bool
		// noSpeech: the installed speech detector (vad\onnxruntime.dll) ends
		// the press as "Nothing heard" without a request to the server.
		noSpeech bool
		// wantOnClipboard: clipboard mode leaves the sentence on the clipboard
		// as an ordinary copy, and pastes nothing.
		wantOnClipboard bool
		// local: no remote.url; the installed engine transcribes and the
		// server gets nothing.
		local bool
		// then acts on the pasted dictation got, in tg, before the clipboard
		// is checked: a command on the last dictation.
		then func(t *testing.T, tg *wineTarget, got string)
		// edited: the case fills and selects tg's text, and the edit hotkey
		// rewrites it; check says whether the window holds what it should.
		edited func(t *testing.T, a *wineApp, tg *wineTarget)
	}{
		{name: "hold ctrl+win, speak, release", wantPasted: true, act: func(t *testing.T) { holdWinHotkey(t, wav) }},
		{name: "local engine, no server: hold ctrl+win, speak, release", local: true, wantPasted: true,
			act: func(t *testing.T) { holdWinHotkey(t, wav) }},
		{name: "after resume from sleep and unlock", wantPasted: true, act: func(t *testing.T) {
			comeBack(t, "resume", "resumed from sleep")
			comeBack(t, "unlock", "session unlocked")
			holdWinHotkey(t, wav)
		}},
		{name: "cancel key discards", act: func(t *testing.T) {
			xdo(t, "keydown", "ctrl+super")
			time.Sleep(300 * time.Millisecond)
			say(t, wav)
			xdo(t, "key", "Escape")
			time.Sleep(300 * time.Millisecond)
			xdo(t, "keyup", "ctrl+super")
		}},
		{name: "toggle mode", config: "  mode: toggle\n", wantPasted: true, act: func(t *testing.T) {
			toggleAndSay(t, "ctrl+super", wav)
		}},
		{name: "a press without speech asks the server nothing", noSpeech: true,
			act: func(t *testing.T) { holdWinHotkey(t, noise) }},
		{name: "clipboard mode leaves the text on the clipboard", config: "paste: clipboard\n", wantOnClipboard: true,
			act: func(t *testing.T) { holdWinHotkey(t, wav) }},
		// Ctrl+Alt+F-keys would not do: X's keymap makes them VT switches.
		// Undo selects back over the dictation with SendInput (Shift+Left),
		// copies it to check it through the Windows clipboard, and deletes it.
		{name: "undo hotkey takes the dictation back out", config: "  undo: ctrl+shift+f11\n", wantPasted: true,
			act: func(t *testing.T) { holdWinHotkey(t, wav) },
			then: func(t *testing.T, tg *wineTarget, _ string) {
				pressKeys(t, "ctrl+shift+F11")
				if !waitFor(func() bool { return tg.text(t) == "" }, 20*time.Second) {
					t.Fatalf("after the undo hotkey the window holds %q, want it empty", tg.text(t))
				}
			}},
		// The selection is copied, sent to the real chat server and replaced,
		// all through the Windows clipboard and SendInput.
		{name: "rewrite the selection by voice", config: "  edit: ctrl+shift+f8\ncleanup:\n  url: " + chatURL +
			"\n  model: " + testenv.ChatModelName + "\nedit:\n  timeout: 60s\nvocabulary: [formal]\n",
			act: func(t *testing.T) {},
			edited: func(t *testing.T, a *wineApp, tg *wineTarget) {
				const original = "hey guys the meeting is moved to tuesday, bring the slides"
				xdo(t, "type", "--delay", "20", original)
				if !waitFor(func() bool { return tg.text(t) == original }, 20*time.Second) {
					t.Fatalf("typing gave %q, want %q", tg.text(t), original)
				}
				xdo(t, "key", "shift+Home") // wine's edit control has no Ctrl+A
				xdo(t, "keydown", "ctrl+shift+F8")
				time.Sleep(300 * time.Millisecond)
				say(t, instruction)
				time.Sleep(300 * time.Millisecond)
				xdo(t, "keyup", "ctrl+shift+F8")
				deadline := time.Now().Add(90 * time.Second)
				for !strings.Contains(a.logText(t), `msg="selection rewritten"`) {
					if log := a.logText(t); time.Now().After(deadline) || strings.Contains(log, `msg="selection not rewritten"`) {
						t.Fatalf("no rewrite; the window holds %q; app log:\n%s", tg.text(t), log)
					}
					time.Sleep(200 * time.Millisecond)
				}
				got := tg.text(t)
				t.Logf("%q → %q", original, got)
				if _, err := cleanup.CheckEdit(original, "make this more formal", got); err != nil || strings.Contains(got, original) {
					t.Fatalf("the window holds %q, not a rewrite in place of %q (%v)", got, original, err)
				}
			}},
		{name: "paste again into a second window", config: "  paste_again: ctrl+shift+f10\n", wantPasted: true,
			act: func(t *testing.T) { holdWinHotkey(t, wav) },
			then: func(t *testing.T, _ *wineTarget, got string) {
				second := openWineTarget(t, w, tools)
				pressKeys(t, "ctrl+shift+F10")
				if again := second.waitText(t, 20*time.Second); again != got {
					t.Fatalf("paste again put %q into the second window, want the dictation %q", again, got)
				}
			}},
	}
	for _, tc := range cases {
		t.Run("dictation: "+tc.name, func(t *testing.T) {
			where := "remote:\n  url: " + srv.url + "\n"
			if tc.local {
				where = localModel
			}
			a := startWineApp(t, w, exe, where+"hotkeys:\n  record: ctrl+win\n  cancel: esc\n"+tc.config)
			app = a
			before := setWineClipboard(t, w, tools, clipFirst)
			tg := openWineTarget(t, w, tools)
			requests := served()
			tc.act(t)
			if tc.edited != nil {
				tc.edited(t, a, tg)
				time.Sleep(time.Second) // the app restores the clipboard after its delay
				if was, is := clipSummary(before), clipSummary(withoutMarkers(clipFormats(t, w, tools))); was != is {
					t.Errorf("the clipboard changed:\nbefore:\n%s\nafter (history markers left out):\n%s", was, is)
				}
				return
			}
			if tc.wantOnClipboard {
				deadline := time.Now().Add(30 * time.Second)
				for !strings.Contains(a.logText(t), `msg="dictation done"`) && time.Now().Before(deadline) {
					time.Sleep(200 * time.Millisecond)
				}
				if got := tg.text(t); got != "" {
					t.Errorf("clipboard mode pasted %q", got)
				}
				after := clipFormats(t, w, tools)
				var text string
				for _, l := range after {
					if hx, ok := strings.CutPrefix(l, "#13 "); ok {
						text = utf16Hex(t, hx[strings.IndexByte(hx, ' ')+1:])
					}
				}
				if wer := whisper.WordErrorRate(dictated, text); wer > 0.15 {
					t.Fatalf("the clipboard holds %q (WER %.2f), want %q; formats:\n%s", text, wer, dictated, strings.Join(after, "\n"))
				}
				if len(withoutMarkers(after)) != len(after) {
					t.Errorf("clipboard mode's text is marked to stay out of clipboard history:\n%s", strings.Join(after, "\n"))
				}
				return
			}
			limit := 30 * time.Second
			if !tc.wantPasted {
				limit = 8 * time.Second
			}
			got := tg.waitText(t, limit)
			if tc.wantPasted {
				if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
					t.Fatalf("target got %q (WER %.2f), want %q", got, wer, dictated)
				}
				t.Logf("pasted %q", got)
				if tc.then != nil {
					tc.then(t, tg, got)
				}
			} else if got != "" {
				t.Fatalf("target got %q, want nothing", got)
			}
			time.Sleep(time.Second) // the app restores the clipboard after its delay
			after := clipFormats(t, w, tools)
			if was, is := clipSummary(before), clipSummary(withoutMarkers(after)); was != is {
				t.Errorf("the clipboard changed:\nbefore:\n%s\nafter (history markers left out):\n%s", was, is)
			}
			log := a.logText(t)
			if !regexp.MustCompile(`msg="microphone open" .*backend=WASAPI`).MatchString(log) {
				t.Errorf("the log does not name the WASAPI microphone:\n%s", log)
			}
			if !strings.Contains(log, `msg="speech detector ready"`) {
				t.Errorf("the installed app did not load its speech detector:\n%s", log)
			}
			if tc.noSpeech {
				if !regexp.MustCompile(`msg=status .*Nothing heard`).MatchString(log) {
					t.Errorf("the log does not say \"Nothing heard\":\n%s", log)
				}
				if n := served() - requests; n != 0 {
					t.Errorf("the server got %d requests for a press without speech, want 0", n)
				}
				return
			}
			// Nothing pasted must be the cancel key's doing: the hotkey started a
			// recording, and it was cancelled, not transcribed.
			if !tc.wantPasted {
				if !regexp.MustCompile(`msg=status .*\bstate=recording\b`).MatchString(log) ||
					!regexp.MustCompile(`(?i)msg=status .*cancel`).MatchString(log) || strings.Contains(log, `msg="dictation done"`) {
					t.Errorf("the log does not show a recording started and cancelled:\n%s", log)
				}
			}
			if tc.local {
				if n := served() - requests; n != 0 {
					t.Errorf("the server got %d requests with no remote.url, want 0", n)
				}
				if !regexp.MustCompile(`msg="engine worker ready" .*model=`).MatchString(log) {
					t.Errorf("the log does not show the local engine loaded:\n%s", log)
				}
			}
			if strings.Contains(log, dictated) || (got != "" && strings.Contains(log, got)) {
				t.Error("the log holds the dictated text")
			}
		})
	}

}
