// Package power tells the app when the computer wakes from sleep, so that what
// the OS may have dropped meanwhile (hotkey grabs, the microphone's stream, the
// engine worker) is checked before the first dictation. On Linux it listens to
// logind's PrepareForSleep signal on the system bus; elsewhere it reports nothing
// (the Windows hotkey grabber hears WM_POWERBROADCAST itself).
package power
