package feedback

import (
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/indicator"
)

// micIndicator keeps what SetMic was told before each state.
type micIndicator struct{ got []string }

func (m *micIndicator) Show(s indicator.State, _ string) { m.got = append(m.got, s.String()) }
func (m *micIndicator) SetLevel(float32)                 {}
func (m *micIndicator) Live(string)                      {}
func (m *micIndicator) Hide()                            { m.got = append(m.got, "hidden") }
func (m *micIndicator) Close() error                     { return nil }
func (m *micIndicator) SetMic(open bool) {
	if open {
		m.got = append(m.got, "mic on:")
	}
}

// After the release the indicator says the microphone is still open only
// when the recorder holds it (audio.pre_roll).
func TestIndicatorSaysTheMicrophoneStaysOpen(t *testing.T) {
	for _, held := range []bool{false, true} {
		ind := &micIndicator{}
		f := New(t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
		f.Ind, f.micOpen = ind, func() bool { return held }
		for _, s := range []app.State{app.Recording, app.Transcribing, app.Idle} {
			f.ShowEvent(app.Event{State: s})
		}
		want := []string{"recording", "transcribing", "hidden"}
		if held {
			want = []string{"recording", "mic on:", "transcribing", "mic on:", "hidden"}
		}
		if !slices.Equal(ind.got, want) {
			t.Errorf("held open %v: indicator got %q, want %q", held, ind.got, want)
		}
	}
}
