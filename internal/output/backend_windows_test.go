package output

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

var procGetClipboardFormatNameW = user32.NewProc("GetClipboardFormatNameW")

// clipItem is one format on the Windows clipboard: its name and bytes.
type clipItem struct {
	name string
	data []byte
}

// dumpClipboard lists every format with its bytes (GDI handles without).
func dumpClipboard(t *testing.T) []clipItem {
	t.Helper()
	var items []clipItem
	err := withClipboard(context.Background(), func() error {
		for f := uintptr(0); ; {
			f, _, _ = procEnumClipboardFormats.Call(f)
			if f == 0 {
				return nil
			}
			buf := make([]uint16, 256)
			n, _, _ := procGetClipboardFormatNameW.Call(f, uintptr(unsafe.Pointer(&buf[0])), 256)
			it := clipItem{name: windows.UTF16ToString(buf[:n])}
			if n == 0 {
				it.name = strconv.Itoa(int(f)) // a predefined CF_ format
			}
			if winFormatKindOf(uint32(f)) == winGlobal {
				if h, _, _ := procGetClipboardData.Call(f); h != 0 {
					it.data, _ = globalBytes(h)
				}
			}
			items = append(items, it)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// setUserClipboard is what another program's copy leaves: text, HTML and an image.
func setUserClipboard(t *testing.T) {
	t.Helper()
	text, _ := windows.UTF16FromString("copied before ✓")
	html := []byte("Version:0.9\r\nStartHTML:-1\r\nEndHTML:-1\r\nStartFragment:0\r\nEndFragment:0\r\n<b>copied</b>\x00")
	dib := []byte{40, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 32, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x22, 0x33, 0}
	err := withClipboard(context.Background(), func() error {
		procEmptyClipboard.Call()
		if err := setGlobal(cfUnicodeText, unsafe.Slice((*byte)(unsafe.Pointer(&text[0])), 2*len(text))); err != nil {
			return err
		}
		if err := setGlobal(registerFormat("HTML Format"), html); err != nil {
			return err
		}
		return setGlobal(8, dib) // CF_DIB
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testBackend(t *testing.T) *osBackend {
	t.Helper()
	b, err := newOSBackend(slog.New(slog.NewTextHandler(io.Discard, nil)), Config{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hasFormat(items []clipItem, name string) bool {
	for _, it := range items {
		if it.name == name {
			return true
		}
	}
	return false
}

// A paste writes temporary text kept out of history, then puts back every
// format the user had, byte for byte.
func TestWindowsClipboardRestoredWithEveryFormat(t *testing.T) {
	ctx := context.Background()
	b := testBackend(t)
	setUserClipboard(t)
	before := dumpClipboard(t)
	s, err := b.save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	own, err := b.write(ctx, "dictated", true)
	if err != nil {
		t.Fatal(err)
	}
	during := dumpClipboard(t)
	for _, m := range []string{fmtExcludeFromMonitors, fmtIncludeInHistory, fmtUploadToCloud} {
		if !hasFormat(during, m) {
			t.Errorf("the temporary text lacks %s: %v", m, during)
		}
	}
	if ok, err := b.restore(ctx, s, own); !ok || err != nil {
		t.Fatalf("restore = %v, %v", ok, err)
	}
	after := dumpClipboard(t)
	for _, want := range before {
		found := false
		for _, got := range after {
			found = found || got.name == want.name && bytes.Equal(got.data, want.data)
		}
		if !found {
			t.Errorf("format %q (%d bytes) not restored as it was", want.name, len(want.data))
		}
	}
}

// In clipboard mode the text is the user's to paste: an ordinary copy, with
// nothing that hides it from clipboard history or clipboard managers.
func TestWindowsClipboardModeIsAnOrdinaryCopy(t *testing.T) {
	b := testBackend(t)
	if _, err := b.write(context.Background(), "dictated ✓", false); err != nil {
		t.Fatal(err)
	}
	items := dumpClipboard(t)
	want, _ := windows.UTF16FromString("dictated ✓")
	if len(items) == 0 || items[0].name != "13" || !bytes.Equal(items[0].data, unsafe.Slice((*byte)(unsafe.Pointer(&want[0])), 2*len(want))) {
		t.Errorf("clipboard = %v, want CF_UNICODETEXT first with the text", items)
	}
	for _, m := range []string{fmtExcludeFromMonitors, fmtIncludeInHistory, fmtUploadToCloud} {
		if hasFormat(items, m) {
			t.Errorf("clipboard mode's text carries %s, which hides it from clipboard history or managers", m)
		}
	}
}
