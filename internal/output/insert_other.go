//go:build !windows && !linux

package output

import "context"

func (b *osBackend) pasteStyle(uint64) pasteStyle { return pasteCtrlV }

func (b *osBackend) writeFor(ctx context.Context, text string, _ uint64, _ pasteStyle) (*ownership, error) {
	return b.write(ctx, text, true)
}

func (b *osBackend) pasteSeq(pasteStyle) []keyEvent { return nil }

func (b *osBackend) typeText(context.Context, string) error { return errNoKeystroke }
