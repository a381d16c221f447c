package desktop

import (
	"io"
	"path/filepath"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// shortcutNews is how binding the desktop's shortcut went.
type shortcutNews struct {
	note string
	err  error
}

// startShortcut binds the record hotkey through Options.Shortcut; its
// news arrives on news for the loop.
func (d *desk) startShortcut(cfg config.Config, news chan<- shortcutNews) io.Closer {
	return d.opt.Session.Shortcut(cfg.Hotkeys.Record, d.listener.Command, func(note string, err error) {
		select {
		case news <- shortcutNews{note: note, err: err}:
		default: // reported once; a second report has nobody to tell
		}
	})
}

// onShortcut shows how the shortcut went: its trigger in the ready line,
// or the problem and its fix (the tray and one notification).
func (d *desk) onShortcut(n shortcutNews) {
	if n.err != nil {
		d.log.Warn("the desktop's shortcut is not bound", "err", n.err)
		d.opt.Session.Note = n.err.Error()
		d.hotkeyProblem(n.err)
		return
	}
	d.log.Info("the desktop's shortcut is bound", "note", n.note)
	d.opt.Session.Note = n.note
	if d.app.State() == app.Idle {
		d.showReady("")
	}
}

// lockChanged throws away a recording that runs when the session locks:
// its words were said to a screen that is gone, and its paste would reach
// the lock screen.
func (d *desk) lockChanged(open bool) {
	if open {
		return
	}
	d.log.Info("the session is locked or another user's is in front: a running recording is thrown away")
	if err := d.listener.Command(hotkey.CommandCancel); err != nil {
		d.log.Debug("cancel at lock", "err", err)
	}
}

// remoteTokenPath is where the RemoteDesktop portal's permission is kept
// (output.Config.RemoteTokenPath); "" without a state folder.
func remoteTokenPath(stateDir string) string {
	if stateDir == "" {
		return ""
	}
	return filepath.Join(stateDir, "remote-desktop.token")
}
