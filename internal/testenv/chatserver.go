package testenv

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// ChatModelName is the model scripts/llm.sh installs: SmolLM2-135M-Instruct,
// the smallest instruction-tuned GGUF model found shipped in a registry package.
const ChatModelName = "SmolLM2-135M-Instruct"

// ChatServer starts scripts/chat_server.py (llama.cpp's server code, from the
// xllamacpp wheel scripts/llm.sh installs) with the real small instruction
// model on a free loopback port, waits until it answers, and returns its base
// URL. It stops with the test.
func ChatServer(t testing.TB) string {
	t.Helper()
	Short(t, "the chat server")
	dir := filepath.Join(Cache(), "llm")
	if _, err := os.Stat(filepath.Join(dir, ".complete-2")); err != nil {
		Require(t, "the chat server and model in "+dir, "bash scripts/llm.sh")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	// One thread: the machine is shared with other tests, and llama.cpp's
	// spin-waiting threads slow down many times when they outnumber free cores.
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "venv", "bin", "python"),
		filepath.Join(RepoRoot(t), "scripts", "chat_server.py"), "--model", filepath.Join(dir, "model.gguf"),
		"--port", strconv.Itoa(port), "--threads", "1", "--alias", ChatModelName)
	logPath := filepath.Join(t.TempDir(), "chat-server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start the chat server: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = logFile.Close()
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			out, _ := os.ReadFile(logPath)
			t.Fatalf("the chat server exited: %v\n%s", err, tail(out, 3000))
		case <-time.After(200 * time.Millisecond):
		}
		resp, err := http.Get(base + "/health")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
	}
	out, _ := os.ReadFile(logPath)
	t.Fatalf("the chat server did not become ready in 2 minutes:\n%s", tail(out, 3000))
	return ""
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
