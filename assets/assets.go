package assets

import (
	"embed"
	"runtime"
)

//go:generate go run ./gen

// State names a tray icon; internal/tray shows one per state.
type State string

// Icon states.
const (
	StateIdle         State = "idle"
	StateRecording    State = "recording"
	StateTranscribing State = "transcribing"
	StateError        State = "error"
	StateLoading      State = "loading"
	// StateWarning: working, but something needs the user (an unknown key in the config file).
	StateWarning State = "warning"
)

// Feedback sounds.
const (
	SoundStart = "start" // recording started: rising two-tone, 120 ms
	SoundStop  = "stop"  // recording stopped: falling two-tone, 120 ms
	SoundDone  = "done"  // text delivered: soft tick, 60 ms
)

// whisperkey.ico is not embedded: windres and the installer read the file.
//
//go:embed icons sounds
var files embed.FS

// Icon returns the tray icon for state in the format the OS tray wants: a
// multi-size ICO on Windows, a 64×64 PNG elsewhere (Linux's tray decodes
// only PNG). It returns nil for an unknown state.
func Icon(state State) []byte {
	return icon(runtime.GOOS, state)
}

func icon(goos string, state State) []byte {
	switch state {
	case StateIdle, StateRecording, StateTranscribing, StateError, StateLoading, StateWarning:
	default:
		return nil
	}
	if goos == "windows" {
		return read("icons/" + string(state) + ".ico")
	}
	return read("icons/" + string(state) + "-64.png")
}

// Sound returns a 16-bit mono 22050 Hz WAV file by name (SoundStart,
// SoundStop, SoundDone), or nil for an unknown name.
func Sound(name string) []byte {
	switch name {
	case SoundStart, SoundStop, SoundDone:
		return read("sounds/" + name + ".wav")
	}
	return nil
}

func read(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil {
		// Every name above is generated and embedded; a miss is a build bug.
		panic("assets: missing embedded " + name)
	}
	return b
}
