//go:build unix

package wlwire

import "golang.org/x/sys/unix"

// rights is the ancillary data that passes fd.
func rights(fd int) ([]byte, error) { return unix.UnixRights(fd), nil }
