package indicator

import (
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"
)

// frames is a backend that keeps the labels it is asked to show.
type frames struct{ labels []string }

func (f *frames) show(v view, _ bool) { f.labels = append(f.labels, v.label()) }
func (f *frames) draw(v view)         { f.labels = append(f.labels, v.label()) }
func (f *frames) hide()               { f.labels = append(f.labels, "(hidden)") }
func (f *frames) bounds() Rect        { return Rect{} }
func (f *frames) close() error        { return nil }

// SetMic marks the state shown now and those shown after it, until the
// microphone closes.
func TestSetMicMarksTheStates(t *testing.T) {
	f := &frames{}
	i := &Indicator{cfg: Config{FlashFor: time.Hour}, log: slog.New(slog.NewTextHandler(io.Discard, nil)), os: f}
	defer i.Close()
	i.Show(Transcribing, "")
	i.SetMic(true)
	i.Show(NothingHeard, "")
	i.SetMic(false)
	i.Show(Transcribing, "")
	i.Hide()
	i.SetMic(true) // hidden: nothing to draw
	want := []string{"Transcribing…", "Transcribing…" + MicMark, "Nothing heard" + MicMark, "Nothing heard", "Transcribing…", "(hidden)"}
	if !slices.Equal(f.labels, want) {
		t.Errorf("frames %q, want %q", f.labels, want)
	}
}
