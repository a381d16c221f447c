package main

import (
	"flag"
	"strings"
)

// wordsFlags are transcribe's vocabulary, prompt and text-shaping flags.
type wordsFlags struct {
	vocab  string
	prompt string
}

func (w *wordsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&w.vocab, "vocabulary", "", `words and phrases to spell as written, comma-separated ("ComfyUI, Kubernetes")`)
	fs.StringVar(&w.prompt, "prompt", "", `text that sets the style, as if said just before ("Hello, Anna. Let's meet at 3 pm.")`)
}

// vocabulary splits the comma-separated --vocabulary.
func (w *wordsFlags) vocabulary() []string {
	var out []string
	for _, s := range strings.Split(w.vocab, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
