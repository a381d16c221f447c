package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/whisperkey/whisperkey/internal/desktop"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/portal"
	"github.com/whisperkey/whisperkey/internal/session"
)

// portalShortcut is desktop's ShortcutRoute through the GlobalShortcuts
// portal: the record hotkey as a shortcut of desktop d, with hotkeys.record
// as the trigger it proposes.
func portalShortcut(ctx context.Context, d session.Desktop, log *slog.Logger) desktop.ShortcutRoute {
	return func(record string, drive func(hotkey.Command) error, bound func(string, error)) io.Closer {
		trigger := ""
		if c, err := hotkey.Parse(record); err == nil {
			trigger, _ = portal.Trigger(c)
		}
		return portal.StartRecord(ctx, portal.RecordOptions{
			Trigger: trigger,
			Drive:   drive,
			Bound:   func(b []portal.Bound, err error) { bound(shortcutNote(b, err, d)) },
		}, log)
	}
}

// shortcutNote is the tray's line for a bound shortcut, or the problem
// with what to do instead: `whisperkey ptt` from a key binding.
func shortcutNote(b []portal.Bound, err error, d session.Desktop) (string, error) {
	const fix = "bind `whisperkey ptt` to a key instead: %s (docs/wayland.md#when-the-desktop-refuses-the-shortcut)"
	switch {
	case errors.Is(err, portal.ErrCancelled):
		return "", fmt.Errorf("the desktop's shortcut for dictation was declined in its dialog; "+fix, session.PTTHint(d))
	case err != nil:
		return "", fmt.Errorf("the desktop's shortcut for dictation is not set up (%w); "+fix, err, session.PTTHint(d))
	}
	for _, s := range b {
		if s.ID == portal.RecordID && s.TriggerDescription != "" {
			return "Wayland: dictate with " + s.TriggerDescription + " (your desktop's shortcut)", nil
		}
	}
	return "Wayland: dictate with the key you chose for WhisperKey in your desktop's dialog", nil
}
