//go:build !linux && !darwin && !freebsd && !windows

package models

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
)

// errFreeSpaceUnknown makes Pull skip the free-space check on systems where
// it is not implemented; a full disk is still caught when writing.
var errFreeSpaceUnknown = errors.New("free space unknown on " + runtime.GOOS)

func freeSpace(dir string) (uint64, error) {
	return 0, fmt.Errorf("free space of %s: %w", dir, errFreeSpaceUnknown)
}

func isDiskFull(err error) bool { return errors.Is(err, syscall.ENOSPC) }
