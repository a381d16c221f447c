package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/whisperkey/whisperkey/internal/remote"
	"github.com/whisperkey/whisperkey/internal/textproc"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// transcribeRemote sends each clip to an OpenAI-compatible server (o.remote), in order.
func transcribeRemote(ctx context.Context, o transcribeOptions, opt whisper.Options, shape *textproc.Processor, clips [][]float32, stdout, stderr io.Writer) error {
	c, err := remote.New(remote.Config{URL: o.remote, APIKey: o.apiKey, Model: o.remoteModel}, cliLogger(stderr, o.verbose))
	if err != nil {
		return usageError{err.Error()}
	}
	for i, samples := range clips {
		res, err := c.Transcribe(ctx, samples, opt)
		if err != nil {
			return fmt.Errorf("%s: %w", o.files[i], err)
		}
		res.Text = shape.Apply(res.Text)
		if !o.json {
			if _, err := fmt.Fprintln(stdout, res.Text); err != nil {
				return err
			}
			continue
		}
		// JSON Lines, as for the local engine.
		err = json.NewEncoder(stdout).Encode(struct {
			File string `json:"file"`
			*whisper.Result
			Remote string `json:"remote"`
		}{o.files[i], res, c.Host()})
		if err != nil {
			return err
		}
	}
	return nil
}
