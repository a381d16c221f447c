package server_test

import (
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/server"
)

// Allowed origins are checked at start-up: ones no browser sends would
// never match, and "*" lets every page in only where pages need the key.
func TestCheckOrigins(t *testing.T) {
	cases := []struct {
		origin, key string
		says        string // "" when allowed
	}{
		{"https://notes.example", "", ""},
		{"http://localhost:3000", "", ""},
		{"chrome-extension://abcdefghijklmnop", "", ""},
		{"*", "k", ""},
		{"*", "", "--api-key"},
		{"notes.example", "", "not an origin"},
		{"https://notes.example/", "", "no path"},
		{"https://notes.example/app", "", "no path"},
		{"https://notes.example?x=1", "", "not an origin"},
		{"https://user@notes.example", "", "not an origin"},
		{"null", "", "cannot be allowed"},
		{"https://" + strings.Repeat("x", 5000) + "/", "", "not an origin"},
	}
	for _, tc := range cases {
		err := server.CheckOrigins([]string{tc.origin}, tc.key)
		switch {
		case tc.says == "" && err != nil:
			t.Errorf("%.40q (key %q): %v; want it allowed", tc.origin, tc.key, err)
		case tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says) || len(err.Error()) > 600):
			t.Errorf("%.40q (key %q): %v; want a short error saying %q", tc.origin, tc.key, err, tc.says)
		}
	}
}
