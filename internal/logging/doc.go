// Package logging sets up WhisperKey's log file: where it lives on each OS, and size-based rotation.
package logging
