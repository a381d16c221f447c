// Package autostart turns starting WhisperKey at login on and off: the HKCU Run key on Windows, an XDG autostart entry on Linux.
package autostart
