package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// LibraryName is the engine library's file name on this OS.
func LibraryName() string { return libraryName(runtime.GOOS) }

func libraryName(goos string) string {
	switch goos {
	case "windows":
		return "ct2engine.dll"
	case "darwin":
		return "libct2engine.dylib"
	default:
		return "libct2engine.so"
	}
}

// native holds the library's entry points, bound at run time so the Go binary
// builds and starts without it.
type native struct {
	open        func(modelDir, device string, index int32, computeType string, intra, inter int32) uintptr
	close       func(e uintptr)
	info        func(e uintptr) *byte
	encode      func(e uintptr, feats unsafe.Pointer, batch, nMels, frames uintptr) uintptr
	encodedFree func(x uintptr)
	detect      func(e, x uintptr) *byte
	generate    func(e, x uintptr, request string) *byte
	align       func(e, x uintptr, request string) *byte // nil: a library from before word timestamps
	devices     func() *byte
	lastError   func() *byte
	stringFree  func(s *byte)
}

// loadNative opens the library in dir (after making extra dirs searchable).
func loadNative(dir string, extra []string) (*native, error) {
	path := filepath.Join(dir, LibraryName())
	h, err := openLibrary(path, append([]string{dir}, extra...))
	if err != nil {
		return nil, fmt.Errorf("load engine library %s: %w", path, err)
	}
	n := &native{}
	for _, f := range []struct {
		fn   any
		name string
	}{
		{&n.open, "ct2e_open"}, {&n.close, "ct2e_close"}, {&n.info, "ct2e_info"},
		{&n.encode, "ct2e_encode"}, {&n.encodedFree, "ct2e_encoded_free"},
		{&n.detect, "ct2e_detect_language"}, {&n.generate, "ct2e_generate"},
		{&n.devices, "ct2e_devices"}, {&n.lastError, "ct2e_last_error"},
		{&n.stringFree, "ct2e_string_free"},
	} {
		sym, err := symbol(h, f.name)
		if err != nil {
			return nil, fmt.Errorf("engine library %s lacks %s (wrong or old build?): %w", path, f.name, err)
		}
		purego.RegisterFunc(f.fn, sym)
	}
	if sym, err := symbol(h, "ct2e_align"); err == nil {
		purego.RegisterFunc(&n.align, sym)
	}
	return n, nil
}

// cString copies a NUL-terminated C string.
func cString(p *byte) string {
	if p == nil {
		return ""
	}
	var n int
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// call runs f on a locked OS thread so the library's per-thread error text
// belongs to this call, and returns the JSON text f's result points to.
func (n *native) call(f func() *byte) ([]byte, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p := f()
	if p == nil {
		return nil, errors.New(n.errorText())
	}
	b := []byte(cString(p))
	n.stringFree(p)
	return b, nil
}

// callJSON is call, with the result decoded into out.
func (n *native) callJSON(out any, f func() *byte) error {
	b, err := n.call(f)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decode engine result: %w", err)
	}
	return nil
}

// callHandle runs f, which returns a library object, on a locked OS thread.
func (n *native) callHandle(f func() uintptr) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if h := f(); h != 0 {
		return h, nil
	}
	return 0, errors.New(n.errorText())
}

func (n *native) errorText() string {
	if msg := cString(n.lastError()); msg != "" {
		return msg
	}
	return "unknown engine error"
}
