package dictation

import (
	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/whisper"
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

// heardCommand is the command the model's own check took res for
// (whisper.CommandCheck), by cfg's spoken forms; NoCommand when none.
func heardCommand(res *whisper.Result, cfg config.Config) app.Command {
	if res.Command == nil || res.Command.Taken == "" {
		return app.NoCommand
	}
	return Commands(func() config.Config { return cfg }).Command(res.Command.Taken)
}
