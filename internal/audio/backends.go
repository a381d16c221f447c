package audio

import (
	"fmt"
	"runtime"

	"github.com/gen2brain/malgo"
)

// BackendNull is miniaudio's null device: silence, paced in real time. malgo
// names no constant for it (its BackendNull is ma_backend_custom), so tests
// and headless runs use this one.
const BackendNull = malgo.Backend(14)

// backendAny lets miniaudio choose among all its backends.
const backendAny = malgo.Backend(^uint32(0))

// osBackends is miniaudio's own order of backends for this OS, so that trying
// them one at a time picks what miniaudio would.
func osBackends() []malgo.Backend {
	switch runtime.GOOS {
	case "windows":
		return []malgo.Backend{malgo.BackendWasapi, malgo.BackendDsound, malgo.BackendWinmm}
	case "linux":
		return []malgo.Backend{malgo.BackendPulseaudio, malgo.BackendAlsa, malgo.BackendJack}
	case "darwin":
		return []malgo.Backend{malgo.BackendCoreaudio}
	}
	return []malgo.Backend{backendAny}
}

// backendName is miniaudio's name for a backend.
func backendName(b malgo.Backend) string {
	switch b {
	case malgo.BackendWasapi:
		return "WASAPI"
	case malgo.BackendDsound:
		return "DirectSound"
	case malgo.BackendWinmm:
		return "WinMM"
	case malgo.BackendCoreaudio:
		return "Core Audio"
	case malgo.BackendPulseaudio:
		return "PulseAudio"
	case malgo.BackendAlsa:
		return "ALSA"
	case malgo.BackendJack:
		return "JACK"
	case BackendNull:
		return "Null"
	case backendAny:
		return "any"
	}
	return fmt.Sprintf("backend %d", uint32(b))
}
