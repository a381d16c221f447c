package desktop

import (
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/textproc"
)

// TextOptions returns the text processing the settings in t ask for; it lives
// here, where config and textproc meet, so textproc knows nothing of config.
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
