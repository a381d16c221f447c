package whisper

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// The tokenizer.json scanner measured against the libraries that could
// replace it (docs/benchmarks.md, "Hand-written or a library"; run all of it
// with scripts/bench_libs.sh). Each parser gives the same bpeFile.

// jsonParser is one way to read tokenizer.json, by name.
type jsonParser struct {
	name  string
	parse func(path string) (*bpeFile, error)
}

// tokenizerJSONParsers are the parsers compared, ours first; the jsonv2
// build adds encoding/json/v2 and its jsontext decoder (jsonV2Parsers).
func tokenizerJSONParsers() []jsonParser {
	return append([]jsonParser{{"ours", parseBPEFile}, {"encoding/json", parseBPEFileStdlib}}, jsonV2Parsers()...)
}

// stdlibMerge is one merge as encoding/json reads it: "a b" or ["a", "b"].
type stdlibMerge [2][]byte

func (m *stdlibMerge) UnmarshalJSON(b []byte) error { return m.decode(b, json.Unmarshal) }

// decode reads a merge's JSON with the given library's Unmarshal.
func (m *stdlibMerge) decode(b []byte, unmarshal func([]byte, any) error) error {
	var parts []string
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := unmarshal(b, &s); err != nil {
			return err
		}
		parts = strings.Split(s, " ")
	} else if err := unmarshal(b, &parts); err != nil {
		return err
	}
	if len(parts) != 2 {
		return fmt.Errorf("merge has %d parts, want 2", len(parts))
	}
	m[0], m[1] = []byte(parts[0]), []byte(parts[1])
	return nil
}

// tokenizerDoc is the part of tokenizer.json that encoding needs.
type tokenizerDoc struct {
	Model struct {
		Type   string         `json:"type"`
		Vocab  map[string]int `json:"vocab"`
		Merges []stdlibMerge  `json:"merges"`
	} `json:"model"`
	AddedTokens []struct {
		ID      *int   `json:"id"`
		Content string `json:"content"`
	} `json:"added_tokens"`
}

func (d *tokenizerDoc) bpeFile(path string) *bpeFile {
	f := &bpeFile{path: path, added: map[string]int{}}
	for k, v := range d.Model.Vocab {
		f.toks, f.ids = append(f.toks, []byte(k)), append(f.ids, v)
	}
	for _, m := range d.Model.Merges {
		f.merges = append(f.merges, m)
	}
	for _, a := range d.AddedTokens {
		if a.ID != nil && *a.ID >= 0 && a.Content != "" {
			f.added[a.Content] = *a.ID
		}
	}
	return f
}

func parseBPEFileStdlib(path string) (*bpeFile, error) { return parseBPEFileWith(path, json.Unmarshal) }

// parseBPEFileWith reads path into a tokenizerDoc with a library's Unmarshal.
func parseBPEFileWith(path string, unmarshal func([]byte, any) error) (*bpeFile, error) {
	data, err := ct2bin.ReadModelFile(path)
	if err != nil {
		return nil, err
	}
	var d tokenizerDoc
	if err := unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return d.bpeFile(path), nil
}

// realTokenizerJSON is the tokenizer.json of each cached real model.
func realTokenizerJSON(t testing.TB) []string {
	return []string{filepath.Join(testenv.Model(t, "base"), "tokenizer.json"), filepath.Join(testenv.Model(t, "tiny.en"), "tokenizer.json")}
}

// vocabOf is a bpeFile's vocab as a map, whatever order it was read in.
func vocabOf(f *bpeFile) map[string]int {
	m := make(map[string]int, len(f.toks))
	for i, tok := range f.toks {
		m[string(tok)] = f.ids[i]
	}
	return m
}

// Every parser reads the real files to the same vocab, merges and added tokens.
func TestTokenizerJSONMatchesLibraries(t *testing.T) {
	for _, path := range realTokenizerJSON(t) {
		want, err := parseBPEFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range tokenizerJSONParsers()[1:] {
			got, err := p.parse(path)
			if err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			if !maps.Equal(vocabOf(got), vocabOf(want)) || !slices.EqualFunc(got.merges, want.merges, func(a, b [2][]byte) bool {
				return string(a[0]) == string(b[0]) && string(a[1]) == string(b[1])
			}) || !maps.Equal(got.added, want.added) {
				t.Errorf("%s reads %s otherwise than our scanner", p.name, path)
				continue
			}
			t.Logf("%s: %s reads the same %d tokens, %d merges, %d added tokens", filepath.Base(filepath.Dir(path)), p.name, len(want.toks), len(want.merges), len(want.added))
		}
	}
}

func BenchmarkTokenizerJSON(b *testing.B) {
	for _, p := range tokenizerJSONParsers() {
		for _, path := range realTokenizerJSON(b) {
			b.Run(p.name+"/"+filepath.Base(filepath.Dir(path)), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.parse(path); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// tokenizerJSONPeakIfAsked is the helper process scripts/bench_libs.sh runs
// to measure one parse's peak RSS in a fresh process: with
// TOKENIZER_JSON_PEAK naming a parser (or "none" for the baseline) it parses
// TOKENIZER_JSON_FILE once, prints VmHWM and exits.
func tokenizerJSONPeakIfAsked() {
	name := os.Getenv("TOKENIZER_JSON_PEAK")
	if name == "" {
		return
	}
	path := os.Getenv("TOKENIZER_JSON_FILE")
	var f *bpeFile
	var err error
	for _, p := range tokenizerJSONParsers() {
		if p.name == name {
			f, err = p.parse(path)
		}
	}
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM") {
			fmt.Printf("%s %s: %s (err %v)\n", filepath.Base(filepath.Dir(path)), name, strings.Join(strings.Fields(line), " "), err)
		}
	}
	runtime.KeepAlive(f)
	os.Exit(0)
}
