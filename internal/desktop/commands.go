package desktop

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// spokenCommands is the app's Commands: the spoken forms of the config in
// use when the dictation ends, so an edited list applies at once.
type spokenCommands func() config.Config

func (c spokenCommands) Command(text string) app.Command {
	if c().Commands.Match(text) == config.CommandUndo {
		return app.CommandUndo
	}
	return app.NoCommand
}

// onCommandEvent shows how paste again or undo ended: in the tray, on the
// indicator, and as a notification when it was not done, since the user
// expects a change in a window and must learn why there is none.
func (d *desk) onCommandEvent(e app.Event) {
	d.fb.ShowEvent(e)
	switch {
	case e.Action == app.Undo && e.Outcome == app.Undone:
		if d.fb.MarkUndone() {
			d.refreshMenu()
		}
		d.showReady(" · last dictation removed")
	case e.Action == app.Edit && e.Outcome == app.Delivered:
		d.fb.ForgetLast() // an undo now has nothing of ours to take back
		d.showReady(" · selection rewritten")
	case e.Action == app.Edit:
		why := sentence(e.Message)
		d.status(tray.StateIdle, "Not rewritten: "+why)
		d.fb.Show(indicator.Error, "Not rewritten")
		d.fb.Tell(notify.NotRewritten(strings.TrimRight(why, ".")))
	case e.Action == app.Undo:
		why := sentence(e.Message)
		if e.Err != nil && errors.Is(e.Err, output.ErrNotUndone) {
			why = sentence(strings.TrimPrefix(e.Err.Error(), output.ErrNotUndone.Error()+": "))
		}
		d.status(tray.StateIdle, "Not undone: "+why)
		d.fb.Show(indicator.Error, "Not undone")
		d.fb.Tell(notify.NotUndone(why))
	case e.Outcome == app.Delivered:
		d.fb.ForgetLast() // an undo now takes back the repeat, not the dictation in Recent
		d.showReady(" · pasted again")
	case e.Outcome == app.Refused:
		d.status(tray.StateIdle, e.Message)
		d.fb.Tell(notify.NothingToPasteAgain())
	default: // the paste failed, as a dictation's can
		d.status(tray.StateError, e.Message)
		if errors.Is(e.Err, output.ErrNotRead) {
			d.fb.Tell(notify.TextNotPasted())
		}
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

var _ app.Editor = (*output.Paster)(nil)
