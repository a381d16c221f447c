package feedback

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// Outcome is what the tray shows after paste again, undo or a rewrite by
// voice: the ready line with Text after it (Ready), or State and Text;
// Refresh: the Recent menu changed.
type Outcome struct {
	Ready, Refresh bool
	State          tray.State
	Text           string
}

// CommandOutcome shows how paste again or undo ended on the indicator, and
// as a notification when it was not done, since the user expects a change
// in a window and must learn why there is none; it returns what the tray
// shows.
func (f *Feedback) CommandOutcome(e app.Event) Outcome {
	f.ShowEvent(e)
	switch {
	case e.Action == app.Undo && e.Outcome == app.Undone:
		return Outcome{Ready: true, Refresh: f.MarkUndone(), Text: " · last dictation removed"}
	case e.Action == app.Edit && e.Outcome == app.Delivered:
		f.ForgetLast() // an undo now has nothing of ours to take back
		return Outcome{Ready: true, Text: " · selection rewritten"}
	case e.Action == app.Edit:
		why := sentence(e.Message)
		f.Show(indicator.Error, "Not rewritten")
		f.Tell(notify.NotRewritten(strings.TrimRight(why, ".")))
		return Outcome{State: tray.StateIdle, Text: "Not rewritten: " + why}
	case e.Action == app.Undo:
		why := sentence(e.Message)
		if e.Err != nil && errors.Is(e.Err, output.ErrNotUndone) {
			why = sentence(strings.TrimPrefix(e.Err.Error(), output.ErrNotUndone.Error()+": "))
		}
		f.Show(indicator.Error, "Not undone")
		f.Tell(notify.NotUndone(why))
		return Outcome{State: tray.StateIdle, Text: "Not undone: " + why}
	case e.Outcome == app.Delivered:
		f.ForgetLast() // an undo now takes back the repeat, not the dictation in Recent
		return Outcome{Ready: true, Text: " · pasted again"}
	case e.Outcome == app.Refused:
		f.Tell(notify.NothingToPasteAgain())
		return Outcome{State: tray.StateIdle, Text: e.Message}
	default: // the paste failed, as a dictation's can
		if errors.Is(e.Err, output.ErrNotRead) {
			f.Tell(notify.TextNotPasted())
		}
		return Outcome{State: tray.StateError, Text: e.Message}
	}
}

// sentence starts msg with a capital letter.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	r, n := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[n:]
}
