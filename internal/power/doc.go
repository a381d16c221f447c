// Package power follows logind for the app: it tells when the computer wakes
// from sleep, so that what the OS may have dropped meanwhile (hotkey grabs, the
// microphone's stream, the engine worker) is checked before the first
// dictation, and whether this user's session is the one in front and unlocked,
// so that keys read from the keyboards directly (evdev) count only there. On
// Linux it listens to logind on the system bus; elsewhere it reports nothing
// (the Windows hotkey grabber hears WM_POWERBROADCAST itself).
package power
