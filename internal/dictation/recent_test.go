package dictation

import (
	"slices"
	"testing"
)

func TestRecentLanguages(t *testing.T) {
	cases := []struct {
		name  string
		added []string
		want  []string
	}{
		{"none", nil, nil},
		{"newest first, once each", []string{"en", "de", "en"}, []string{"en", "de"}},
		{"empty codes ignored", []string{"", "sv", ""}, []string{"sv"}},
		{"at most recentKept", []string{"a", "b", "c", "d", "e", "f", "g"}, []string{"g", "f", "e", "d", "c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r recentLanguages
			for _, a := range c.added {
				r.add(a)
			}
			if got := r.list(); !slices.Equal(got, c.want) {
				t.Errorf("list = %v, want %v", got, c.want)
			}
		})
	}
}
