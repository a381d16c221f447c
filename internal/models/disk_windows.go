package models

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// freeSpace is the space the current user may still write under dir
// (GetDiskFreeSpaceEx honours per-user quotas).
func freeSpace(dir string) (uint64, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, fmt.Errorf("free space of %s: %w", dir, err)
	}
	var avail, total, totalFree uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &totalFree); err != nil {
		return 0, fmt.Errorf("free space of %s: %w", dir, err)
	}
	return avail, nil
}

func isDiskFull(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL)
}
