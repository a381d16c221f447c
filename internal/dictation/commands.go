package dictation

import (
	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/config"
)

// Commands is the app's Commands: the spoken forms of the config in
// use when the dictation ends, so an edited list applies at once.
type Commands func() config.Config

// Command is app.Commands'.
func (c Commands) Command(text string) app.Command {
	if c().Commands.Match(text) == config.CommandUndo {
		return app.CommandUndo
	}
	return app.NoCommand
}
