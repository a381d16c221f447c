package desktop

import (
	"context"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Engine transcribes 16 kHz samples: the local backend.Service, or a remote
// service. It is what dictation needs of any engine.
type Engine interface {
	Transcribe(ctx context.Context, samples []float32, o whisper.Options) (*whisper.Result, error)
}

// RemoteEngine builds the engine to dictate with for cfg (internal/remote,
// when cfg names a remote URL), given the local engine to fall back to. It
// returns local itself when cfg asks for no remote engine. Called at start
// and on every config change, so it must be quick and not touch the network.
type RemoteEngine func(cfg config.Config, local Engine) (Engine, error)

// Indicator shows that the app is recording (an on-screen dot, say). It is
// told every status change, with the tray's state names (tray.StateRecording, …).
type Indicator interface {
	SetState(state string)
}

// Notifier shows a desktop notification for what needs the user: a model
// that is missing, a microphone that went away. It must not block.
type Notifier interface {
	Notify(title, body string)
}

// History keeps recent dictations (for a "Recent" submenu). It is handed
// each pasted text, so it must be wired only when the user turned history
// on: dictated text is not kept otherwise.
type History interface {
	Add(text string)
}
