package main

import (
	"context"
	"io"

	"github.com/whisperkey/whisperkey/internal/remote"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// transcribeRemote sends each clip to an OpenAI-compatible server (o.remote), in order.
func transcribeRemote(ctx context.Context, o transcribeOptions, opt whisper.Options, post postProcess, clips [][]float32, stdout, stderr io.Writer) error {
	// Checked here too, so the message names where the key came from.
	key, err := remote.CheckAPIKey(o.apiKey)
	if err != nil {
		return usageError{"--api-key or $WHISPERKEY_REMOTE_API_KEY: " + err.Error()}
	}
	c, err := remote.New(remote.Config{URL: o.remote, APIKey: key, Model: o.remoteModel}, cliLogger(stderr, o.verbose))
	if err != nil {
		return usageError{err.Error()}
	}
	// JSON Lines, as for the local engine.
	return writeTranscripts(ctx, c, o, opt, post, clips, stdout, func(file string, res *whisper.Result, info dictationInfo) any {
		return struct {
			File string `json:"file"`
			*whisper.Result
			dictationInfo
			Remote string `json:"remote"`
		}{file, res, info, c.Host()}
	})
}
