package remote_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/remote"
)

// A key with the newline a file leaves is trimmed, as the server trims its
// own; one that no header can carry is refused without repeating it.
func TestCheckAPIKey(t *testing.T) {
	cases := []struct {
		in, want string
		bad      bool
	}{
		{"sk-1", "sk-1", false},
		{"sk-1\n", "sk-1", false},
		{" sk-1\r\n", "sk-1", false},
		{"", "", false},
		{"\n", "", false},
		{"sk 1", "", true},
		{"sk-1\x00", "", true},
		{"sk-\x7f1", "", true},
	}
	for _, tc := range cases {
		got, err := remote.CheckAPIKey(tc.in)
		if tc.bad {
			if err == nil || strings.Contains(err.Error(), "sk") {
				t.Errorf("CheckAPIKey(%q) = %q, %v; want an error that does not repeat the key", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("CheckAPIKey(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := remote.New(remote.Config{URL: "http://127.0.0.1:1", APIKey: "a b"}, slog.New(slog.DiscardHandler)); err == nil {
		t.Error("New took a key with a space inside")
	}
}
