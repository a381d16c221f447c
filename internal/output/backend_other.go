//go:build !windows && !linux

package output

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"

	"golang.design/x/clipboard"
)

// osBackend elsewhere (macOS later): the clipboard only; no keystroke yet.
type osBackend struct{ log *slog.Logger }

var errNoKeystroke = fmt.Errorf("paste keystrokes are not implemented on %s: %w", runtime.GOOS, errors.ErrUnsupported)

func newOSBackend(log *slog.Logger, _ Config) (*osBackend, error) {
	if err := clipboard.Init(); err != nil {
		return nil, fmt.Errorf("open the clipboard: %w", err)
	}
	return &osBackend{log: log}, nil
}

func (b *osBackend) close() error                                { return nil }
func (b *osBackend) target() (uint64, bool, error)               { return 0, false, nil }
func (b *osBackend) canPaste() error                             { return errNoKeystroke }
func (b *osBackend) keys() pasteKeys                             { return pasteKeys{} }
func (b *osBackend) keysDown() ([]uint32, error)                 { return nil, errNoKeystroke }
func (b *osBackend) isModifier(uint32) bool                      { return false }
func (b *osBackend) send([]keyEvent) error                       { return errNoKeystroke }
func (b *osBackend) editKeys() (editKeys, error)                 { return editKeys{}, errNoKeystroke }
func (b *osBackend) stillOurs(o *ownership) bool                 { return o.stillOurs() }
func (b *osBackend) save(ctx context.Context) (*snapshot, error) { return saveClipboard(ctx, b.log) }

// write owns the clipboard with text; temporary makes no difference here.
func (b *osBackend) write(ctx context.Context, text string, _ bool) (*ownership, error) {
	return writeClipboard(ctx, text)
}

func (b *osBackend) restore(ctx context.Context, s *snapshot, o *ownership) (bool, error) {
	if !o.stillOurs() || len(s.items) == 0 {
		return false, nil
	}
	if err := s.writeBack(ctx); err != nil {
		return false, err
	}
	return true, nil
}

// use: one route serves every window here.
func (b *osBackend) use(uint64) {}
