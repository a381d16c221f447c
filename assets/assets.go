package assets

import (
	"embed"
	"runtime"
)

//go:generate go run ./gen

// Icon states; internal/tray uses the same names.
const (
	StateIdle         = "idle"
	StateRecording    = "recording"
	StateTranscribing = "transcribing"
	StateError        = "error"
	StateLoading      = "loading"
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
func Icon(state string) []byte {
	return icon(runtime.GOOS, state)
}

func icon(goos, state string) []byte {
	switch state {
	case StateIdle, StateRecording, StateTranscribing, StateError, StateLoading:
	default:
		return nil
	}
	if goos == "windows" {
		return read("icons/" + state + ".ico")
	}
	return read("icons/" + state + "-64.png")
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
