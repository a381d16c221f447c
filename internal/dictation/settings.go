package dictation

import (
	"fmt"
	"strings"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/textproc"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Settings are what one dictation runs with, resolved once: the config with
// the dictation's profile applied, the decoding options and the text shaper
// that follow from it.
type Settings struct {
	Config  config.Config
	Profile string // the profile applied; "" for none
	Decode  whisper.Options
	Shape   *textproc.Processor
}

// Resolve applies the profile called profile ("" for none) to cfg. A name
// that is not in cfg (the file changed while the key was down) gives the
// settings without a profile and reports it.
func Resolve(cfg config.Config, profile string) (Settings, error) {
	var missing error
	if profile != "" {
		if p, ok := cfg.Profiles.Find(profile); ok {
			cfg, profile = cfg.WithProfile(p), p.Name
		} else {
			missing = fmt.Errorf("profile %q is not in the config; its settings were not applied", profile)
			profile = ""
		}
	}
	shape, err := textproc.New(TextOptions(cfg.Text))
	if err != nil {
		return Settings{}, fmt.Errorf("text settings: %w", err)
	}
	return Settings{Config: cfg, Profile: profile, Decode: DecodeOptions(cfg), Shape: shape}, missing
}

// DecodeOptions are the decoding options cfg asks for.
func DecodeOptions(cfg config.Config) whisper.Options {
	o := whisper.DefaultOptions()
	o.Language = cfg.Decode.Language
	o.Languages = cfg.Decode.Languages.Items()
	o.BeamSize = cfg.Decode.BeamSize
	// config.Load has moved the old initial_prompt and hotwords keys here.
	o.InitialPrompt = cfg.Decode.Prompt
	o.Vocabulary = cfg.Decode.Vocabulary.Items()
	o.Window = Window(cfg)
	return o
}

// Window is the decoding window decoding.short_window asks for; auto lets
// the engine decide by its device (whisper.Window.Resolve).
func Window(cfg config.Config) whisper.Window {
	switch cfg.Decode.ShortWindow {
	case config.ShortWindowOn:
		return whisper.ShortWindow
	case config.ShortWindowOff:
		return whisper.FullWindow
	}
	return whisper.AutoWindow
}

// TextOptions returns the text processing the settings in t ask for; it lives
// here so that textproc knows nothing of config.
func TextOptions(t config.Text) textproc.Options {
	o := textproc.Options{
		SpokenPunctuation: t.SpokenPunctuation,
		Case:              t.Output.Case,
		StripFinalPeriod:  t.Output.StripFinalPeriod,
		TrailingSpace:     t.Output.TrailingSpace,
	}
	for _, r := range t.Replacements.Items() {
		o.Replacements = append(o.Replacements, textproc.Replacement{From: r.From, To: r.To})
	}
	return o
}

// VocabularyLeftOut says which vocabulary terms do not reach the decoder for
// want of room in its prompt, and the rule that chose them; "" when all do.
func VocabularyLeftOut(kept, dropped []string) string {
	if len(dropped) == 0 {
		return ""
	}
	const show = 5
	names := strings.Join(dropped[:min(show, len(dropped))], ", ")
	if len(dropped) > show {
		names += fmt.Sprintf(" and %d more", len(dropped)-show)
	}
	return fmt.Sprintf("vocabulary: %d of %d terms do not fit in the model's prompt and are not used (%s); "+
		"terms are kept in the order they are written until the prompt is full, so put the ones you need most first "+
		"(docs/configuration.md#vocabulary-names-and-jargon)", len(dropped), len(kept)+len(dropped), names)
}
