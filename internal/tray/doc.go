// Package tray shows WhisperKey's state and settings in the system tray.
package tray
