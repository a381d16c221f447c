package commands

import (
	"cmp"
	"context"
	"io"
	"time"

	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/remote"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// transcribeRemote runs the pipeline with an OpenAI-compatible server
// (o.remote) as the engine, clip by clip, in order.
func transcribeRemote(ctx context.Context, o transcribeOptions, speech dictation.SpeechGate, cleaner dictation.Cleaner, set dictation.Settings, meta runMeta,
	clips [][]float32, stdout, stderr io.Writer) error {
	// Checked here too, so the message names where the key came from. The
	// config read $WHISPERKEY_REMOTE_API_KEY, the override of its key.
	key, err := remote.CheckAPIKey(cmp.Or(o.apiKey, set.Config.Remote.APIKey))
	if err != nil {
		return usageError{"--api-key, the config's remote.api_key or $WHISPERKEY_REMOTE_API_KEY: " + err.Error()}
	}
	// A file is not a dictation with a local engine to fall back to: give a
	// slow or busy server time, rather than the tray's short limit.
	model := set.Config.Remote.Model
	if o.words.set["remote-model"] {
		model = o.remoteModel
	}
	c, err := remote.New(remote.Config{URL: o.remote, APIKey: key, Model: model, Timeout: 5 * time.Minute},
		cliLogger(stderr, o.verbose))
	if err != nil {
		return usageError{err.Error()}
	}
	p := dictation.Build(c, false, speech, cleaner) // no upload for a file without speech
	notice := func(msg string) { _, _ = io.WriteString(stderr, "whisperkey: "+msg+"\n") }
	// JSON Lines, as for the local engine.
	return writeTranscripts(ctx, p.Run, set, o, clips, stdout, notice, func(file string, tr dictation.Transcript) any {
		return struct {
			File string `json:"file"`
			*whisper.Result
			dictationInfo
			Remote string `json:"remote"`
		}{file, tr.Result, info(set, meta, tr), c.Host()}
	})
}
