package dictation

import (
	"errors"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/config"
)

// TaskTranslate is Whisper's task that writes English whatever was spoken.
const TaskTranslate = "translate"

// translateChecker is an engine that knows whether its model translates
// (the loader's local engine).
type translateChecker interface{ CannotTranslate() string }

// errRemoteTranslate is the translate key's refusal on a remote engine.
var errRemoteTranslate = errors.New("translation runs on this computer's engine only, and dictation goes to the server in " +
	config.KeyRemoteURL + "; clear " + config.KeyRemoteURL + " to translate")

// Translated is app.Translatable: r through Whisper's translate task into
// English (hotkeys.translate), or why its engine's model cannot translate.
func (r *Request) Translated() (app.Request, error) {
	c, ok := r.engine.(translateChecker)
	if !ok {
		return nil, errRemoteTranslate
	}
	if why := c.CannotTranslate(); why != "" {
		return nil, errors.New(why)
	}
	t := *r
	t.translate = true
	t.Settings.Decode.Task = TaskTranslate
	return &t, nil
}

// Label is app.Labelled: what the indicator shows while recording, the
// language asked for ("de"), "→ en" when translating, "" when detected.
func (r *Request) Label() string {
	switch lang := r.Settings.Decode.Language; {
	case r.translate:
		return "→ en"
	case lang != "" && lang != "auto":
		return lang
	}
	return ""
}
