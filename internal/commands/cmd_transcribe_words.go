package commands

import (
	"flag"
	"fmt"
	"strings"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/textproc"
)

// wordsFlags are transcribe's vocabulary, prompt and text-shaping flags. They
// override the config's settings (--config, else the user's) one by one.
type wordsFlags struct {
	config   string
	vocab    string
	prompt   string
	replace  replaceFlag
	spoken   bool
	caseName string
	strip    bool
	trailing bool
	// profile applies the config's profile of that name; cleanup sets the
	// AI cleanup mode ("off" for none).
	profile, cleanup string
	set              map[string]bool // flags given on the command line
}

// replaceFlag collects repeated --replace FROM=TO.
type replaceFlag []textproc.Replacement

func (r *replaceFlag) String() string { return fmt.Sprint(*r) }

func (r *replaceFlag) Set(v string) error {
	from, to, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(from) == "" {
		return fmt.Errorf("%q is not FROM=TO (e.g. --replace \"comfy ui=ComfyUI\")", v)
	}
	*r = append(*r, textproc.Replacement{From: from, To: strings.ReplaceAll(to, `\n`, "\n")})
	return nil
}

func (w *wordsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&w.config, "config", "", "read the settings from this config file instead of yours (whisperkey config path)")
	fs.StringVar(&w.vocab, "vocabulary", "", `words and phrases to spell as written, comma-separated ("ComfyUI, Kubernetes")`)
	fs.StringVar(&w.prompt, "prompt", "", `text that sets the style, as if said just before ("Hello, Anna. Let's meet at 3 pm.")`)
	fs.Var(&w.replace, "replace", `FROM=TO: replace a word or phrase (repeat for more, applied in order; \n in TO is a line break)`)
	fs.BoolVar(&w.spoken, "spoken-punctuation", false, `write "comma", "new line", "question mark"… as the characters`)
	fs.StringVar(&w.caseName, "case", config.CaseAsSpoken, "as_spoken or lower")
	fs.BoolVar(&w.strip, "strip-final-period", false, "drop the period that ends a one-sentence text")
	fs.BoolVar(&w.trailing, "trailing-space", false, "end the text with a space")
	fs.StringVar(&w.profile, "profile", "", "apply this profile of the config: its language, words, output style and cleanup mode")
	fs.StringVar(&w.cleanup, "cleanup", "", "AI cleanup mode (clean, formal, list, one from cleanup.modes, or off) through the config's cleanup server; default: the config's")
}

// noteSet records which flags the command line gave.
func (w *wordsFlags) noteSet(fs *flag.FlagSet) {
	if w.set == nil {
		w.set = map[string]bool{}
	}
	fs.Visit(func(f *flag.Flag) { w.set[f.Name] = true })
}

// settings reads the config — --config, else the user's (as the tray app
// reads it) — applies --profile and then every flag given, and returns the
// settings each clip runs with and the config file they came from ("" when
// none exists: the defaults). notice tells the user something on stderr.
func (o *transcribeOptions) settings(notice func(string)) (dictation.Settings, string, error) {
	w := &o.words
	// A --profile needs the file it names a profile of: its errors count.
	cfg, path, used, err := commandConfig(w.config, w.profile != "", notice)
	if err != nil {
		return dictation.Settings{}, "", err
	}
	profile := ""
	if w.profile != "" {
		p, ok := cfg.Profiles.Find(w.profile)
		if !ok {
			names := strings.Join(cfg.Profiles.Names(), ", ")
			if names == "" {
				names = "none"
			}
			return dictation.Settings{}, "", usageError{fmt.Sprintf("--profile: %s has no profile %q (it has: %s)", path, w.profile, names)}
		}
		cfg, profile = cfg.WithProfile(p), p.Name
	}
	if err := o.applyFlags(&cfg); err != nil {
		return dictation.Settings{}, "", err
	}
	set, err := dictation.Resolve(cfg, "")
	if err != nil {
		return dictation.Settings{}, "", usageError{"--case: " + err.Error()}
	}
	set.Profile = profile
	return set, used, nil
}

// applyFlags puts the flags given on the command line over cfg, each in the
// key the tray app reads.
func (o *transcribeOptions) applyFlags(cfg *config.Config) error {
	w, set := &o.words, o.words.set
	if set["language"] {
		cfg.Decode.Language = o.language
	}
	if set["languages"] {
		l := config.NewList(strings.Split(o.languages, ",")...)
		if err := config.ValidateLanguages(l); err != nil {
			return usageError{"--languages: " + err.Error() + `; give Whisper language codes separated by commas, such as en,de, or "" to detect any language`}
		}
		cfg.Decode.Languages = l
	}
	if set["beam-size"] {
		cfg.Decode.BeamSize = o.beamSize
	}
	if o.shortWindow || o.fullWindow {
		cfg.Decode.ShortWindow = config.ShortWindowOff
		if o.shortWindow {
			cfg.Decode.ShortWindow = config.ShortWindowOn
		}
	}
	if set["device"] {
		cfg.Engine.Device = choice.Device(o.device)
	}
	if set["compute-type"] {
		cfg.Engine.ComputeType = choice.ComputeType(o.computeType)
	}
	if set["threads"] {
		cfg.Engine.CPUThreads = o.threads
	}
	if set["model"] {
		cfg.Engine.Model = o.model
	}
	if set["vocabulary"] {
		cfg.Decode.Vocabulary = config.NewList(strings.Split(w.vocab, ",")...)
	}
	if set["prompt"] {
		cfg.Decode.Prompt = w.prompt
	}
	if len(w.replace) > 0 {
		reps := cfg.Text.Replacements.Items()
		for _, r := range w.replace {
			reps = append(reps, config.Replacement{From: r.From, To: r.To})
		}
		cfg.Text.Replacements = config.NewReplacements(reps...)
	}
	if set["spoken-punctuation"] {
		cfg.Text.SpokenPunctuation = w.spoken
	}
	if set["case"] {
		cfg.Text.Output.Case = w.caseName
	}
	if set["strip-final-period"] {
		cfg.Text.Output.StripFinalPeriod = w.strip
	}
	if set["trailing-space"] {
		cfg.Text.Output.TrailingSpace = w.trailing
	}
	if set["cleanup"] {
		// Only the cleanup: the words the engine hears stay the same.
		mode := strings.ToLower(w.cleanup)
		if _, ok := cfg.Cleanup.CleanupModes()[mode]; !ok && mode != config.CleanupOff {
			return usageError{fmt.Sprintf("--cleanup: no mode %q; use off, clean, formal, list or a mode from cleanup.modes", w.cleanup)}
		}
		cfg.Cleanup.Mode = mode
		if mode != config.CleanupOff {
			cfg.Cleanup.Enabled = true // asked for by name: on, given a server
		}
		if mode != config.CleanupOff && cfg.Cleanup.URL == "" {
			return usageError{"--cleanup: the config sets no cleanup.url; set it to your chat server (docs/configuration.md#ai-cleanup)"}
		}
	}
	return nil
}
