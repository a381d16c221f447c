//go:build !windows

package output

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"golang.design/x/clipboard"
)

// snapshot is the clipboard as it was: every format x/clipboard can read back.
type snapshot struct{ items []clipboard.Item }

// ownership is our write: lost fires when another program takes the clipboard, read
// (nil where unknown) when the target asked for the text.
type ownership struct {
	lost    <-chan struct{}
	read    <-chan struct{}
	primary bool // PRIMARY is ours too (a terminal's paste reads it)
}

// saveClipboard reads every format the clipboard offers (text, image/png, files and any other
// MIME type). An unresponsive owner costs at most two seconds.
func saveClipboard(ctx context.Context, log *slog.Logger) (*snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	formats, err := clipboard.Formats(ctx)
	if err != nil {
		return nil, fmt.Errorf("list clipboard formats: %w", err)
	}
	s := &snapshot{}
	for _, f := range formats {
		data, err := clipboard.Read(ctx, f)
		if err != nil {
			if !errors.Is(err, clipboard.ErrNoData) {
				log.Debug("clipboard format not saved", "format", f.MIME(), "err", err)
			}
			continue
		}
		s.items = append(s.items, clipboard.Item{Format: f, Bytes: data})
	}
	return s, nil
}

func writeClipboard(ctx context.Context, text string) (*ownership, error) {
	lost, err := clipboard.Write(ctx, clipboard.FmtText, []byte(text))
	if err != nil {
		return nil, err
	}
	return &ownership{lost: lost}, nil
}

func (o *ownership) stillOurs() bool {
	select {
	case <-o.lost:
		return false
	default:
		return true
	}
}

// writeBack puts every saved format back on the clipboard in one write.
func (s *snapshot) writeBack(ctx context.Context) error {
	opts := make([]clipboard.Option, len(s.items))
	for i, it := range s.items {
		opts[i] = it
	}
	if _, err := clipboard.WriteAll(ctx, opts...); err != nil {
		return fmt.Errorf("write the saved clipboard back: %w", err)
	}
	return nil
}

// text is the snapshot's plain text, if it holds any.
func (s *snapshot) text() (string, bool) {
	for _, it := range s.items {
		if it.Format == clipboard.FmtText {
			return string(it.Bytes), true
		}
	}
	return "", false
}
