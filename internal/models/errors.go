package models

import "errors"

// Sentinel errors that callers branch on; the errors returned wrap them with
// the model, the file and the fix.
var (
	// ErrNotFound: an unknown model name, a repository the hub does not have,
	// or a model that is not downloaded.
	ErrNotFound = errors.New("model not found")
	// ErrChecksum: a downloaded file does not match the size or hash the hub
	// reports. Nothing is installed and the partial download is deleted.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrNoSpace: not enough free disk space for the download (checked before
	// it starts, or the disk filled up while writing).
	ErrNoSpace = errors.New("not enough disk space")
	// ErrOffline: the hub could not be reached and the model is not cached.
	ErrOffline = errors.New("hugging face unreachable")
	// ErrUnauthorized: the hub refused access (private or gated repository).
	ErrUnauthorized = errors.New("hugging face access denied")
)
