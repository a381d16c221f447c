package textproc

import "github.com/whisperkey/whisperkey/internal/config"

// FromConfig returns the options the settings in t ask for.
func FromConfig(t config.Text) Options {
	o := Options{
		SpokenPunctuation: t.SpokenPunctuation,
		Case:              t.Output.Case,
		StripFinalPeriod:  t.Output.StripFinalPeriod,
		TrailingSpace:     t.Output.TrailingSpace,
	}
	for _, r := range t.Replacements.Items() {
		o.Replacements = append(o.Replacements, Replacement{From: r.From, To: r.To})
	}
	return o
}
