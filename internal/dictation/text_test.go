package dictation

import (
	"testing"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/textproc"
)

func TestTextOptions(t *testing.T) {
	custom := config.Defaults().Text
	custom.SpokenPunctuation, custom.Output.StripFinalPeriod = true, true
	custom.Replacements = config.NewReplacements(config.Replacement{From: "k eight s", To: "k8s"}, config.Replacement{From: "k8s", To: "Kubernetes"})
	tests := []struct {
		name     string
		text     config.Text
		in, want string
	}{
		{name: "punctuation, replacements in order, no final period", text: custom,
			in: "We run k eight s comma mostly period", want: "We run Kubernetes, mostly"},
		{name: "the defaults leave the words alone", text: config.Defaults().Text,
			in: "Hello comma world.", want: "Hello comma world."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := textproc.New(TextOptions(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Apply(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
