//go:build !windows

package media

// osSessions is nil here: media is reached through MPRIS (Linux) or not at all.
func osSessions() sessionSystem { return nil }
