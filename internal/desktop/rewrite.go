package desktop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/cleanup"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/output"
)

// errNoChatServer is the edit hotkey's answer when no chat server is set.
var errNoChatServer = fmt.Errorf("rewriting by voice needs a chat server: set %s (and %s) to an OpenAI-compatible server (%s)",
	config.KeyCleanupURL, config.KeyCleanupModel, config.EditDocAnchor)

// rewriter is the app's Rewriter: the selection read from the focused
// window, the instruction and the selection sent to the chat server of
// cleanup.url, and the checked answer pasted over the selection.
type rewriter struct {
	p   *output.Paster
	cfg func() config.Config // the settings in use now
	log *slog.Logger
}

func (r rewriter) Rewrite(ctx context.Context, instruction string) (string, error) {
	cfg := r.cfg()
	if cfg.Cleanup.URL == "" {
		return "", errNoChatServer
	}
	sel, err := r.p.Selection(ctx)
	switch {
	case errors.Is(err, output.ErrNoSelection) && cfg.Edit.InsertAtCursor:
		// sel names the window: the answer goes to its cursor.
	case errors.Is(err, output.ErrNoSelection):
		return "", fmt.Errorf("%w (or set %s: true to insert the answer at the cursor)", err, config.KeyEditInsertAtCursor)
	case err != nil:
		return "", err
	}
	client, err := cleanup.New(cleanup.Config{URL: cfg.Cleanup.URL, Model: cfg.Cleanup.Model,
		APIKey: cfg.Cleanup.APIKey, Timeout: cfg.Edit.Timeout}, r.log)
	if err != nil {
		return "", err
	}
	res := client.Edit(ctx, instruction, sel.Text)
	if res.Err != nil {
		return "", res.Err
	}
	opt := pasteOptions(cfg, app.ProfileFrom(ctx), false)
	if cmp.Or(opt.Mode, cfg.Paste) == choice.PasteEnter {
		opt.Mode = choice.Paste // a rewrite is not a message to send
	}
	opt.PressEnter, opt.Replace = false, &sel
	out, err := r.p.Output(ctx, res.Text, opt)
	if err == nil && !out.Pasted && !out.Typed && out.OnClipboard {
		err = errors.New("the rewrite is on the clipboard (paste mode is clipboard): press Ctrl+V to replace the selection")
	}
	return res.Text, err
}

var _ app.Rewriter = rewriter{}
