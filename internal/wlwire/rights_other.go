//go:build !unix

package wlwire

import "errors"

// rights: only a unix system passes file descriptors (and runs Wayland).
func rights(int) ([]byte, error) {
	return nil, errors.New("passing a file descriptor needs a unix system")
}
