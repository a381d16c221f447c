package desktop

import (
	"context"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// sources are the channels the run loop serves. A nil channel is never
// ready, so a source that closes is set to nil rather than read again.
type sources struct {
	app     <-chan app.Event
	actions <-chan tray.Action
	changes <-chan config.Change
	pulled  <-chan error
}

// serve is the run loop: it handles one event at a time until ctx ends or
// the app stops.
func (d *desk) serve(ctx context.Context, src sources) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-src.app:
			if !ok {
				return nil
			}
			d.onAppEvent(e)
		case act, ok := <-src.actions:
			if !ok {
				// The tray could not start or went away: the hotkeys still
				// work, and a closed channel must not be read in a loop.
				d.log.Info("tray menu closed; dictation continues with the hotkeys")
				src.actions = nil
				continue
			}
			d.onAction(ctx, act)
		case ch, ok := <-src.changes:
			if !ok {
				return nil
			}
			d.onConfigChange(ctx, ch)
		case err := <-src.pulled:
			if err != nil {
				d.status(tray.StateError, err.Error())
			}
			d.refreshMenu()
		}
	}
}
