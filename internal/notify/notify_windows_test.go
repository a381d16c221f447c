package notify

import (
	"io"
	"log/slog"
	"testing"
	"time"
)

// The balloon goes out through the notification-area icon, at most once per kind per
// interval. It needs a desktop: on Windows, or under wine with an X display.
func TestWindowsBalloon(t *testing.T) {
	n, err := New(Config{Interval: time.Hour}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if !n.Notify(MicrophoneLost("USB Mic")) {
		t.Fatal("the balloon was not shown")
	}
	if n.Notify(MicrophoneLost("USB Mic")) {
		t.Error("a second message of the same kind within the interval was shown")
	}
	if !n.Notify(TextNotPasted()) {
		t.Error("a message of another kind was held back")
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if n.Notify(ModelDownloaded("small")) {
		t.Error("shown after Close")
	}
}
