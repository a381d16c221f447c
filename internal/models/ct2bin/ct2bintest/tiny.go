package ct2bintest

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
)

// TinyOptions shape the random-weight model GenerateTiny writes; zero fields mean the defaults.
type TinyOptions struct {
	DModel        int      // default 64
	Heads         int      // default 2
	EncoderLayers int      // default 1
	DecoderLayers int      // default 2
	NMels         int      // default 80; 128 is the large-v3 layout
	Languages     []string // default en, zh, de, es, ru (the first five in Whisper's order)
	EnglishOnly   bool     // leave out the "" token, which is what makes CTranslate2 treat a model as multilingual
	Seed          uint64   // the weights are a pure function of the seed and the shape
}

func (o TinyOptions) withDefaults() TinyOptions {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.DModel, 64)
	def(&o.Heads, 2)
	def(&o.EncoderLayers, 1)
	def(&o.DecoderLayers, 2)
	def(&o.NMels, 80)
	if len(o.Languages) == 0 {
		o.Languages = []string{"en", "zh", "de", "es", "ru"}
	}
	return o
}

// tinyMerges are a few real GPT-2 BPE merges, so an encoder following tokenizer.json merges something.
func tinyMerges() [][2]string {
	return [][2]string{{"Ġ", "t"}, {"Ġ", "a"}, {"Ġt", "h"}, {"i", "n"}, {"e", "r"}, {"Ġ", "w"}, {"Ġ", "s"}, {"o", "u"}, {"Ġth", "e"}}
}

// byteTokens are the 256 byte-level BPE symbols in GPT-2's id order: printable Latin-1 bytes
// stand for themselves, the others map to U+0100 upwards (so a space is "Ġ", id 220).
func byteTokens() []string {
	out, rest := make([]string, 0, 256), []rune{}
	for b := rune(0); b < 256; b++ {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE {
			out = append(out, string(b))
		} else {
			rest = append(rest, b)
		}
	}
	for n := range rest {
		out = append(out, string(rune(256+n)))
	}
	return out
}

// tinyVocab returns the vocabulary in the real models' layout: byte tokens, merges, "" (the
// last text token, multilingual only), specials, then 1501 timestamps; and the text token count.
func tinyVocab(o TinyOptions) ([]string, int) {
	v := byteTokens()
	for _, m := range tinyMerges() {
		v = append(v, m[0]+m[1])
	}
	if !o.EnglishOnly {
		v = append(v, "")
	}
	text := len(v)
	v = append(v, "<|endoftext|>", "<|startoftranscript|>")
	for _, l := range o.Languages {
		v = append(v, "<|"+l+"|>")
	}
	v = append(v, "<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>")
	for i := 0; i <= 1500; i++ {
		v = append(v, fmt.Sprintf("<|%.2f|>", float64(i)*0.02))
	}
	return v, text
}

// tinyVars builds every variable of a Whisper model (engine.md §2) with random float32 weights.
func tinyVars(o TinyOptions, vocab int) ([]Variable, map[string]string) {
	rng := rand.New(rand.NewPCG(o.Seed, 0x5748495350455221))
	d, f := o.DModel, 4*o.DModel
	var vars []Variable
	tensor := func(name string, fill func() float32, shape ...int) {
		n := 1
		for _, s := range shape {
			n *= s
		}
		b := make([]byte, 0, 4*n)
		for range n {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(fill()))
		}
		vars = append(vars, Variable{Name: name, Shape: shape, DType: ct2bin.Float32, Data: b})
	}
	rnd := func() float32 { return float32(rng.NormFloat64() * 0.02) }
	one := func() float32 { return 1 }
	zero := func() float32 { return 0 }
	scalar := func(name string, dt ct2bin.DType, v int) {
		b := binary.LittleEndian.AppendUint16(nil, uint16(int16(v)))
		vars = append(vars, Variable{Name: name, Shape: []int{}, DType: dt, Data: b[:dt.Size()]})
	}
	norm := func(p string) { tensor(p+"/gamma", one, d); tensor(p+"/beta", zero, d) }
	linear := func(p string, out, in int) { tensor(p+"/weight", rnd, out, in); tensor(p+"/bias", rnd, out) }
	// The sublayers encoder and decoder layers share, in model.bin's order.
	selfAttention := func(p string) {
		norm(p + "self_attention/layer_norm")
		linear(p+"self_attention/linear_0", 3*d, d)
		linear(p+"self_attention/linear_1", d, d)
	}
	ffn := func(p string) {
		norm(p + "ffn/layer_norm")
		linear(p+"ffn/linear_0", f, d)
		linear(p+"ffn/linear_1", d, f)
	}

	scalar("encoder/num_heads", ct2bin.Int16, o.Heads)
	tensor("encoder/conv1/weight", rnd, d, o.NMels, 3)
	tensor("encoder/conv1/bias", rnd, d)
	tensor("encoder/conv2/weight", rnd, d, d, 3)
	tensor("encoder/conv2/bias", rnd, d)
	tensor("encoder/position_encodings/encodings", rnd, 1500, d)
	norm("encoder/layer_norm")
	for i := range o.EncoderLayers {
		p := fmt.Sprintf("encoder/layer_%d/", i)
		selfAttention(p)
		ffn(p)
	}
	// Every decoder scalar is written: CTranslate2's defaults for missing ones (ReLU, √d
	// embedding scale) would silently change the network.
	scalar("decoder/num_heads", ct2bin.Int16, o.Heads)
	scalar("decoder/pre_norm", ct2bin.Int8, 1)
	scalar("decoder/activation", ct2bin.Int8, 3) // GELU
	scalar("decoder/alignment_layer", ct2bin.Int16, -1)
	scalar("decoder/alignment_heads", ct2bin.Int16, 1)
	scalar("decoder/scale_embeddings", ct2bin.Int8, 0)
	scalar("decoder/alibi", ct2bin.Int8, 0)
	scalar("decoder/alibi_use_positive_positions", ct2bin.Int8, 0)
	scalar("decoder/scale_alibi", ct2bin.Int8, 0)
	scalar("decoder/start_from_zero_embedding", ct2bin.Int8, 0)
	tensor("decoder/embeddings/weight", rnd, vocab, d)
	tensor("decoder/position_encodings/encodings", rnd, 448, d)
	norm("decoder/layer_norm")
	for j := range o.DecoderLayers {
		p := fmt.Sprintf("decoder/layer_%d/", j)
		selfAttention(p)
		norm(p + "attention/layer_norm")
		linear(p+"attention/linear_0", d, d)
		linear(p+"attention/linear_1", 2*d, d)
		linear(p+"attention/linear_2", d, d)
		ffn(p)
	}
	return vars, map[string]string{"decoder/projection/weight": "decoder/embeddings/weight"}
}

// Variables are the model.bin variables and aliases GenerateTiny writes for opt, for a test
// that changes some before WriteModel.
func Variables(opt TinyOptions) ([]Variable, map[string]string) {
	o := opt.withDefaults()
	vocab, _ := tinyVocab(o)
	return tinyVars(o, len(vocab))
}

// GenerateTiny writes a complete random-weight CTranslate2 Whisper directory into dir:
// model.bin, config.json, vocabulary.json, a byte-level BPE tokenizer.json and
// preprocessor_config.json. The same options always give the same bytes.
func GenerateTiny(dir string, opt TinyOptions) error {
	o := opt.withDefaults()
	if o.DModel < 0 || o.Heads < 0 || o.EncoderLayers < 0 || o.DecoderLayers < 0 || o.NMels < 0 || o.DModel%o.Heads != 0 {
		return fmt.Errorf("tiny model: d_model %d must be a positive multiple of heads %d, and layers and mels positive", o.DModel, o.Heads)
	}
	vocab, text := tinyVocab(o)
	id := make(map[string]int, len(vocab))
	for i, t := range vocab {
		if _, dup := id[t]; !dup {
			id[t] = i
		}
	}
	if len(id) != len(vocab) {
		return fmt.Errorf("tiny model: languages %v repeat or clash with other tokens", o.Languages)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tiny model: %w", err)
	}

	vars, aliases := tinyVars(o, len(vocab))
	mf, err := os.Create(filepath.Join(dir, "model.bin"))
	if err != nil {
		return fmt.Errorf("tiny model: %w", err)
	}
	err = WriteModel(mf, vars, aliases)
	if cerr := mf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("tiny model: %w", err)
	}

	// config.json as the converter writes it: sorted keys; alignment heads are every head of
	// the last half of the decoder layers (its fallback), at least one layer.
	var heads [][2]int
	for l := o.DecoderLayers - max(1, o.DecoderLayers/2); l < o.DecoderLayers; l++ {
		for h := range o.Heads {
			heads = append(heads, [2]int{l, h})
		}
	}
	var langIDs, suppress []int
	for _, l := range o.Languages {
		langIDs = append(langIDs, id["<|"+l+"|>"])
	}
	for _, c := range `"#()*+/:;<=>@[\]^_{|}~` {
		suppress = append(suppress, id[string(c)])
	}
	config := struct {
		AlignmentHeads   [][2]int `json:"alignment_heads"`
		LangIDs          []int    `json:"lang_ids"`
		SuppressIDs      []int    `json:"suppress_ids"`
		SuppressIDsBegin []int    `json:"suppress_ids_begin"`
	}{heads, langIDs, suppress, []int{id["Ġ"], id["<|endoftext|>"]}}

	pre := map[string]any{
		"chunk_length": 30, "feature_extractor_type": "WhisperFeatureExtractor", "feature_size": o.NMels,
		"hop_length": 160, "n_fft": 400, "n_samples": 480000, "nb_max_frames": 3000, "padding_side": "right",
		"padding_value": 0.0, "processor_class": "WhisperProcessor", "return_attention_mask": false, "sampling_rate": 16000,
	}

	// tokenizer.json for HF tokenizers: byte-level BPE over the text tokens, everything after
	// them added tokens (timestamps normalized and not special, as in the real files).
	type added struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	}
	bpe, addedToks := map[string]int{}, []added{}
	for i, t := range vocab {
		if i < text {
			bpe[t] = i
		} else {
			ts := strings.HasPrefix(t, "<|") && t[2] >= '0' && t[2] <= '9'
			addedToks = append(addedToks, added{ID: i, Content: t, Normalized: ts, Special: !ts})
		}
	}
	byteLevel := func(prefix bool) map[string]any {
		return map[string]any{"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": true, "use_regex": true}
	}
	tok := map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "added_tokens": addedToks, "normalizer": nil,
		"pre_tokenizer": byteLevel(false), "post_processor": nil, "decoder": byteLevel(true),
		"model": map[string]any{
			"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "", "end_of_word_suffix": "",
			"fuse_unk": false, "byte_fallback": false, "ignore_merges": false, "vocab": bpe, "merges": tinyMerges(),
		},
	}
	for name, v := range map[string]any{"config.json": config, "vocabulary.json": vocab, "preprocessor_config.json": pre, "tokenizer.json": tok} {
		if err := writeJSON(filepath.Join(dir, name), v); err != nil {
			return fmt.Errorf("tiny model: %w", err)
		}
	}
	return nil
}

func writeJSON(path string, v any) error {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false) // keep "<|endoftext|>" readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(sb.String()), 0o644)
}
