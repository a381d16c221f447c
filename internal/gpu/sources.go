package gpu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// runCommand runs a probe tool and returns its stdout; a failure carries the
// tool's own first line of complaint (Detect adds the tool's name).
func runCommand(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, lookPath(name), args...)
	cmd.WaitDelay = 2 * time.Second
	hideWindow(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(string(out)) // nvidia-smi complains on stdout
		}
		if first, _, _ := strings.Cut(msg, "\n"); first != "" && !errors.Is(err, exec.ErrNotFound) {
			return out, fmt.Errorf("%w: %s", err, first)
		}
		return out, err
	}
	return out, nil
}

// lookPath finds a tool on PATH or in the places its installer puts it.
func lookPath(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, p := range toolDirs(name) {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return name
}

// pathDirs splits a PATH-like variable.
func pathDirs(v string) []string {
	var ds []string
	for _, d := range filepath.SplitList(v) {
		if d != "" {
			ds = append(ds, d)
		}
	}
	return ds
}
