package indicator

import (
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/whisperkey/whisperkey/internal/choice"
)

func TestPlace(t *testing.T) {
	mons := []Rect{{0, 0, 1920, 1080}, {1920, 0, 1280, 1024}}
	tests := []struct {
		name      string
		placement choice.Placement
		anchorX   int
		anchorY   int
		px, py    int
		want      Rect
	}{
		{"bottom, first monitor", choice.Bottom, 500, 500, 0, 0, Rect{840, 1080 - 36 - 48, 240, 36}},
		{"bottom, second monitor", choice.Bottom, 2500, 300, 0, 0, Rect{1920 + 520, 1024 - 36 - 48, 240, 36}},
		{"anchor off every monitor", choice.Bottom, -50, 5000, 0, 0, Rect{840, 1080 - 36 - 48, 240, 36}},
		{"cursor", choice.Cursor, 100, 100, 100, 100, Rect{116, 124, 240, 36}},
		{"cursor at the right edge stays on screen", choice.Cursor, 1900, 1070, 1900, 1070, Rect{1920 - 240, 1080 - 36, 240, 36}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := place(tt.placement, monitorFor(mons, tt.anchorX, tt.anchorY), tt.px, tt.py, Width, Height, 48)
			if got != tt.want {
				t.Errorf("place = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := New(Config{Placement: "off"}, log); !errors.Is(err, ErrOff) {
		t.Errorf("New(off) = %v, want ErrOff", err)
	}
	_, err := New(Config{Placement: "top"}, log)
	if err == nil || err.Error() != `indicator "top": use bottom, cursor or off` {
		t.Errorf("New(top) = %v", err)
	}
}

func TestLabels(t *testing.T) {
	tests := []struct {
		v    view
		want string
	}{
		{view{state: Recording, level: 0.5}, ""},
		{view{state: Transcribing}, "Transcribing…"},
		{view{state: NothingHeard}, "Nothing heard"},
		{view{state: Error, text: "Not pasted: text on clipboard"}, "Not pasted: text on clipboard"},
		{view{state: Error}, "Something went wrong"},
		{view{state: Transcribing, mic: true}, "Transcribing…" + MicMark},
		{view{state: Error, text: "Not pasted", mic: true}, "Not pasted" + MicMark},
		{view{state: Recording, text: "chat", mic: true}, "chat"}, // the dot and the bar say it
	}
	for _, tt := range tests {
		if got := tt.v.label(); got != tt.want {
			t.Errorf("%s: label %q, want %q", tt.v.state, got, tt.want)
		}
	}
}
