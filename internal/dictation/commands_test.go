package dictation

import (
	"testing"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// The model's check names a phrase; the config's spoken forms say which
// command it is, so a phrase removed from the config does nothing.
func TestHeardCommand(t *testing.T) {
	def := config.Defaults()
	off := config.Defaults()
	off.Commands.Undo = config.NewList()
	cases := []struct {
		name  string
		check *whisper.CommandCheck
		cfg   config.Config
		want  app.Command
	}{
		{"no check made", nil, def, app.NoCommand},
		{"checked, nothing taken", &whisper.CommandCheck{Scores: []whisper.PhraseScore{{Phrase: "scratch that", Gap: 9}}}, def, app.NoCommand},
		{"scratch that taken", &whisper.CommandCheck{Taken: "scratch that"}, def, app.CommandUndo},
		{"undo that taken", &whisper.CommandCheck{Taken: "undo that"}, def, app.CommandUndo},
		{"taken, but the config no longer has it", &whisper.CommandCheck{Taken: "scratch that"}, off, app.NoCommand},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := heardCommand(&whisper.Result{Command: tc.check}, tc.cfg); got != tc.want {
				t.Errorf("heardCommand = %v, want %v", got, tc.want)
			}
		})
	}
}
