package power

import "log/slog"

// SessionWatcher follows this user's login session until Close.
type SessionWatcher struct{ os *osSession }

// WatchSession follows the login session this process belongs to (the
// user's graphical one when it was started outside any session, as a
// systemd user service or a desktop's autostart is). It calls open with
// the state found, then on each change: true while the session is the
// active one on its seat and not locked, false while it is locked or
// another session (another user's, on the same seat) is in front. The
// calls come one at a time, from one goroutine. It fails when nothing can
// tell (no system bus, no logind, no session); the caller then treats the
// session as always open.
func WatchSession(log *slog.Logger, open func(bool)) (*SessionWatcher, error) {
	o, err := newOSSession(log.With("pkg", "power"), open)
	if err != nil {
		return nil, err
	}
	return &SessionWatcher{os: o}, nil
}

// Close stops following the session and waits for the last call of open
// to return. Idempotent.
func (w *SessionWatcher) Close() error { return w.os.close() }

// SessionOpen asks logind once whether this process's session is active
// and unlocked (doctor). The error says why nothing can tell.
func SessionOpen() (bool, error) { return sessionOpen() }
