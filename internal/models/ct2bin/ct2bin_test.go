package ct2bin_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin/ct2bintest"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

func tiny(t *testing.T, opt ct2bintest.TinyOptions) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := ct2bintest.GenerateTiny(dir, opt); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Inspect reads back what the generator writes, shape for shape.
func TestInspectTiny(t *testing.T) {
	tests := []struct {
		name string
		opt  ct2bintest.TinyOptions
		want ct2bin.Info
	}{
		{"defaults", ct2bintest.TinyOptions{}, ct2bin.Info{BinaryVersion: 6, Spec: "WhisperSpec", Revision: 3, NMels: 80, DModel: 64,
			EncoderLayers: 1, DecoderLayers: 2, Heads: 2, VocabSize: 256 + 9 + 1 + 2 + 5 + 6 + 1501, Multilingual: true, DType: "float32", Variables: 74}},
		{"128 mels English-only", ct2bintest.TinyOptions{NMels: 128, EnglishOnly: true, Languages: []string{"en"}, DModel: 32, Heads: 4, EncoderLayers: 2, DecoderLayers: 1},
			ct2bin.Info{BinaryVersion: 6, Spec: "WhisperSpec", Revision: 3, NMels: 128, DModel: 32, EncoderLayers: 2, DecoderLayers: 1, Heads: 4,
				VocabSize: 256 + 9 + 2 + 1 + 6 + 1501, DType: "float32", Variables: 8 + 12*2 + 14 + 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tiny(t, tt.opt)
			got, err := ct2bin.Inspect(dir)
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(filepath.Join(dir, "model.bin"))
			check(t, err)
			tt.want.Bytes = st.Size()
			if *got != tt.want {
				t.Errorf("Inspect = %+v\nwant      %+v", *got, tt.want)
			}
		})
	}
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestInspectInvalid(t *testing.T) {
	patch := func(off int, b ...byte) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, "model.bin")
			data, err := os.ReadFile(p)
			check(t, err)
			copy(data[off:], b)
			check(t, os.WriteFile(p, data, 0o644))
		}
	}
	truncate := func(at func(size int64) int64) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, "model.bin")
			st, err := os.Stat(p)
			check(t, err)
			check(t, os.Truncate(p, at(st.Size())))
		}
	}
	write := func(name, content string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			check(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
		}
	}
	remove := func(name string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) { check(t, os.Remove(filepath.Join(dir, name))) }
	}
	rewriteModel := func(edit func([]ct2bintest.Variable, map[string]string) []ct2bintest.Variable) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			vars, aliases := ct2bintest.Variables(ct2bintest.TinyOptions{})
			vars = edit(vars, aliases)
			var buf bytes.Buffer
			check(t, ct2bintest.WriteModel(&buf, vars, aliases))
			check(t, os.WriteFile(filepath.Join(dir, "model.bin"), buf.Bytes(), 0o644))
		}
	}
	editVocab := func(edit func([]string) []string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, "vocabulary.json")
			var v []string
			b, err := os.ReadFile(p)
			check(t, err)
			check(t, json.Unmarshal(b, &v))
			b, err = json.Marshal(edit(v))
			check(t, err)
			check(t, os.WriteFile(p, b, 0o644))
		}
	}
	// The first variable is decoder/activation: name at 26, rank 47, dtype 48, byte count 49.
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // breaks the fresh valid tiny model in dir
		dir   func(dir string) string        // the path given to Inspect, when not dir
		want  []string
	}{
		{name: "directory missing", dir: func(d string) string { return d + "-nope" },
			want: []string{"-nope does not exist", "whisperkey models pull NAME", "--model"}},
		{name: "path is a file", dir: func(d string) string { return filepath.Join(d, "config.json") },
			want: []string{"config.json is a file, not a directory"}},
		{name: "no model.bin", setup: remove("model.bin"), want: []string{"has no model.bin"}},
		{name: "model.bin is a directory", setup: func(t *testing.T, dir string) {
			check(t, os.Remove(filepath.Join(dir, "model.bin")))
			check(t, os.Mkdir(filepath.Join(dir, "model.bin"), 0o755))
		}, want: []string{"model.bin is not a regular file"}},
		{name: "empty model.bin", setup: write("model.bin", ""), want: []string{"model.bin is too short (0 bytes)"}},
		{name: "text file", setup: write("model.bin", "version https://git-lfs.github.com/spec/v1\noid sha256:0\n"),
			want: []string{"model.bin is not a CTranslate2 model file", `"version https://git-lfs`}},
		{name: "binary version 7", setup: patch(0, 7), want: []string{"binary version 7, newer than 6"}},
		{name: "binary version 3", setup: patch(0, 3), want: []string{"binary version 3, older than 4"}},
		{name: "other spec", setup: patch(6, []byte("OtherXXSpec")...), want: []string{`holds a "OtherXXSpec" model, not a Whisper model`}},
		{name: "revision 4", setup: patch(18, 4), want: []string{"WhisperSpec revision 4, newer than 3"}},
		{name: "truncated in spec", setup: truncate(func(int64) int64 { return 10 }), want: []string{"model.bin is truncated (10 of 18 bytes) — re-download"}},
		{name: "truncated in first name", setup: truncate(func(int64) int64 { return 30 }), want: []string{"model.bin is truncated (30 of 47 bytes)"}},
		{name: "truncated in data", setup: truncate(func(s int64) int64 { return s / 2 }), want: []string{"model.bin is truncated (9020", " of "}},
		{name: "truncated in aliases", setup: truncate(func(s int64) int64 { return s - 1 }), want: []string{"model.bin is truncated (1804158 of 1804159 bytes)"}},
		{name: "trailing garbage", setup: func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, "model.bin"), os.O_APPEND|os.O_WRONLY, 0)
			check(t, err)
			_, err = f.WriteString("junk")
			check(t, err)
			check(t, f.Close())
		}, want: []string{"4 unexpected bytes after the end of the model (offset 1804159)"}},
		{name: "unknown dtype", setup: patch(48, 9), want: []string{`"decoder/activation" has unknown dtype id 9`}},
		{name: "byte count mismatch", setup: patch(49, 2), want: []string{`"decoder/activation" of shape [] int8 needs 1 bytes but declares 2`}},
		{name: "missing activation scalar", setup: rewriteModel(func(v []ct2bintest.Variable, _ map[string]string) []ct2bintest.Variable {
			return slices.DeleteFunc(v, func(v ct2bintest.Variable) bool { return v.Name == "decoder/activation" })
		}), want: []string{`lacks variable "decoder/activation"`}},
		{name: "zero attention heads", setup: rewriteModel(func(v []ct2bintest.Variable, _ map[string]string) []ct2bintest.Variable {
			for i := range v {
				if v[i].Name == "decoder/num_heads" {
					v[i].Data = []byte{0, 0}
				}
			}
			return v
		}), want: []string{`decoder/num_heads is 0`, "at least one attention head", "re-download or reconvert"}},
		{name: "heads not dividing d_model", setup: rewriteModel(func(v []ct2bintest.Variable, _ map[string]string) []ct2bintest.Variable {
			for i := range v {
				if v[i].Name == "encoder/num_heads" {
					v[i].Data = []byte{3, 0}
				}
			}
			return v
		}), want: []string{`encoder/num_heads is 3`, "d_model 64"}},
		{name: "no projection alias", setup: rewriteModel(func(v []ct2bintest.Variable, a map[string]string) []ct2bintest.Variable { clear(a); return v }),
			want: []string{`lacks variable "decoder/projection/weight"`}},
		{name: "alias to missing variable", setup: rewriteModel(func(v []ct2bintest.Variable, a map[string]string) []ct2bintest.Variable {
			a["decoder/projection/weight"] = "decoder/nothing"
			return v
		}), want: []string{`alias "decoder/projection/weight" points to missing variable "decoder/nothing"`}},
		{name: "no config.json", setup: remove("config.json"), want: []string{"has no config.json", "alignment_heads, lang_ids"}},
		{name: "config.json not JSON", setup: write("config.json", "{"), want: []string{"config.json is not a JSON object"}},
		{name: "config.json lacks lang_ids", setup: write("config.json", `{"alignment_heads":[],"suppress_ids":[],"suppress_ids_begin":[]}`),
			want: []string{`config.json lacks "lang_ids"`}},
		// lang_ids is what language detection chooses among (issue 27 item 11).
		{name: "lang_ids empty", setup: write("config.json", `{"alignment_heads":[],"lang_ids":[],"suppress_ids":[],"suppress_ids_begin":[]}`),
			want: []string{"lang_ids is empty"}},
		{name: "lang_ids not a language", setup: write("config.json", `{"alignment_heads":[],"lang_ids":[1],"suppress_ids":[],"suppress_ids_begin":[]}`),
			want: []string{"lang_ids holds 1, which is the token", "not a language"}},
		{name: "lang_ids negative", setup: write("config.json", `{"alignment_heads":[],"lang_ids":[-3],"suppress_ids":[],"suppress_ids_begin":[]}`),
			want: []string{"lang_ids holds -3, outside the vocabulary"}},
		{name: "lang_ids a string", setup: write("config.json", `{"alignment_heads":[],"lang_ids":"x","suppress_ids":[],"suppress_ids_begin":[]}`),
			want: []string{"lang_ids is not a list of token ids"}},
		{name: "no vocabulary", setup: remove("vocabulary.json"), want: []string{"has no vocabulary.json (or vocabulary.txt)"}},
		{name: "vocabulary not an array", setup: write("vocabulary.json", `{"a":1}`), want: []string{"vocabulary.json is not a JSON array of strings"}},
		{name: "vocabulary short", setup: editVocab(func(v []string) []string { return v[:len(v)-3] }),
			want: []string{"vocabulary.json has 1777 tokens but model.bin's decoder/embeddings/weight has 1780 rows"}},
		{name: "vocabulary lacks notimestamps", setup: editVocab(func(v []string) []string {
			v[slices.Index(v, "<|notimestamps|>")] = "x"
			return v
		}), want: []string{`lacks the special token "<|notimestamps|>"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tiny(t, ct2bintest.TinyOptions{})
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			if tt.dir != nil {
				dir = tt.dir(dir)
			}
			info, err := ct2bin.Inspect(dir)
			if err == nil {
				t.Fatalf("Inspect = %+v, want an error", info)
			}
			if !errors.Is(err, ct2bin.ErrInvalidModel) {
				t.Errorf("error %q is not ct2bin.ErrInvalidModel", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error has more than one line: %q", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestInspectVocabularyTxt(t *testing.T) {
	tests := []struct {
		name, eol string
	}{{"LF", "\n"}, {"CRLF", "\r\n"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tiny(t, ct2bintest.TinyOptions{})
			var v []string
			b, err := os.ReadFile(filepath.Join(dir, "vocabulary.json"))
			check(t, err)
			check(t, json.Unmarshal(b, &v))
			check(t, os.Remove(filepath.Join(dir, "vocabulary.json")))
			check(t, os.WriteFile(filepath.Join(dir, "vocabulary.txt"), []byte(strings.Join(v, tt.eol)+tt.eol), 0o644))
			info, err := ct2bin.Inspect(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !info.Multilingual || info.VocabSize != len(v) {
				t.Errorf("Inspect = %+v, want multilingual with %d tokens", info, len(v))
			}
		})
	}
}

func TestInspectRealBase(t *testing.T) {
	dir := testenv.Model(t, "base")
	got, err := ct2bin.Inspect(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "model.bin"))
	check(t, err)
	want := ct2bin.Info{BinaryVersion: 6, Spec: "WhisperSpec", Revision: 3, NMels: 80, DModel: 512, EncoderLayers: 6, DecoderLayers: 6,
		Heads: 8, VocabSize: 51865, Multilingual: true, DType: "float16", Variables: 214, Bytes: st.Size()}
	if *got != want {
		t.Errorf("Inspect = %+v\nwant      %+v", *got, want)
	}
}
