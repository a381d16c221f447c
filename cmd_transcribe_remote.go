package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/whisperkey/whisperkey/internal/remote"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// transcribeRemote sends samples to an OpenAI-compatible server (o.remote).
func transcribeRemote(ctx context.Context, o transcribeOptions, samples []float32, stdout, stderr io.Writer) error {
	c, err := remote.New(remote.Config{URL: o.remote, APIKey: o.apiKey, Model: o.remoteModel}, cliLogger(stderr, o.verbose))
	if err != nil {
		return usageError{err.Error()}
	}
	opt := whisper.DefaultOptions()
	opt.Language = o.language
	res, err := c.Transcribe(ctx, samples, opt)
	if err != nil {
		return err
	}
	if !o.json {
		_, err = fmt.Fprintln(stdout, res.Text)
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		*whisper.Result
		Remote string `json:"remote"`
	}{res, c.Host()})
}
