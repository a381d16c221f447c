//go:build linux

package e2e

import (
	"bytes"
	binenc "encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/authenticode"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// The Windows build as a user gets it, under wine (make test-wine): the NSIS
// installer run silently into a fresh prefix, the installed whisperkey.exe
// dictating into a Win32 window (hotkey through the low-level keyboard hook,
// WASAPI capture from the test desktop's microphone, clipboard and SendInput
// paste), transcribing with its own CPU engine (engine\cpu\ct2engine.dll,
// cross-built by scripts/windows-engine.sh) or on a Linux `whisperkey serve`
// on loopback, and its CLI. docs/windows.md lists what wine cannot show and
// where it differs from Windows.

// winePrefix is a wine prefix made by scripts/wine-prefix.sh.
type winePrefix struct {
	dir string
	env []string
	// profile is %USERPROFILE% as a Linux path.
	profile string
}

func newWinePrefix(t *testing.T) *winePrefix {
	t.Helper()
	for _, tool := range []string{"wine", "wineserver", "x86_64-w64-mingw32-gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Require(t, tool, "bash scripts/wine-prefix.sh (wine) or make deps (mingw-w64)")
		}
	}
	w := &winePrefix{dir: filepath.Join(t.TempDir(), "prefix")}
	w.env = append(os.Environ(), "WINEPREFIX="+w.dir, "WINEDEBUG=-all",
		// No Mono/Gecko downloads; Start-menu entries stay in the prefix.
		"WINEDLLOVERRIDES=mscoree,mshtml,winemenubuilder.exe=")
	cmd := exec.Command("bash", filepath.Join(testenv.RepoRoot(t), "scripts", "wine-prefix.sh"), w.dir)
	cmd.Env = w.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/wine-prefix.sh: %v\n%s", err, out)
	}
	// Registered before TempDir's removal runs, so it runs first (LIFO).
	t.Cleanup(func() {
		k := exec.Command("wineserver", "-k")
		k.Env = w.env
		_ = k.Run()
	})
	w.profile = w.unixPath(t, strings.TrimSpace(w.run(t, "cmd.exe", "/c", "echo %USERPROFILE%").stdout))
	return w
}

// command is a wine command in the prefix.
func (w *winePrefix) command(exe string, args ...string) *exec.Cmd {
	cmd := exec.Command("wine", append([]string{exe}, args...)...)
	cmd.Env = w.env
	return cmd
}

// run runs a Windows program to its end (a minute at most).
func (w *winePrefix) run(t testing.TB, exe string, args ...string) result {
	t.Helper()
	return w.runFor(t, time.Minute, nil, exe, args...)
}

// runFor runs a Windows program to its end, limit at most, with env added
// to the prefix's environment.
func (w *winePrefix) runFor(t testing.TB, limit time.Duration, env []string, exe string, args ...string) result {
	t.Helper()
	cmd := w.command(exe, args...)
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("wine %s %v did not finish within %v:\n%s%s", exe, args, limit, out.String(), errb.String())
	}
	r := result{out.String(), errb.String(), exitStatus(t, err)}
	// A Windows program's own crash is an exit code; a Unix signal means
	// something killed wine's process itself (the OOM killer, wineserver
	// ending it, a crash wine could not turn into an exception): say which
	// signal, when, and how far the program got, for the failure message.
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.stderr += fmt.Sprintf("\n[test] wine's process %d (%s) was killed by signal %d (%v) after %v; %d lines on stdout; %s\n",
			cmd.Process.Pid, exe, ws.Signal(), ws.Signal(), time.Since(start).Round(time.Second),
			strings.Count(r.stdout, "\n"), memoryNote())
		r.stderr += kernelLines(cmd.Process.Pid)
	}
	return r
}

// kernelLines is what the kernel's log says of pid (a segfault, an OOM
// kill), where this machine lets dmesg read it.
func kernelLines(pid int) string {
	out, err := exec.Command("dmesg").Output()
	if err != nil {
		return fmt.Sprintf("[test] no kernel log: dmesg: %v\n", err)
	}
	var b strings.Builder
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, fmt.Sprintf("[%d]", pid)) || strings.Contains(l, fmt.Sprintf("pid=%d,", pid)) || strings.Contains(l, fmt.Sprintf("process %d ", pid)) {
			b.WriteString("[kernel] " + l + "\n")
		}
	}
	if b.Len() == 0 {
		return fmt.Sprintf("[test] the kernel's log says nothing of pid %d (no segfault or OOM kill logged)\n", pid)
	}
	return b.String()
}

// memoryNote is the machine's memory now and whether the kernel's OOM
// killer has acted since boot, for a process that died of a signal.
func memoryNote() string {
	var note []string
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "MemAvailable:") || strings.HasPrefix(l, "MemTotal:") {
				note = append(note, strings.Join(strings.Fields(l), " "))
			}
		}
	}
	if b, err := os.ReadFile("/proc/vmstat"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "oom_kill ") {
				note = append(note, "oom_kill (since boot) "+strings.TrimPrefix(l, "oom_kill "))
			}
		}
	}
	return strings.Join(note, ", ")
}

// wait waits for every program in the prefix to end: NSIS installers and
// uninstallers hand their work to a copy of themselves and return at once.
func (w *winePrefix) wait(t testing.TB) {
	t.Helper()
	cmd := exec.Command("wineserver", "-w")
	cmd.Env = w.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("wine programs still running after 2 minutes")
	}
}

// unixPath maps C:\… into the prefix and Z:\… to /.
func (w *winePrefix) unixPath(t testing.TB, win string) string {
	t.Helper()
	if len(win) < 3 || win[1] != ':' || win[2] != '\\' {
		t.Fatalf("%q is not an absolute Windows path", win)
	}
	rest := filepath.FromSlash(strings.ReplaceAll(win[3:], `\`, "/"))
	switch strings.ToUpper(win[:1]) {
	case "C":
		return filepath.Join(w.dir, "drive_c", rest)
	case "Z":
		return "/" + rest
	}
	t.Fatalf("%q: no drive mapping", win)
	return ""
}

// winPath is a Linux path as wine's drive Z: shows it.
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// regValues reads a registry key's values with reg.exe ("" when the key is missing).
func (w *winePrefix) regValues(t testing.TB, key string) map[string]string {
	t.Helper()
	r := w.run(t, "reg.exe", "query", key)
	vals := map[string]string{}
	if r.code != 0 {
		return nil
	}
	re := regexp.MustCompile(`^\s{4}(\S.*?)\s{4}(REG_\w+)\s{4}(.*)$`)
	for _, line := range strings.Split(strings.ReplaceAll(r.stdout, "\r", ""), "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			vals[m[1]] = m[3]
		}
	}
	return vals
}

const (
	uninstKey = `HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\WhisperKey`
	runKey    = `HKCU\Software\Microsoft\Windows\CurrentVersion\Run`
	appKey    = `HKCU\Software\WhisperKey`
)

// install runs the installer silently (/S), into dir when given (/D=).
func (w *winePrefix) install(t testing.TB, setup, dir string) {
	t.Helper()
	line := winPath(setup) + " /S"
	if dir != "" {
		// NSIS reads /D= from the raw command line: last, unquoted, spaces
		// and all. wine quotes an argv element with a space, so cmd /c
		// passes the line as a user types it.
		line += " /D=" + dir
	}
	if r := w.run(t, "cmd.exe", "/c", line); r.code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", line, r.code, r.stdout, r.stderr)
	}
	w.wait(t)
}

// installed checks what a silent install left in dir (a Windows path).
func (w *winePrefix) installed(t *testing.T, dir string) {
	t.Helper()
	udir := w.unixPath(t, dir)
	for _, f := range []string{"whisperkey.exe", "uninstall.exe", "config.example.yaml",
		"docs/gpu-setup.md", "docs/configuration.md", "docs/installing-at-work.md", "engine/cpu", "vad/onnxruntime.dll", "vad/silero_vad_v6.onnx"} {
		if _, err := os.Stat(filepath.Join(udir, f)); err != nil {
			t.Errorf("installed files: %v", err)
		}
	}
	exe := dir + `\whisperkey.exe`
	if r := w.run(t, exe, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "whisperkey ") {
		t.Errorf("installed whisperkey.exe version: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	lnk := filepath.Join(w.profile, "AppData", "Roaming", "Microsoft", "Windows", "Start Menu", "Programs", "WhisperKey.lnk")
	target, err := shellLinkTarget(lnk)
	if err != nil {
		t.Errorf("Start-menu entry: %v", err)
	} else if !strings.EqualFold(target, exe) {
		t.Errorf("Start-menu entry points at %q, want %q", target, exe)
	}
	un := w.regValues(t, uninstKey)
	for name, want := range map[string]string{
		"DisplayName":          "WhisperKey",
		"InstallLocation":      dir,
		"UninstallString":      `"` + dir + `\uninstall.exe"`,
		"QuietUninstallString": `"` + dir + `\uninstall.exe" /S`,
		"DisplayIcon":          exe,
	} {
		if un[name] != want {
			t.Errorf("%s\\%s = %q, want %q", uninstKey, name, un[name], want)
		}
	}
	if got := w.regValues(t, runKey)["WhisperKey"]; got != `"`+exe+`"` {
		t.Errorf("start at sign-in (%s\\WhisperKey) = %q, want %q", runKey, got, `"`+exe+`"`)
	}
}

// shellLinkTarget reads the local target path of a .lnk file (MS-SHLLINK:
// header, optional item ID list, then LinkInfo with LocalBasePath).
func shellLinkTarget(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	le := binenc.LittleEndian
	if len(b) < 0x4c || le.Uint32(b) != 0x4c {
		return "", fmt.Errorf("%s is not a shell link", path)
	}
	flags := le.Uint32(b[0x14:])
	off := 0x4c
	if flags&0x1 != 0 { // HasLinkTargetIDList
		off += 2 + int(le.Uint16(b[off:]))
	}
	if flags&0x2 == 0 || off+28 > len(b) { // HasLinkInfo
		return "", fmt.Errorf("%s has no local target (flags %#x)", path, flags)
	}
	info := b[off:]
	base := int(le.Uint32(info[16:])) // LocalBasePathOffset
	if base >= len(info) {
		return "", fmt.Errorf("%s: LocalBasePath out of range", path)
	}
	end := bytes.IndexByte(info[base:], 0)
	if end < 0 {
		return "", fmt.Errorf("%s: LocalBasePath unterminated", path)
	}
	return string(info[base : base+end]), nil
}

// uninstall runs the installed uninstaller silently.
func (w *winePrefix) uninstall(t testing.TB, dir string, args ...string) {
	t.Helper()
	if r := w.run(t, dir+`\uninstall.exe`, append([]string{"/S"}, args...)...); r.code != 0 {
		t.Fatalf("uninstall.exe /S %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
	}
	w.wait(t)
}

// userData is the user's settings and a downloaded model: the uninstaller
// keeps them unless asked.
func (w *winePrefix) userData() []string {
	return []string{
		filepath.Join(w.profile, "AppData", "Roaming", "whisperkey", "config.yaml"),
		filepath.Join(w.profile, "AppData", "Local", "whisperkey", "models", "whisper-tiny", "model.bin"),
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// wineTools builds target.exe and cliptool.exe (scripts/wine-tools.sh).
func wineTools(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(testenv.RepoRoot(t), "scripts", "wine-tools.sh"), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/wine-tools.sh: %v\n%s", err, out)
	}
	return dir
}

func windowsSetup(t *testing.T) string {
	t.Helper()
	setups, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), windowsSetupGlb))
	if len(setups) != 1 {
		testenv.Require(t, "one "+windowsSetupGlb+fmt.Sprintf(" (found %d)", len(setups)), "make installer")
	}
	return setups[0]
}

// installedWine is where the dictation tests under wine start: the test
// desktop, a fresh prefix with the Windows build installed in dir, the
// prefix's tools, and a Linux serve on loopback for the words (the engine
// under wine is slow on a loaded machine).
func installedWine(t *testing.T) (w *winePrefix, tools, dir string, srv *servedBinary) {
	t.Helper()
	desktopSession(t)
	setup := windowsSetup(t)
	w = newWinePrefix(t)
	tools = wineTools(t)
	dir = `C:\Apps\WhisperKey`
	w.install(t, setup, dir)
	return w, tools, dir, startServe(t)
}

func TestWine(t *testing.T) {
	desktopSession(t)
	setup := windowsSetup(t)
	w := newWinePrefix(t)

	defaultDir := `C:\users\` + filepath.Base(w.profile) + `\AppData\Local\Programs\WhisperKey`
	t.Run("silent install to the default folder, then uninstall keeping the user's data", func(t *testing.T) {
		w.install(t, setup, "")
		w.installed(t, defaultDir)
		for _, p := range w.userData() {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			// A comment: valid as a config, so the commands after read it quietly.
			if err := os.WriteFile(p, []byte("# user data\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		w.uninstall(t, defaultDir)
		if d := w.unixPath(t, defaultDir); exists(d) {
			t.Errorf("%s still exists after uninstalling", d)
		}
		if lnk := filepath.Join(w.profile, "AppData", "Roaming", "Microsoft", "Windows", "Start Menu", "Programs", "WhisperKey.lnk"); exists(lnk) {
			t.Error("the Start-menu entry survived the uninstall")
		}
		if v := w.regValues(t, uninstKey); v != nil {
			t.Errorf("the Apps & features entry survived: %v", v)
		}
		if v := w.regValues(t, runKey)["WhisperKey"]; v != "" {
			t.Errorf("start at sign-in survived: %q", v)
		}
		for _, p := range w.userData() {
			if !exists(p) {
				t.Errorf("the uninstaller removed %s; it keeps settings and models unless asked", p)
			}
		}
	})

	dir := `C:\Apps\Whisper Key`
	exe := dir + `\whisperkey.exe`
	t.Run("silent install with /D to a folder with a space", func(t *testing.T) {
		w.install(t, setup, dir)
		w.installed(t, dir)
		if got := w.regValues(t, appKey)["InstallDir"]; got != dir {
			t.Errorf("%s\\InstallDir = %q, want %q", appKey, got, dir)
		}
	})
	// The signing step (scripts/sign.sh) reached the installed files: each is
	// signed as the installer is (make test signs with a throwaway certificate,
	// a developer's make installer signs nothing), and doctor says so. Wine's
	// WinVerifyTrust accepts a self-signed certificate that Windows would not,
	// so the test checks who signed, not Windows' trust.
	t.Run("signature", func(t *testing.T) {
		want := signerOf(t, setup)
		udir := w.unixPath(t, dir)
		for _, f := range []string{"whisperkey.exe", "uninstall.exe", "engine/cpu/ct2engine.dll"} {
			if got := signerOf(t, filepath.Join(udir, f)); got != want {
				t.Errorf("installed %s is signed by %q, the installer by %q", f, got, want)
			}
		}
		// The other case on a copy: unsigned when the installer is signed,
		// signed with a throwaway certificate when it is not.
		other := filepath.Join(udir, "whisperkey-other.exe")
		otherSigner := flipSignature(t, filepath.Join(udir, "whisperkey.exe"), other, want != "")
		// The uninstaller removes only its own files, then the folder if empty.
		defer os.Remove(other)
		for exe, signer := range map[string]string{exe: want, dir + `\whisperkey-other.exe`: otherSigner} {
			// No model: doctor reports without loading the engine.
			r := w.runFor(t, 2*time.Minute, nil, exe, "doctor", "--model", `Z:
o-such-model`)
			line := regexp.MustCompile(`(?m)^Signature: .*$`).FindString(r.stdout)
			t.Logf("%s doctor: %s", exe, line)
			wantLine := "Signature: ✘ not signed"
			if signer != "" {
				wantLine = " signed by " + signer + " ("
			}
			if !strings.Contains(line, wantLine) {
				t.Errorf("%s doctor says %q, want %q…\n%s%s", exe, line, wantLine, r.stdout, r.stderr)
			}
		}
		// doctor --json carries the same, in the shape docs/doctor.schema.json gives.
		r := w.runFor(t, 2*time.Minute, nil, exe, "doctor", "--json", "--model", `Z:\no-such-model`)
		checkDoctorSchema(t, r.stdout, r.stderr)
		var rep struct{ Signature *authenticode.Status }
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Signature == nil ||
			rep.Signature.Signed != (want != "") || rep.Signature.Signer != want {
			t.Errorf("doctor --json signature = %+v (%v), want signed by %q", rep.Signature, err, want)
		}
	})

	if t.Failed() {
		return
	}

	srv := startServe(t)
	wav := micWAV(t, dictated)

	t.Run("doctor", func(t *testing.T) {
		// Loading the model and the self-test take a while on a loaded machine.
		r := w.runFor(t, 3*time.Minute, nil, exe, "doctor", "--model", winPath(testenv.Model(t, "base")))
		t.Logf("whisperkey.exe doctor (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
		out := r.stdout + r.stderr
		// The installer put the speech detector (onnxruntime.dll) and the CPU
		// engine beside the exe; doctor loads the engine and runs its self-test.
		for _, want := range []string{"on windows/amd64", "GPUs:", "Engine variants installed:", "✔ cpu", "Decision:",
			"Speech detector: ✔ ready: ", "Engine: cpu variant, cpu int8", "Self-test: ✔"} {
			if !strings.Contains(out, want) {
				t.Errorf("doctor output lacks %q", want)
			}
		}
		// Which kernels run is said plainly (a build without AVX is ~30x slower).
		if !regexp.MustCompile(`(?m)^  CPU kernels: (AVX512|AVX2|AVX|GENERIC)\r?$`).MatchString(out) {
			t.Error("doctor does not say which CPU kernels the engine uses")
		}
	})

	t.Run("models import of a zip, then transcribe --model NAME", func(t *testing.T) {
		zipped := filepath.Join(t.TempDir(), "office-base.zip")
		zipModel(t, testenv.Model(t, "base"), zipped)
		// A cache of its own: an import stays in its cache, and the user's
		// one must neither keep this run's nor refuse the next run's.
		env := []string{"WHISPERKEY_CACHE=" + winPath(t.TempDir())}
		r := w.runFor(t, 3*time.Minute, env, exe, "models", "import", winPath(zipped))
		if r.code != 0 || !strings.Contains(r.stdout, `\models\imported\office-base`) {
			t.Fatalf("models import: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		r = w.runFor(t, 3*time.Minute, env, exe, "transcribe", "--language", "en", "--model", "office-base", winPath(wav))
		if r.code != 0 {
			t.Fatalf("transcribe --model office-base: exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
		got := strings.TrimSpace(r.stdout)
		t.Logf("whisperkey.exe transcribe --model office-base: %q", got)
		if wer := whisper.WordErrorRate(dictated, got); wer > 0.15 {
			t.Errorf("printed %q (WER %.2f), want %q", got, wer, dictated)
		}
		if l := w.runFor(t, time.Minute, env, exe, "models", "list"); !strings.Contains(l.stdout, "office-base") {
			t.Errorf("models list does not show the import:\n%s", l.stdout)
		}
	})

	t.Run("transcribe --remote", func(t *testing.T) {
		r := w.run(t, exe, "transcribe", winPath(wav), "--remote", srv.url)
		if r.code != 0 {
			t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
		got := strings.TrimSpace(r.stdout)
		if wer := whisper.WordErrorRate(dictated, got); wer > 0.15 {
			t.Errorf("printed %q (WER %.2f), want %q", got, wer, dictated)
		}
		bad := w.run(t, exe, "transcribe", winPath(wav), "--remote", "http://127.0.0.1:1")
		if bad.code == 0 || strings.Count(strings.TrimSpace(bad.stderr), "\n") > 0 || !strings.Contains(bad.stderr, "127.0.0.1:1") {
			t.Errorf("unreachable --remote: exit %d, stderr %q; want a failure and one line naming the address", bad.code, bad.stderr)
		}
	})

	t.Run("uninstall /PURGE removes the user's data too", func(t *testing.T) {
		w.uninstall(t, dir, "/PURGE")
		if d := w.unixPath(t, dir); exists(d) {
			t.Errorf("%s still exists", d)
		}
		for _, p := range w.userData() {
			if exists(p) {
				t.Errorf("%s survived /PURGE", p)
			}
		}
	})
}

// signerOf is who signed the Windows program at path ("" when no one).
func signerOf(t *testing.T, path string) string {
	t.Helper()
	s, err := authenticode.Read(path)
	if errors.Is(err, authenticode.ErrUnsigned) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return s.Subject
}

// flipSignature writes to dst a copy of src without its signature (signed)
// or signed with a throwaway certificate (!signed), and returns the signer.
func flipSignature(t *testing.T, src, dst string, signed bool) string {
	t.Helper()
	if signed {
		testenv.Run(t, nil, "osslsigncode", "remove-signature", "-in", src, "-out", dst)
		return ""
	}
	testenv.SignedCopy(t, src, dst)
	return signerOf(t, dst)
}
