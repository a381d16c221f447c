package commands

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/paths"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// configOptions validate what only other packages understand.
func configOptions() config.Options {
	return config.Options{ValidateHotkey: hotkey.Validate, CannotTranslate: models.CannotTranslate}
}

func runConfig(args []string, stdout, stderr io.Writer) error {
	var path string
	if file, rest, ok := validateFile(args); ok {
		// validate FILE checks that file, say a config before it is installed.
		path, args = file, rest
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			return usageError{fmt.Sprintf("config validate %s: no such file; give the path of a config file", path)}
		}
	} else {
		p, err := configPath()
		if err != nil {
			return err
		}
		path = p
	}
	opts := configOptions()
	opts.CheckVocabulary = func(cfg config.Config) []string { return vocabularyWarnings(context.Background(), cfg) }
	return cliStatus(config.RunCLI(args, stdout, stderr, path, opts))
}

// validateFile takes the FILE out of `config validate [--allow-unknown]
// FILE`, in either order; ok is false when no file is named.
func validateFile(args []string) (file string, rest []string, ok bool) {
	if len(args) < 2 || len(args) > 3 || args[0] != "validate" {
		return "", args, false
	}
	rest = []string{"validate"}
	for _, a := range args[1:] {
		switch {
		case strings.HasPrefix(a, "-"):
			rest = append(rest, a) // RunCLI knows the flag, or says how it is used
		case file == "":
			file = a
		default:
			return "", args, false // two files: RunCLI prints the usage
		}
	}
	return file, rest, file != ""
}

// vocabularyWarnings names, for the config's vocabulary and each profile's,
// the terms that the config's model has no room for in its prompt. It needs
// the model's tokenizer, so it says so when the model is not downloaded.
func vocabularyWarnings(ctx context.Context, cfg config.Config) []string {
	type vocab struct {
		where string // "" for the config's own
		cfg   config.Config
	}
	var vocabs []vocab
	if len(cfg.Decode.Vocabulary.Items()) > 0 {
		vocabs = append(vocabs, vocab{"", cfg})
	}
	for _, name := range cfg.Profiles.Names() {
		p, _ := cfg.Profiles.Find(name)
		if c := cfg.WithProfile(p); p.Vocabulary != nil && len(c.Decode.Vocabulary.Items()) > 0 {
			vocabs = append(vocabs, vocab{"profile " + name + ": ", c})
		}
	}
	if len(vocabs) == 0 {
		return nil
	}
	env, err := newEnvironmentFor(slog.New(slog.DiscardHandler), cfg)
	if err != nil {
		return []string{"vocabulary not checked: " + err.Error()}
	}
	dir, err := env.modelDir(ctx, "", cfg.Engine)
	if err != nil {
		return []string{fmt.Sprintf("vocabulary not checked against the model: %v", err)}
	}
	tok, err := whisper.LoadTokenizer(dir)
	if err != nil {
		return []string{fmt.Sprintf("vocabulary not checked: the model in %s: %v", dir, err)}
	}
	var out []string
	for _, v := range vocabs {
		if msg := dictation.VocabularyLeftOut(tok.FitVocabulary(dictation.DecodeOptions(v.cfg))); msg != "" {
			out = append(out, v.where+msg)
		}
	}
	return out
}

// configPath is $WHISPERKEY_CONFIG or the per-user config file.
func configPath() (string, error) { return paths.ConfigFile() }
