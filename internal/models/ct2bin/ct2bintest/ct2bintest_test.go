package ct2bintest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

func tiny(t *testing.T, opt TinyOptions) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := GenerateTiny(dir, opt); err != nil {
		t.Fatal(err)
	}
	return dir
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestGenerateTinyDeterministic(t *testing.T) {
	read := func(dir string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, "model.bin"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := read(tiny(t, TinyOptions{Seed: 7})), read(tiny(t, TinyOptions{Seed: 7})), read(tiny(t, TinyOptions{Seed: 8}))
	if !bytes.Equal(a, b) {
		t.Error("same seed gave different model.bin")
	}
	if bytes.Equal(a, c) || len(a) != len(c) {
		t.Error("different seeds should give different weights of the same layout")
	}
}

func TestWriteModelRejects(t *testing.T) {
	tests := []struct {
		name    string
		vars    []Variable
		aliases map[string]string
		want    string
	}{
		{"short data", []Variable{{Name: "a", Shape: []int{2, 3}, DType: ct2bin.Float16, Data: make([]byte, 11)}}, nil, `"a": shape [2 3] of float16 needs 12 bytes, data has 11`},
		{"duplicate", []Variable{{Name: "a", DType: ct2bin.Int8, Data: []byte{1}}, {Name: "a", DType: ct2bin.Int8, Data: []byte{1}}}, nil, `duplicate variable "a"`},
		{"bad dtype", []Variable{{Name: "a", DType: 6, Data: []byte{1}}}, nil, "unknown dtype id 6"},
		{"NUL in name", []Variable{{Name: "a\x00b", DType: ct2bin.Int8, Data: []byte{1}}}, nil, "contains NUL"},
		{"empty alias target", []Variable{{Name: "a", DType: ct2bin.Int8, Data: []byte{1}}}, map[string]string{"b": ""}, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteModel(&bytes.Buffer{}, tt.vars, tt.aliases)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("WriteModel error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// The tiny vocabulary keeps the real ids of the byte tokens and merges, the "" token just
// before <|endoftext|>, and the real timestamp strings.
func TestTinyVocabularyMatchesBase(t *testing.T) {
	dir := testenv.Model(t, "base")
	var real []string
	b, err := os.ReadFile(filepath.Join(dir, "vocabulary.json"))
	check(t, err)
	check(t, json.Unmarshal(b, &real))
	check(t, json.Unmarshal(b, &real))
	small, text := tinyVocab(TinyOptions{}.withDefaults())
	if !slices.Equal(small[:text-1], real[:text-1]) {
		t.Error("tiny byte tokens and merges differ from the real vocabulary's first ids")
	}
	if small[text-1] != "" || real[50256] != "" || real[50257] != "<|endoftext|>" {
		t.Error(`"" is not the last text token`)
	}
	if !slices.Equal(small[len(small)-1501:], real[len(real)-1501:]) {
		t.Error("timestamp tokens differ from the real vocabulary")
	}
}

// TestTinyLoadsInCTranslate2 proves the generated directory is a valid model: the real
// CTranslate2 (the venv's wheel) loads it, detects a language and generates, and HF tokenizers
// reads tokenizer.json.
func TestTinyLoadsInCTranslate2(t *testing.T) {
	py := testenv.Python(t)
	if err := exec.Command(py, "-c", "import ctranslate2, tokenizers, numpy").Run(); err != nil {
		testenv.Require(t, "ctranslate2, tokenizers and numpy in the venv", "scripts/pyenv.sh")
	}
	const script = `
import sys, json, numpy as np, ctranslate2, tokenizers
d = sys.argv[1]
m = ctranslate2.models.Whisper(d, device="cpu")
feat = ctranslate2.StorageView.from_array(np.zeros((1, m.n_mels, 3000), np.float32))
langs = [l for l, _ in m.detect_language(feat)[0]] if m.is_multilingual else []
r = m.generate(feat, [["<|startoftranscript|>", "<|en|>", "<|transcribe|>", "<|notimestamps|>"]], max_length=8)[0]
tk = tokenizers.Tokenizer.from_file(d + "/tokenizer.json")
ids = tk.encode(" the cat", add_special_tokens=False).ids
print(json.dumps({"multilingual": m.is_multilingual, "n_mels": m.n_mels, "num_languages": m.num_languages,
  "langs": langs, "generated": len(r.sequences_ids[0]), "ids": ids, "decoded": tk.decode(ids),
  "eot": tk.token_to_id("<|endoftext|>"), "t1": tk.token_to_id("<|1.00|>")}))
`
	tests := []struct {
		name  string
		opt   TinyOptions
		mels  int
		multi bool
	}{
		{"multilingual 80 mels", TinyOptions{}, 80, true},
		{"English-only 128 mels", TinyOptions{NMels: 128, EnglishOnly: true}, 128, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tiny(t, tt.opt)
			out, err := exec.Command(py, "-c", script, dir).Output()
			if err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					t.Fatalf("ctranslate2 rejected the tiny model: %v\n%s", err, ee.Stderr)
				}
				t.Fatal(err)
			}
			var got struct {
				Multilingual bool     `json:"multilingual"`
				NMels        int      `json:"n_mels"`
				NumLanguages int      `json:"num_languages"`
				Langs        []string `json:"langs"`
				Generated    int      `json:"generated"`
				IDs          []int    `json:"ids"`
				Decoded      string   `json:"decoded"`
				EOT, T1      int
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			vocab, text := tinyVocab(tt.opt.withDefaults())
			if got.Multilingual != tt.multi || got.NMels != tt.mels || got.NumLanguages != 5 {
				t.Errorf("ctranslate2 sees %+v, want multilingual=%v n_mels=%d 5 languages", got, tt.multi, tt.mels)
			}
			if tt.multi && len(got.Langs) != 5 {
				t.Errorf("detect_language returned %v, want 5 languages", got.Langs)
			}
			if got.Generated == 0 {
				t.Error("generate returned no tokens")
			}
			// " the cat" = "Ġthe" (merges) + "Ġ" (220, as in GPT-2) + bytes c, a, t.
			if want := []int{264, 220, 'c' - '!', 'a' - '!', 't' - '!'}; !slices.Equal(got.IDs, want) || got.Decoded != " the cat" {
				t.Errorf("tokenizer.json encodes %v → %q, want %v → \" the cat\"", got.IDs, got.Decoded, want)
			}
			if got.EOT != text || vocab[got.T1] != "<|1.00|>" {
				t.Errorf("tokenizer.json ids: eot %d (want %d), <|1.00|> %d", got.EOT, text, got.T1)
			}
		})
	}
}
