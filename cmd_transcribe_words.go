package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/desktop"
	"github.com/whisperkey/whisperkey/internal/textproc"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// wordsFlags are transcribe's vocabulary, prompt and text-shaping flags. With
// --config they start from that file's settings; a flag given overrides.
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
	// cfg is the settings resolve ended with: the config (or defaults), the
	// profile, the flags.
	cfg config.Config
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
	fs.StringVar(&w.config, "config", "", "take vocabulary, prompt, replacements, spoken_punctuation and output.* from this config file")
	fs.StringVar(&w.vocab, "vocabulary", "", `words and phrases to spell as written, comma-separated ("ComfyUI, Kubernetes")`)
	fs.StringVar(&w.prompt, "prompt", "", `text that sets the style, as if said just before ("Hello, Anna. Let's meet at 3 pm.")`)
	fs.Var(&w.replace, "replace", `FROM=TO: replace a word or phrase (repeat for more, applied in order; \n in TO is a line break)`)
	fs.BoolVar(&w.spoken, "spoken-punctuation", false, `write "comma", "new line", "question mark"… as the characters`)
	fs.StringVar(&w.caseName, "case", config.CaseAsSpoken, "as_spoken or lower")
	fs.BoolVar(&w.strip, "strip-final-period", false, "drop the period that ends a one-sentence text")
	fs.BoolVar(&w.trailing, "trailing-space", false, "end the text with a space")
	fs.StringVar(&w.profile, "profile", "", "apply this profile of the config file (--config, else your config): its language, words, output style and cleanup mode")
	fs.StringVar(&w.cleanup, "cleanup", "", "AI cleanup mode (clean, formal, list, one from cleanup.modes, or off) through the config's cleanup server; default: the config's")
}

// noteSet records which flags the command line gave.
func (w *wordsFlags) noteSet(fs *flag.FlagSet) {
	if w.set == nil {
		w.set = map[string]bool{}
	}
	fs.Visit(func(f *flag.Flag) { w.set[f.Name] = true })
}

// resolve applies the settings to opt and returns the text processor.
func (w *wordsFlags) resolve(opt *whisper.Options) (*textproc.Processor, error) {
	cfg := config.Defaults()
	path := w.config
	if path == "" && (w.profile != "" || w.cleanup != "") {
		p, err := configPath() // profiles and the cleanup server live in the user's config
		if err != nil {
			return nil, err
		}
		path = p
	}
	if path != "" {
		// Unknown keys (warnings) do not concern transcribe; the app reports them.
		c, _, err := config.Load(path, config.Options{})
		if err != nil {
			return nil, usageError{strings.ReplaceAll(err.Error(), "\n", "; ")}
		}
		cfg = c
	}
	if w.profile != "" {
		p, ok := cfg.Profiles.Find(w.profile)
		if !ok {
			names := strings.Join(cfg.Profiles.Names(), ", ")
			if names == "" {
				names = "none"
			}
			return nil, usageError{fmt.Sprintf("--profile: %s has no profile %q (it has: %s)", path, w.profile, names)}
		}
		cfg = cfg.WithProfile(p)
		if p.Language != nil && !w.set["language"] {
			opt.Language = *p.Language
		}
	}
	if w.set["cleanup"] {
		mode := strings.ToLower(w.cleanup)
		if _, ok := cfg.Cleanup.CleanupModes()[mode]; !ok && mode != config.CleanupOff {
			return nil, usageError{fmt.Sprintf("--cleanup: no mode %q; use off, clean, formal, list or a mode from cleanup.modes", w.cleanup)}
		}
		cfg.Cleanup.Mode = mode
		if mode != config.CleanupOff {
			cfg.Cleanup.Enabled = true // asked for by name: on, given a server
		}
		if mode != config.CleanupOff && cfg.Cleanup.URL == "" {
			return nil, usageError{"--cleanup: the config sets no cleanup.url; set it to your chat server (docs/configuration.md#ai-cleanup)"}
		}
	}
	w.cfg = cfg
	opt.Vocabulary, opt.InitialPrompt = cfg.Decode.Vocabulary.Items(), cfg.Decode.Prompt
	if w.set["vocabulary"] {
		opt.Vocabulary = config.NewList(strings.Split(w.vocab, ",")...).Items()
	}
	if w.set["prompt"] {
		opt.InitialPrompt = w.prompt
	}
	to := desktop.TextOptions(cfg.Text)
	w.cfg.Text = cfg.Text
	to.Replacements = append(to.Replacements, w.replace...)
	if w.set["spoken-punctuation"] {
		to.SpokenPunctuation = w.spoken
	}
	if w.set["case"] {
		to.Case = w.caseName
	}
	if w.set["strip-final-period"] {
		to.StripFinalPeriod = w.strip
	}
	if w.set["trailing-space"] {
		to.TrailingSpace = w.trailing
	}
	p, err := textproc.New(to)
	if err != nil {
		return nil, usageError{"--case: " + err.Error()}
	}
	return p, nil
}
