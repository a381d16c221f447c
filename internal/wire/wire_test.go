package wire

import (
	"encoding/json"
	"slices"
	"testing"
)

// The engine's ["en", 0.93] pairs decode in one pass; anything else is an error.
func TestLangProbFromPair(t *testing.T) {
	var got []LangProb
	if err := json.Unmarshal([]byte(`[["en",0.93],["de",0.05]]`), &got); err != nil {
		t.Fatal(err)
	}
	if want := []LangProb{{"en", 0.93}, {"de", 0.05}}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for _, bad := range []string{`[[1,0.5]]`, `[{"language":"en"}]`, `[["en","high"]]`} {
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("%s decoded to %v, want an error", bad, got)
		}
	}
}
