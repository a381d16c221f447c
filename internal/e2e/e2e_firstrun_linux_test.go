//go:build linux

package e2e

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/models/hubtest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// First run with no model and no network: the app keeps running, its tray
// says what is missing and how to fix it, and once the network is back the
// Model menu's retry item downloads the model and dictation is ready.
func TestFirstRunOffline(t *testing.T) {
	desktopSession(t)
	notes := startNotificationServer(t)
	hub := hubtest.New(map[string]string{"Systran/faster-whisper-tiny.en": testenv.Model(t, "tiny.en")})
	defer hub.Close()
	// The "network": nothing listens on this address until it comes back.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	cfg := "model: tiny.en\nhotkeys:\n  record: ctrl+shift+f9\n"
	a, exited := launchApp(t, cfg, "HF_ENDPOINT=http://"+addr)
	status := a.waitStatus(t, "download failed", 60*time.Second)
	t.Logf("offline status: %q", status)
	for _, want := range []string{"tiny.en", "retry download", "whisperkey models pull tiny.en",
		"whisperkey models import PATH", "models.mirror", "installing-at-work.md"} {
		if !strings.Contains(status, want) {
			t.Errorf("status %q does not say %q", status, want)
		}
	}
	if n := notes.wait(t, "WhisperKey has no speech model", 10*time.Second); !strings.Contains(n, "whisperkey models import PATH") {
		t.Errorf("the notification %q does not say how to import a model", n)
	}
	select {
	case err := <-exited:
		t.Fatalf("the app exited with no model and no network: %v", err)
	case <-time.After(2 * time.Second):
	}

	// The network comes back; the user picks the retry item.
	back, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s again: %v", addr, err)
	}
	target, _ := url.Parse(hub.URL)
	srv := &http.Server{Handler: httputil.NewSingleHostReverseProxy(target)}
	go func() { _ = srv.Serve(back) }()
	defer srv.Close()
	if err := a.menu.Click("Model", "tiny.en — retry download"); err != nil {
		t.Fatal(err)
	}
	// "· ready", as the failure text's "already" would match "ready".
	status = a.waitStatus(t, "· ready", 120*time.Second)
	if !strings.Contains(status, "model tiny.en") {
		t.Fatalf("after the retry: status %q, want tiny.en ready", status)
	}
	if n := notes.wait(t, "Model downloaded", 10*time.Second); !strings.Contains(n, "tiny.en") {
		t.Errorf("download notification %q does not name tiny.en", n)
	}
	models := a.submenu(t, "Model")
	for _, n := range models.Shown() {
		if n.Label == "tiny.en" && !n.Checked {
			t.Errorf("tiny.en is not checked after the download: %q", models.Labels())
		}
	}
}

// A model imported with `models import` is one of the tray's models: the
// app loads it by its name, and the Model menu shows it checked.
func TestImportedModelInTray(t *testing.T) {
	desktopSession(t)
	cache := t.TempDir()
	imp := exec.Command(binary(t), "models", "import", testenv.Model(t, "tiny.en"), "--name", "office-tiny")
	imp.Env = append(os.Environ(), "WHISPERKEY_CACHE="+cache)
	if r := runCmd(t, imp); r.code != 0 {
		t.Fatalf("models import: exit %d: %s", r.code, r.stderr)
	}
	a, _ := launchApp(t, "model: office-tiny\nhotkeys:\n  record: ctrl+shift+f9\n", "WHISPERKEY_CACHE="+cache)
	if status := a.waitStatus(t, "· ready", 120*time.Second); !strings.Contains(status, "model office-tiny") {
		t.Fatalf("status %q, want office-tiny ready", status)
	}
	models := a.submenu(t, "Model")
	var checked bool
	for _, n := range models.Shown() {
		checked = checked || n.Label == "office-tiny" && n.Checked
	}
	if !checked {
		t.Errorf("the Model menu does not show office-tiny checked: %q", models.Labels())
	}
}

// Presses never wait for the model: a dictation made while the first model
// is still downloading is recorded, the tray and the indicator say it waits
// for the model, and its text is pasted once the model is loaded. A press
// right after a model switch begins is transcribed too. The download is held
// by the test's model server until the recording is made.
func TestPressDuringModelLoad(t *testing.T) {
	desktopSession(t)
	hub := hubtest.New(map[string]string{"Systran/faster-whisper-base": testenv.Model(t, "base")})
	defer hub.Close()
	target, _ := url.Parse(hub.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/model.bin") {
			<-release // the model's weights arrive once the test says so
		}
		proxy.ServeHTTP(w, r)
	}))
	defer slow.Close()
	defer open() // before Close, which waits for the requests held here
	wav := micWAV(t, dictated)

	a, _ := launchApp(t, "model: base\nlanguage: en\nhotkeys:\n  record: ctrl+shift+f9\n", "HF_ENDPOINT="+slow.URL)
	a.waitStatus(t, "Downloading", 60*time.Second)
	tg := openTarget(t)
	holdAndSay(t, wav)
	status := a.waitStatus(t, "Waiting for the speech model", 20*time.Second)
	t.Logf("while the model downloads: %q", status)
	if got := tg.text(t); got != "" {
		t.Fatalf("the target got %q before the model was there", got)
	}
	open()
	got := tg.waitText(t, 120*time.Second)
	if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
		t.Fatalf("target got %q (WER %.2f), want %q", got, wer, dictated)
	}
	t.Logf("pasted after the load: %q", got)
	a.waitStatus(t, "· ready", 30*time.Second)

	// A switch to another model, and a press as soon as it starts.
	tg.clear(t)
	cfg, err := os.ReadFile(a.config)
	if err != nil {
		t.Fatal(err)
	}
	tiny := "model: " + testenv.Model(t, "tiny.en")
	if err := os.WriteFile(a.config, []byte(strings.Replace(string(cfg), "model: base", tiny, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	a.waitStatus(t, "Loading", 30*time.Second)
	holdAndSay(t, wav)
	got = tg.waitText(t, 60*time.Second)
	if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.25 {
		t.Fatalf("a press during the switch: target got %q (WER %.2f), want %q", got, wer, dictated)
	}
	t.Logf("pasted around the switch: %q", got)
}
