//go:build linux || darwin || freebsd

package models

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// freeSpace is the space an unprivileged user may still write under dir.
func freeSpace(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}

func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
