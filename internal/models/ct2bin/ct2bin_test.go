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
	forge := func(f ct2bintest.Forgery) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) { check(t, ct2bintest.Forge(dir, ct2bintest.TinyOptions{}, f)) }
	}
	editVar := func(name string, edit func(v *ct2bintest.Variable)) func(t *testing.T, dir string) {
		return rewriteModel(func(v []ct2bintest.Variable, _ map[string]string) []ct2bintest.Variable {
			edit(&v[slices.IndexFunc(v, func(v ct2bintest.Variable) bool { return v.Name == name })])
			return v
		})
	}
	config := func(extra string) func(t *testing.T, dir string) {
		return write("config.json", `{"lang_ids":[266,267,268,269,270],"suppress_ids":[1],"suppress_ids_begin":[220]`+extra+`}`)
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
		// Issue 50: what CTranslate2 indexes or multiplies unchecked, and files over their caps.
		{name: "forged: " + string(ct2bintest.AlignmentHeadsPastLayers), setup: forge(ct2bintest.AlignmentHeadsPastLayers),
			want: []string{"alignment_heads holds [1073741824, 0], but the model's decoder has layers 0-1 and heads 0-1", "re-download"}},
		{name: "forged: " + string(ct2bintest.ProjectionShape), setup: forge(ct2bintest.ProjectionShape),
			want: []string{`variable "decoder/projection/weight" has shape [890 64]`, "call for [1780 64]"}},
		{name: "forged: " + string(ct2bintest.SwappedShapes), setup: forge(ct2bintest.SwappedShapes),
			want: []string{`variable "decoder/layer_0/ffn/linear_0/weight" has shape [64 256]`, "call for [256 64]"}},
		{name: "forged: " + string(ct2bintest.ConfigInvalidUTF8), setup: forge(ct2bintest.ConfigInvalidUTF8),
			want: []string{"config.json holds bytes that are not UTF-8 (at byte 13), which CTranslate2 cannot read"}},
		{name: "forged: " + string(ct2bintest.NMels240), setup: forge(ct2bintest.NMels240),
			want: []string{"takes 240 mel bins, but Whisper models take 80 (tiny to large-v2) or 128"}},
		{name: "alignment head past the heads", setup: config(`,"alignment_heads":[[1,2]]`), want: []string{"holds [1, 2], but the model's decoder has layers 0-1 and heads 0-1"}},
		{name: "alignment head not a pair", setup: config(`,"alignment_heads":[[1]]`), want: []string{"alignment_heads holds [1], not a [layer, head] pair"}},
		{name: "alignment head twice", setup: config(`,"alignment_heads":[[1,0],[1,0]]`), want: []string{"alignment_heads holds [1, 0] twice"}},
		{name: "alignment heads not numbers", setup: config(`,"alignment_heads":"all"`), want: []string{"alignment_heads is not a list"}},
		{name: "suppressed id past the vocabulary", setup: write("config.json", `{"alignment_heads":[],"lang_ids":[266],"suppress_ids":[1780],"suppress_ids_begin":[]}`),
			want: []string{"suppress_ids holds 1780, outside the vocabulary of 1780 tokens"}},
		{name: "suppressed id negative", setup: write("config.json", `{"alignment_heads":[],"lang_ids":[266],"suppress_ids":[],"suppress_ids_begin":[-1]}`),
			want: []string{"suppress_ids_begin holds -1"}},
		{name: "lone UTF-16 surrogate", setup: config(`,"alignment_heads":[],"note":"\ud800x"`), want: []string{`holds \uD800, half of a UTF-16 pair, alone`}},
		{name: "low surrogate first", setup: config(`,"alignment_heads":[],"note":"\udc00\ud800"`), want: []string{`holds \uDC00`}},
		{name: "config.json over its cap", setup: func(t *testing.T, dir string) { check(t, os.Truncate(filepath.Join(dir, "config.json"), 2<<20)) },
			want: []string{"config.json is 2.0 MiB, more than the 1.0 MiB any Whisper model's config.json is", "re-download"}},
		{name: "vocabulary.json over its cap", setup: func(t *testing.T, dir string) { check(t, os.Truncate(filepath.Join(dir, "vocabulary.json"), 4<<30)) },
			want: []string{"vocabulary.json is 4.0 GiB, more than the 16.0 MiB"}},
		{name: "vocabulary.json not UTF-8", setup: write("vocabulary.json", "[\"\xff\"]"), want: []string{"vocabulary.json holds bytes that are not UTF-8 (at byte 2)"}},
		{name: "alignment layer past the layers", setup: editVar("decoder/alignment_layer", func(v *ct2bintest.Variable) { v.Data = []byte{2, 0} }),
			want: []string{"decoder/alignment_layer is 2, outside the decoder's 2 layers"}},
		{name: "more alignment heads than heads", setup: editVar("decoder/alignment_heads", func(v *ct2bintest.Variable) { v.Data = []byte{3, 0} }),
			want: []string{"decoder/alignment_heads is 3, but the decoder has 2 heads"}},
		{name: "int8 weight without its scale", setup: editVar("encoder/layer_0/ffn/linear_1/weight", func(v *ct2bintest.Variable) {
			v.DType, v.Data = ct2bin.Int8, v.Data[:len(v.Data)/4]
		}), want: []string{`the int8 weight "encoder/layer_0/ffn/linear_1/weight" has no "encoder/layer_0/ffn/linear_1/weight_scale"`}},
		{name: "few decoder positions", setup: editVar("decoder/position_encodings/encodings", func(v *ct2bintest.Variable) {
			v.Shape, v.Data = []int{100, 64}, v.Data[:100*64*4]
		}), want: []string{`"decoder/position_encodings/encodings" has shape [100 64], but a Whisper model needs [at least 448, d_model 64]`}},
		{name: "a missing decoder layer", setup: rewriteModel(func(v []ct2bintest.Variable, _ map[string]string) []ct2bintest.Variable {
			for i := range v {
				v[i].Name = strings.Replace(v[i].Name, "decoder/layer_1/", "decoder/layer_2/", 1)
			}
			return v
		}), want: []string{`lacks variable "decoder/layer_1/self_attention/layer_norm/gamma"`}},
		{name: "a bias of the wrong shape", setup: editVar("decoder/layer_1/attention/linear_1/bias", func(v *ct2bintest.Variable) {
			v.Shape, v.Data = []int{64}, v.Data[:64*4]
		}), want: []string{`"decoder/layer_1/attention/linear_1/bias" has shape [64]`, "call for [128]"}},
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

// What CTranslate2 takes passes: a UTF-16 pair, escaped backslashes, an
// int8 weight with its scale, every head of every decoder layer.
func TestInspectAccepts(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"a UTF-16 pair", func(t *testing.T, dir string) {
			check(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"note":"\\ud800 \ud83d\ude00","alignment_heads":[[0,0],[0,1],[1,0],[1,1]],"lang_ids":[266],"suppress_ids":[0,1779],"suppress_ids_begin":[]}`), 0o644))
		}},
		{"an int8 weight with its scale", func(t *testing.T, dir string) {
			vars, aliases := ct2bintest.Variables(ct2bintest.TinyOptions{})
			i := slices.IndexFunc(vars, func(v ct2bintest.Variable) bool { return v.Name == "encoder/conv1/weight" })
			vars[i].DType, vars[i].Data = ct2bin.Int8, vars[i].Data[:len(vars[i].Data)/4]
			vars = append(vars, ct2bintest.Variable{Name: "encoder/conv1/weight_scale", Shape: []int{64}, DType: ct2bin.Float32, Data: make([]byte, 64*4)})
			var buf bytes.Buffer
			check(t, ct2bintest.WriteModel(&buf, vars, aliases))
			check(t, os.WriteFile(filepath.Join(dir, "model.bin"), buf.Bytes(), 0o644))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tiny(t, ct2bintest.TinyOptions{})
			tt.setup(t, dir)
			if _, err := ct2bin.Inspect(dir); err != nil {
				t.Fatal(err)
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
