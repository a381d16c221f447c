package desktop

import (
	"context"

	"github.com/whisperkey/whisperkey/internal/tray"
)

// copyRecent puts a Recent dictation on the clipboard.
func (d *desk) copyRecent(ctx context.Context, id string) {
	if d.fb.Recent == nil {
		return
	}
	text, err := d.fb.RecentText(id)
	if err != nil {
		d.status(tray.StateError, "That dictation is no longer in the Recent list")
		return
	}
	if err := d.paster.Copy(ctx, text); err != nil {
		d.status(tray.StateError, "Could not copy the dictation: "+err.Error())
		return
	}
	d.status(tray.StateIdle, "Copied to the clipboard — ready")
}

// setStartAtLogin turns the start-at-login entry on or off.
func (d *desk) setStartAtLogin(value string) {
	if state, text, ok := d.fb.SetStartAtLogin(value == "on"); ok {
		d.status(state, text)
		d.refreshMenu()
	}
}
