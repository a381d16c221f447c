// Package history keeps the last dictations for the tray's Recent menu, in memory unless the user asks for a file.
package history
