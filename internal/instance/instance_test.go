package instance

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/tabletest"
)

// childEnv makes the test binary act as a second process that tries the guard
// named by the variable's value and prints what happened.
const childEnv = "WHISPERKEY_INSTANCE_TEST_CHILD"

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		release, err := Acquire(name)
		switch {
		case errors.Is(err, ErrAlreadyRunning):
			fmt.Println("already-running")
		case err != nil:
			fmt.Println("error:", err)
		default:
			release()
			fmt.Println("acquired")
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// tryInOtherProcess runs Acquire(name) in a fresh copy of the test binary.
func tryInOtherProcess(t *testing.T, name string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+name)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

func uniqueName(t *testing.T) string {
	return fmt.Sprintf("test-%s-%d-%d", t.Name(), os.Getpid(), time.Now().UnixNano())
}

func TestSecondProcessIsRefused(t *testing.T) {
	name := uniqueName(t)
	release, err := Acquire(name)
	if err != nil {
		t.Fatalf("first Acquire: %v", err)
	}
	if got := tryInOtherProcess(t, name); got != "already-running" {
		t.Fatalf("second process while held: got %q, want already-running", got)
	}
	if got := tryInOtherProcess(t, name+"-other"); got != "acquired" {
		t.Fatalf("another name while held: got %q, want acquired", got)
	}
	release()
	release() // idempotent
	if got := tryInOtherProcess(t, name); got != "acquired" {
		t.Fatalf("second process after release: got %q, want acquired", got)
	}
	again, err := Acquire(name)
	if err != nil {
		t.Fatalf("Acquire after release: %v", err)
	}
	again()
}

func TestMutexName(t *testing.T) {
	tabletest.Check(t, "mutexName", mutexName, []tabletest.Case[string, string]{
		{Name: "plain", In: "app", Want: `Local\WhisperKey-app`},
		{Name: "empty", In: "", Want: `Local\WhisperKey-default`},
		{Name: "backslash cannot open a namespace", In: `Global\x`, Want: `Local\WhisperKey-Global_x`},
		{Name: "spaces and unicode", In: "my app ü", Want: `Local\WhisperKey-my_app__`},
		{Name: "dots dashes underscores kept", In: "a.b-c_d", Want: `Local\WhisperKey-a.b-c_d`},
	})
}

func TestInstallerWaitsForTheAppsMutex(t *testing.T) {
	nsi, err := os.ReadFile("../../installer/whisperkey.nsi")
	if err != nil {
		t.Fatal(err)
	}
	want := `"` + mutexName(App) + `"`
	if !strings.Contains(string(nsi), "APP_MUTEX  "+want) {
		t.Errorf("installer/whisperkey.nsi does not define APP_MUTEX as %s, the tray app's mutex", want)
	}
}

func TestLockPath(t *testing.T) {
	if os.PathSeparator != '/' {
		t.Skip("the lock file is used on Unix-like systems only; its paths use /")
	}
	type args struct {
		in, runtime, temp string
		uid               int
	}
	tabletest.Check(t, "lockPath", func(a args) string {
		return lockPath(a.in, a.runtime, a.temp, a.uid)
	}, []tabletest.Case[args, string]{
		{Name: "runtime dir", In: args{in: "app", runtime: "/run/user/1000", temp: "/tmp", uid: 1000}, Want: "/run/user/1000/whisperkey-app.lock"},
		{Name: "no runtime dir", In: args{in: "app", temp: "/tmp", uid: 1000}, Want: "/tmp/whisperkey-1000-app.lock"},
		{Name: "relative runtime dir ignored", In: args{in: "app", runtime: "run", temp: "/tmp", uid: 7}, Want: "/tmp/whisperkey-7-app.lock"},
		{Name: "slash in name", In: args{in: "a/b", runtime: "/run/user/1", temp: "/tmp", uid: 1}, Want: "/run/user/1/whisperkey-a_b.lock"},
	})
}
