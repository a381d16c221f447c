// Package instance keeps a second copy of WhisperKey from starting while one is already running.
package instance
