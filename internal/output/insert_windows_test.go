package output

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// readText reads CF_UNICODETEXT as another program would (the clipboard open with no window).
func readText(t *testing.T) string {
	t.Helper()
	var got string
	err := withClipboard(context.Background(), func() error {
		h, _, err := procGetClipboardData.Call(cfUnicodeText)
		if h == 0 {
			return err
		}
		b, err := globalBytes(h)
		if err != nil {
			return err
		}
		got = windows.UTF16ToString(unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2))
		return nil
	})
	if err != nil {
		t.Fatalf("read the clipboard: %v", err)
	}
	return got
}

// Delayed rendering: the text is produced only when a program asks for it, and that
// request is what marks the paste as read.
func TestDelayedRenderingSeesTheRead(t *testing.T) {
	b, err := newOSBackend(slog.New(slog.NewTextHandler(io.Discard, nil)), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	if b.render == nil {
		t.Fatal("no delayed-rendering window")
	}
	const text = "Grüße ✓ delayed"
	own, err := b.writeFor(context.Background(), text, 0, pasteCtrlV)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-own.readSignal():
		t.Fatal("marked read before anyone asked")
	default:
	}
	if got := readText(t); got != text {
		t.Fatalf("reader got %q, want %q", got, text)
	}
	select {
	case <-own.readSignal():
	default:
		t.Fatal("a program read the text but the paste is not marked read")
	}
	if !b.stillOurs(own) {
		t.Error("after rendering the clipboard no longer counts as ours")
	}
	restored, err := b.restore(context.Background(), &snapshot{}, own)
	if err != nil || !restored {
		t.Errorf("restore = %v, %v", restored, err)
	}
}
