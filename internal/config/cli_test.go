package config

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunCLI(t *testing.T) {
	good := writeConfig(t, "model: small\nmodle: tiny\n")
	bad := writeConfig(t, "device: gpu\n")
	missing := good + ".missing"
	tests := []struct {
		name     string
		args     []string
		path     string
		env      map[string]string
		code     int
		stdout   []string // each must appear
		stderr   []string
		noStdout bool
	}{
		{name: "path", args: []string{"path"}, path: good, stdout: []string{good + "\n"}},
		{name: "validate ok", args: []string{"validate"}, path: writeConfig(t, "model: small\n"), stdout: []string{"ok\n"}},
		{name: "validate fails on an unknown key", args: []string{"validate"}, path: good, code: 1, noStdout: true,
			stderr: []string{`warning: ` + good + `:2: unknown key "modle" is ignored; did you mean "model"?`, "--allow-unknown"}},
		{name: "validate allows an unknown key with the flag", args: []string{"validate", "--allow-unknown"}, path: good,
			stdout: []string{"ok\n"}, stderr: []string{`warning: ` + good + `:2: unknown key "modle" is ignored; did you mean "model"?`}},
		{name: "an old name is not an unknown key", args: []string{"validate"}, path: writeConfig(t, "initial_prompt: Hi.\n"),
			stdout: []string{"ok\n"}, stderr: []string{`key "initial_prompt" is now called`}},
		{name: "the flag only belongs to validate", args: []string{"show", "--allow-unknown"}, path: good, code: 2, noStdout: true,
			stderr: []string{"usage: whisperkey config"}},
		{name: "validate without a file", args: []string{"validate"}, path: missing, stdout: []string{"ok (" + missing + " does not exist; the defaults apply)"}},
		{name: "validate invalid", args: []string{"validate"}, path: bad, code: 1, noStdout: true,
			stderr: []string{bad + `:1: key "device": "gpu" is not allowed (allowed: auto, cpu, cuda, rocm)`}},
		{name: "show", args: []string{"show"}, path: good, env: map[string]string{"WHISPERKEY_DEVICE": "cpu"},
			stdout: []string{"model: small\n", "device: cpu # from WHISPERKEY_DEVICE\n", "hotkeys:\n  record: ctrl+win\n", "  max_duration: 5m\n"}},
		{name: "show hides the remote key", args: []string{"show"}, path: writeConfig(t, "remote:\n  url: http://gpu-box:8765\n  api_key: sk-very-secret\n"),
			stdout: []string{"remote:\n  url: http://gpu-box:8765\n  api_key: (set, not shown)\n  model: whisper-1\n"}},
		{name: "show invalid", args: []string{"show"}, path: bad, code: 1, noStdout: true, stderr: []string{`"gpu" is not allowed`}},
		{name: "no command", path: good, code: 2, noStdout: true, stderr: []string{"usage: whisperkey config path|show|validate"}},
		{name: "unknown command", args: []string{"edit"}, path: good, code: 2, noStdout: true, stderr: []string{`unknown config command "edit"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			if code := RunCLI(tt.args, &stdout, &stderr, tt.path, Options{}); code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout %q lacks %q", stdout.String(), s)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr %q lacks %q", stderr.String(), s)
				}
			}
			if strings.Contains(stdout.String()+stderr.String(), "sk-very-secret") {
				t.Errorf("the API key was printed: %q", stdout.String())
			}
			if tt.noStdout && stdout.Len() > 0 {
				t.Errorf("unexpected stdout %q", stdout.String())
			}
		})
	}
}

// show prints a file that loads back to the same settings.
func TestShowRoundTrips(t *testing.T) {
	t.Setenv("WHISPERKEY_AUDIO_MIN_DURATION", "0.1")
	var stdout bytes.Buffer
	if code := RunCLI([]string{"show"}, &stdout, &bytes.Buffer{}, writeConfig(t, "language: de\n"), Options{}); code != 0 {
		t.Fatal("show failed")
	}
	want, _, _ := Load(writeConfig(t, "language: de\n"), Options{})
	t.Setenv("WHISPERKEY_AUDIO_MIN_DURATION", "")
	got, warns, err := Load(writeConfig(t, stdout.String()), Options{})
	if err != nil || len(warns) > 0 || got != want {
		t.Errorf("show output loads to %+v (%v %v), want %+v", got, err, warns, want)
	}
}
