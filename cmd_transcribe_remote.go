package main

import (
	"context"
	"io"

	"github.com/whisperkey/whisperkey/internal/remote"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// transcribeRemote sends each clip to an OpenAI-compatible server (o.remote), in order.
func transcribeRemote(ctx context.Context, o transcribeOptions, opt whisper.Options, post postProcess, clips [][]float32, stdout, stderr io.Writer) error {
	c, err := remote.New(remote.Config{URL: o.remote, APIKey: o.apiKey, Model: o.remoteModel}, cliLogger(stderr, o.verbose))
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
