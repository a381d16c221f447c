package desktop

import (
	"context"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/loader"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// onLoaded shows a finished load (loader.OnLoaded).
func (d *desk) onLoaded(ctx context.Context, r loader.Loaded) { d.showNews(d.ld.OnLoaded(ctx, r)) }

// onPulled shows a finished download (loader.OnPulled); a model picked in
// the menu becomes the configured model.
func (d *desk) onPulled(ctx context.Context, r loader.Pulled) {
	n, pick := d.ld.OnPulled(ctx, r, d.store.Current())
	if pick != "" {
		if err := d.store.Set(config.KeyModel, pick); err != nil {
			n.Error = err.Error()
		}
	}
	d.showNews(n)
}

// showNews refreshes the menu and shows the ready line, then the error
// after it, so it stays visible.
func (d *desk) showNews(n loader.News) {
	d.refreshMenu()
	d.showReady(n.Suffix)
	if n.Error != "" {
		d.status(tray.StateError, n.Error)
	}
}

// showWaiting tells the user that a dictation waits for the model being
// loaded, in the tray and on the indicator.
func (d *desk) showWaiting() {
	if d.ld.ShowWaiting(d.current()) {
		d.status(tray.StateLoading, loader.WaitingText)
		d.fb.Show(indicator.Transcribing, "Waiting for the model…")
	}
}
