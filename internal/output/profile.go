package output

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/cleanup"
	"github.com/whisperkey/whisperkey/internal/config"
)

// ProfileOptions are the output options for a dictation in profile name; enter
// asks for Enter after the text (the auto-send hotkey, or a send phrase said
// at the end). The send mode (config.Config.Send) decides the rest: always
// presses Enter; never and when_said press it only when enter asks, so they
// turn the paste mode paste-enter into paste.
func ProfileOptions(cfg config.Config, name string, enter bool) Options {
	o := Options{PressEnter: enter}
	if p, ok := cfg.Profiles.Find(name); name != "" && ok && p.Paste != nil {
		o.Mode = *p.Paste
	}
	switch cfg.Send(name) {
	case choice.SendAlways:
		o.PressEnter = true
	default:
		if cmp.Or(o.Mode, cfg.Paste) == choice.PasteEnter {
			o.Mode = choice.Paste
		}
	}
	return o
}

// ProfilePaster gives Paster the app's Paster signature, with the paste
// settings of the dictation's profile in the config the dictations use.
type ProfilePaster struct {
	P      *Paster
	Config func() config.Config
}

// Output is app.Paster's.
func (p ProfilePaster) Output(ctx context.Context, req app.Request, text string, enter bool) (time.Time, error) {
	res, err := p.P.Output(ctx, text, ProfileOptions(p.Config(), req.Profile(), enter))
	return res.PastedAt, err
}

// errNoChatServer is the edit hotkey's answer when no chat server is set.
var errNoChatServer = fmt.Errorf("rewriting by voice needs a chat server: set %s (and %s) to an OpenAI-compatible server (%s)",
	config.KeyCleanupURL, config.KeyCleanupModel, config.EditDocAnchor)

// Rewriter is the app's Rewriter: the selection read from the focused
// window, the instruction and the selection sent to the chat server of
// cleanup.url, and the checked answer pasted over the selection.
type Rewriter struct {
	P   *Paster
	Cfg func() config.Config // the settings in use now
	Log *slog.Logger
}

// Rewrite is app.Rewriter's.
func (r Rewriter) Rewrite(ctx context.Context, req app.Request, instruction string) (string, error) {
	cfg := r.Cfg()
	if cfg.Cleanup.URL == "" {
		return "", errNoChatServer
	}
	sel, err := r.P.Selection(ctx)
	switch {
	case errors.Is(err, ErrNoSelection) && cfg.Edit.InsertAtCursor:
		// sel names the window: the answer goes to its cursor.
	case errors.Is(err, ErrNoSelection):
		return "", fmt.Errorf("%w (or set %s: true to insert the answer at the cursor)", err, config.KeyEditInsertAtCursor)
	case err != nil:
		return "", err
	}
	client, err := cleanup.New(cleanup.Config{URL: cfg.Cleanup.URL, Model: cfg.Cleanup.Model,
		APIKey: cfg.Cleanup.APIKey, Timeout: cfg.Edit.Timeout}, r.Log)
	if err != nil {
		return "", err
	}
	res := client.Edit(ctx, instruction, sel.Text)
	if res.Err != nil {
		return "", res.Err
	}
	opt := ProfileOptions(cfg, req.Profile(), false)
	if cmp.Or(opt.Mode, cfg.Paste) == choice.PasteEnter {
		opt.Mode = choice.Paste // a rewrite is not a message to send
	}
	opt.PressEnter, opt.Replace = false, &sel
	out, err := r.P.Output(ctx, res.Text, opt)
	if err == nil && !out.Pasted && !out.Typed && out.OnClipboard {
		err = errors.New("the rewrite is on the clipboard (paste mode is clipboard): press Ctrl+V to replace the selection")
	}
	return res.Text, err
}

var _ app.Rewriter = Rewriter{}
