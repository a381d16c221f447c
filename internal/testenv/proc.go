package testenv

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// StartPiped starts cmd with pipes to its standard input and from its
// standard output, and its errors on the test's stderr; a command that cannot
// start fails t. Closing in is how the caller asks it to end; the caller
// waits for it.
func StartPiped(t testing.TB, cmd *exec.Cmd) (in io.WriteCloser, out io.ReadCloser) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err = cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return in, out
}

// ProcStat returns the fields of /proc/<pid>/stat after the command's
// closing parenthesis (the command may hold spaces), so f[0] is the state
// (field 3 of proc(5)) and field n is f[n-3]; nil once the process has
// ended. pid may also be "self" or "<pid>/task/<tid>".
func ProcStat(pid string) []string {
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return nil
	}
	return strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
}

// Children lists the pids of ppid's live (not zombie) children.
func Children(ppid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	parent := strconv.Itoa(ppid)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := ProcStat(e.Name()); len(f) > 1 && f[0] != "Z" && f[1] == parent {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// ProcStatus returns the number that starts field key ("VmRSS", in KiB;
// "Threads") of /proc/<pid>/status; pid may be "self".
func ProcStatus(pid, key string) (int, error) {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "status"))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				return strconv.Atoi(f[0])
			}
		}
	}
	return 0, fmt.Errorf("/proc/%s/status has no %s", pid, key)
}
