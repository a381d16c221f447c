package cleanup

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

const selected = "hey guys the meeting is moved to tuesday, bring the slides"

func TestCheckEdit(t *testing.T) {
	tests := []struct {
		name, instruction, answer string
		want                      string // "" when the check must fail
		wantErr                   error
	}{
		{"more formal", "make this more formal", "Hello everyone, the meeting has been moved to Tuesday; please bring the slides.",
			"Hello everyone, the meeting has been moved to Tuesday; please bring the slides.", nil},
		{"a bulleted list", "turn this into a bulleted list", "- The meeting is moved to Tuesday\n- Bring the slides",
			"- The meeting is moved to Tuesday\n- Bring the slides", nil},
		{"wrapped in a fence and a preamble", "make this more formal", "Here is the rewritten text:\n```\nThe meeting is moved to Tuesday. Please bring the slides.\n```",
			"The meeting is moved to Tuesday. Please bring the slides.", nil},
		{"translated", "translate to German", "Hallo zusammen, das Treffen ist auf Dienstag verschoben, bringt die Folien mit.",
			"Hallo zusammen, das Treffen ist auf Dienstag verschoben, bringt die Folien mit.", nil},
		{"another script when translating", "translate this into Japanese", "会議は火曜日に変更されました。スライドを持ってきてください。",
			"会議は火曜日に変更されました。スライドを持ってきてください。", nil},
		{"another script unasked", "make this more formal", "会議は火曜日に変更されました。", "", ErrNotRewrite},
		{"an unrelated paragraph", "make this more formal", "Tuesday takes its name from Tyr, the Norse god of war, as most European languages name days after gods.",
			"", ErrNotRewrite},
		{"a chat reply", "make this shorter", "Sure! Sounds good, see you then.", "", ErrNotRewrite},
		{"a refusal", "make this more formal", "I'm sorry, but I can't help with that.", "", ErrRefused},
		{"empty", "make this more formal", "  \n", "", ErrNotRewrite},
		{"runs on", "make this more formal", strings.Repeat("The meeting is moved to Tuesday. ", 20), "", ErrNotRewrite},
		{"controls stripped", "make this more formal", "\x1b]2;pwned\a\x1b[2JHello everyone\u200b, the meeting has been moved to Tuesday\u202e; please bring the slides.\a",
			"Hello everyone, the meeting has been moved to Tuesday; please bring the slides.", nil},
		{"a line break unasked", "make this more formal", "Hello everyone, the meeting has been moved to Tuesday; please bring the slides.\nrm -rf ~",
			"", ErrNotRewrite},
		{"a look-alike letter", "make this more formal", "Hello everyone, the meeting has been moved to Tu\u0435sday; please bring the slides.",
			"", ErrNotRewrite},
		{"a look-alike letter when translating", "translate to German", "Hallo zusammen, das Treffen ist auf Di\u0435nstag verschoben, bringt die Folien mit.",
			"", ErrNotRewrite},
		{"paragraphs asked for", "split this into two paragraphs", "Hello everyone, the meeting is moved to Tuesday.\n\nPlease bring the slides.",
			"Hello everyone, the meeting is moved to Tuesday.\n\nPlease bring the slides.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckEdit(selected, tt.instruction, tt.answer)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("CheckEdit = %q, %v; want an error wrapping %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("CheckEdit = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// An edit that cannot be used gives no text at all, so the window is left as
// it was, and says why; the texts never reach the log.
func TestFaultyServerEditsNothing(t *testing.T) {
	const timeout = 400 * time.Millisecond
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    error
	}{
		{"sleeps past the timeout", hangs, ErrTimeout},
		{"returns 500", fails, ErrServer},
		{"answers an unrelated paragraph", unrelated, ErrNotRewrite},
		{"replies instead of rewriting", answer("Sure, sounds good! See you on Tuesday."), ErrNotRewrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			var logged strings.Builder
			c, err := New(Config{URL: srv.URL, Model: "m", Timeout: timeout},
				slog.New(slog.NewTextHandler(&syncWriter{w: &logged}, &slog.HandlerOptions{Level: slog.LevelDebug})))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res := c.Edit(context.Background(), "Make this more formal.", selected)
			if res.Text != "" || !errors.Is(res.Err, tt.want) {
				t.Errorf("Edit = %q, %v; want no text and %v", res.Text, res.Err, tt.want)
			}
			if took := time.Since(start); took > timeout+100*time.Millisecond {
				t.Errorf("Edit returned after %v; the limit is the timeout %v + 100ms", took, timeout)
			}
			for _, secret := range []string{"tuesday", "slides", "formal"} {
				if strings.Contains(strings.ToLower(logged.String()), secret) {
					t.Errorf("the log holds %q:\n%s", secret, logged.String())
				}
			}
		})
	}
}

// A spoken instruction through a real OpenAI-compatible server and a real
// (small) model gives a checked edit of the selection.
func TestRealModelEditsASelection(t *testing.T) {
	url := testenv.ChatServer(t)
	c, err := New(Config{URL: url, Model: testenv.ChatModelName, Timeout: 2 * time.Minute}, testlog.New(t, slog.LevelDebug))
	if err != nil {
		t.Fatal(err)
	}
	res := c.Edit(context.Background(), " Make this more formal.", selected)
	if res.Err != nil {
		t.Fatalf("Edit(%q) gave no edit: %v", selected, res.Err)
	}
	t.Logf("%q → %q in %v", selected, res.Text, res.Took)
	if _, err := CheckEdit(selected, "make this more formal", res.Text); err != nil {
		t.Errorf("the edit %q does not pass the check: %v", res.Text, err)
	}
}
