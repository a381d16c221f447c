package models

import (
	"testing"

	"github.com/whisperkey/whisperkey/internal/tabletest"
)

func TestCannotTranslate(t *testing.T) {
	// Want is part of the reason; "" when it translates or only the loaded model can tell.
	tabletest.Mentions(t, "CannotTranslate", CannotTranslate, []tabletest.Case[string, string]{
		{In: "base"},
		{In: "small"},
		{In: "large-v3"},
		{In: "base.en", Want: "English-only"},
		{In: "distil-large-v3", Want: "English-only"},
		{In: "distil-small.en", Want: "English-only"},
		{In: "large-v3-turbo", Want: "trained without translation"},
		{In: "someone/whisper-small-ct2"},
		{In: "someone/whisper-small.en", Want: "English-only"},
		{In: "deepdml/faster-whisper-large-v3-turbo-ct2", Want: "trained without translation"},
		{In: "/models/my-folder"},
	})
	type args struct {
		dir          string
		multilingual bool
	}
	tabletest.Mentions(t, "CannotTranslateDir", func(a args) string {
		return CannotTranslateDir(a.dir, a.multilingual)
	}, []tabletest.Case[args, string]{
		{In: args{"/cache/Systran--faster-whisper-base", true}},
		{In: args{"/cache/Systran--faster-whisper-base.en", false}, Want: "base.en is an English-only model"},
		{In: args{"/cache/mobiuslabsgmbh--faster-whisper-large-v3-turbo", true}, Want: "large-v3-turbo was trained without translation"},
		{In: args{"/home/me/my-model", false}, Want: "my-model is an English-only model"},
		{In: args{"/home/me/my-model", true}},
	})
}
