package desktop

import (
	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/output"
)

// onCommandEvent shows how paste again or undo ended (feedback.CommandOutcome):
// in the tray, on the indicator, and as a notification when it was not done.
func (d *desk) onCommandEvent(e app.Event) {
	o := d.fb.CommandOutcome(e)
	if o.Refresh {
		d.refreshMenu()
	}
	if o.Ready {
		d.showReady(o.Text)
		return
	}
	d.status(o.State, o.Text)
}

var _ app.Editor = (*output.Paster)(nil)
