package wire

import (
	"encoding/json"
	"testing"
)

func TestLangProbFromPair(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []LangProb
		wantErr bool
	}{
		{name: "pairs", in: `[["en",0.93],["de",0.05]]`, want: []LangProb{{"en", 0.93}, {"de", 0.05}}},
		{name: "none", in: `[]`, want: []LangProb{}},
		{name: "number for a language", in: `[[1,0.5]]`, wantErr: true},
		{name: "object, not a pair", in: `[{"language":"en"}]`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []LangProb
			err := json.Unmarshal([]byte(tt.in), &got)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("decoded %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}
