//go:build windows

package instance

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// Acquire takes the single-instance guard called name. The returned release
// gives it up (safe to call twice); the OS also frees it when the process exits.
func Acquire(name string) (release func(), err error) {
	mn := mutexName(name)
	p, err := windows.UTF16PtrFromString(mn)
	if err != nil {
		return nil, fmt.Errorf("mutex name %q: %w", mn, err)
	}
	h, err := windows.CreateMutex(nil, false, p)
	if errors.Is(err, windows.ERROR_ALREADY_EXISTS) {
		// The handle is valid but belongs to a guard someone else holds.
		windows.CloseHandle(h)
		return nil, ErrAlreadyRunning
	}
	if err != nil {
		return nil, fmt.Errorf("create mutex %s: %w", mn, err)
	}
	return once(func() { windows.CloseHandle(h) }), nil
}
