//go:build !linux

package power

import "log/slog"

// osWatcher reports nothing: on Windows the hotkey grabber hears resumes itself.
type osWatcher struct{}

func newOSWatcher(*slog.Logger, func()) (*osWatcher, error) { return &osWatcher{}, nil }

func (*osWatcher) close() error { return nil }
