package commands

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serve and transcribe share one flag validation, run before any model
// loads: issue 27 items 5, 8 and 9.
func TestFlagValidationShared(t *testing.T) {
	cases := []struct {
		name string
		args []string
		says string // "" when the flags are accepted
	}{
		{"beam 100000", []string{"--beam-size", "100000"}, "--beam-size"},
		{"negative threads", []string{"--threads", "-5"}, "--threads"},
		{"100000 threads", []string{"--threads", "100000"}, "--threads"},
		{"device gpu", []string{"--device", "gpu"}, "--device"},
		{"compute type fp16", []string{"--compute-type", "fp16"}, "--compute-type"},
		{"compute type int8_float32", []string{"--compute-type", "int8_float32"}, ""},
		{"256 threads", []string{"--threads", "256"}, ""},
	}
	for _, tc := range cases {
		for _, cmd := range []string{"serve", "transcribe"} {
			t.Run(cmd+" "+tc.name, func(t *testing.T) {
				var err error
				if cmd == "serve" {
					_, err = parseServe(tc.args, io.Discard)
				} else {
					_, err = parseTranscribe(append([]string{"a.wav"}, tc.args...), io.Discard)
				}
				if tc.says == "" && err != nil || tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)) {
					t.Fatalf("err = %v; want one naming %q", err, tc.says)
				}
			})
		}
	}
}

// serve's own flags are checked before the model loads too.
func TestServeFlags(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		env     string // WHISPERKEY_SERVE_API_KEY
		says    string
		wantKey string
	}{
		{"upload size that overflows", []string{"--max-upload-mb", "17592186044417"}, "", "--max-upload-mb", ""},
		{"port 99999", []string{"--listen", "127.0.0.1:99999"}, "", "port", ""},
		{"port -1", []string{"--listen", "127.0.0.1:-1"}, "", "port", ""},
		{"key with a trailing space is trimmed", []string{"--api-key", "k "}, "", "", "k"},
		{"key with a newline from the environment is trimmed", nil, "k\n", "", "k"},
		{"key of only a space", []string{"--api-key", " "}, "", "only whitespace", ""},
		{"key with a space inside", []string{"--api-key", "a b"}, "", "whitespace", ""},
		{"queue of a million", []string{"--queue", "1000000"}, "", "--queue", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("WHISPERKEY_SERVE_API_KEY", tc.env)
			o, err := parseServe(tc.args, io.Discard)
			if tc.says != "" {
				if err == nil || !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("err = %v; want one naming %q", err, tc.says)
				}
				return
			}
			if err != nil || o.apiKey != tc.wantKey {
				t.Fatalf("err = %v, key %q; want key %q", err, o.apiKey, tc.wantKey)
			}
		})
	}
}

// A file that is not audio is named in a short error, never echoed: the CLI
// printed 4 KB of `\x00` for /dev/zero.
func TestTranscribeErrorDoesNotEchoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zeros.bin")
	if err := os.WriteFile(path, make([]byte, 64<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := run(context.Background(), testBuild, []string{"transcribe", path}, &out, &errb)
	if code := exitCode(err, &errb); code != 2 || errb.Len() > 600 || strings.Count(errb.String(), `\x00`) > 16 {
		t.Fatalf("exit %d, stderr of %d bytes: %.300q", code, errb.Len(), errb.String())
	}
}
