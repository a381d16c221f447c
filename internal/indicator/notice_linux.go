//go:build linux

package indicator

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/whisperkey/whisperkey/internal/notify"
)

// noticeWindow stands in for the indicator where a Wayland compositor has
// no layer shell (GNOME): a transient notification when recording starts
// and when nothing was heard. The level bar, "Transcribing…" and the live
// text have no notification; errors have their own (not pasted, undo
// refused, …) from the desktop, and the tray shows the rest.
type noticeWindow struct {
	n    *notify.Notifier
	last State
}

func newNotice(log *slog.Logger) (backend, error) {
	// Its own notifier: one notice per dictation, where the desktop's
	// holds a kind back for 30 s. A second within a second is a bounce.
	n, err := notify.New(notify.Config{Interval: time.Second}, log)
	if err != nil {
		return nil, fmt.Errorf("%w: no layer shell and %w", ErrUnavailable, err)
	}
	return &noticeWindow{n: n}, nil
}

func (w *noticeWindow) show(v view, _ bool) {
	switch {
	case v.state == Recording && w.last != Recording: // Show(Recording) again carries the live text
		w.n.Notify(notify.Recording())
	case v.state == NothingHeard:
		w.n.Notify(notify.NothingHeard())
	}
	w.last = v.state
}

func (*noticeWindow) draw(view)    {}
func (w *noticeWindow) hide()      { w.last = Hidden }
func (*noticeWindow) bounds() Rect { return Rect{} }
func (w *noticeWindow) close() error {
	return w.n.Close()
}
