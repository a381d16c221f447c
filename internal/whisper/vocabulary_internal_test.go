package whisper

import "testing"

func TestMentionsTerm(t *testing.T) {
	terms := []string{"ComfyUI", "Siobhan", " New Relic ", "CTranslate2", ""}
	cases := []struct {
		text string
		want bool
	}{
		{"Please send it to Siobhan before lunch.", true},
		{"please send it to siobhan, before lunch", true},
		{"I restarted comfyui.", true},
		{"We moved to New Relic last year.", true},
		{"We moved to new\trelic.", true},
		{"Build CTranslate2 first.", true},
		{"Please send it to Shivon before lunch.", false},
		{"Relic of the new age.", false},
		{"ComfyUIs are not a thing", false}, // whole words only
		{"Comfy UI", false},
		{"", false},
	}
	for _, tc := range cases {
		if got := mentionsTerm(tc.text, terms); got != tc.want {
			t.Errorf("mentionsTerm(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	if mentionsTerm("anything", nil) {
		t.Error("no terms: mentionsTerm = true")
	}
}
