package ct2bintest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Forgery is one way a hostile model differs from GenerateTiny's: each is a
// model that passed the import check of the first releases and failed or
// crashed the engine worker only later (issue #50).
type Forgery string

// The forgeries Forge makes.
const (
	// AlignmentHeadsPastLayers: config.json times words on decoder layer
	// 2^30 of 2 (the worker segfaults on every word-timestamp request).
	AlignmentHeadsPastLayers Forgery = "alignment heads past the layers"
	// ProjectionShape: decoder/projection/weight is its own tensor with
	// too few rows for the vocabulary (the worker aborts on every decode).
	ProjectionShape Forgery = "projection of the wrong shape"
	// SwappedShapes: decoder layer 0's ffn/linear_0 weight is [d, 4d]
	// instead of [4d, d], the same bytes.
	SwappedShapes Forgery = "swapped tensor shapes"
	// BrokenTokenizer: tokenizer.json cut off in the middle.
	BrokenTokenizer Forgery = "broken tokenizer.json"
	// ConfigInvalidUTF8: config.json holds a string with bytes that are not UTF-8.
	ConfigInvalidUTF8 Forgery = "config.json with invalid UTF-8"
	// NMels240: the encoder's first convolution takes 240 mel bins, which
	// no Whisper model has (80 or 128).
	NMels240 Forgery = "240 mel bins"
)

// Forgeries lists every Forgery.
func Forgeries() []Forgery {
	return []Forgery{AlignmentHeadsPastLayers, ProjectionShape, SwappedShapes, BrokenTokenizer, ConfigInvalidUTF8, NMels240}
}

// Forge writes GenerateTiny's model for opt into dir with forgery f.
func Forge(dir string, opt TinyOptions, f Forgery) error {
	o := opt.withDefaults()
	if f == NMels240 {
		o.NMels = 240
	}
	if err := GenerateTiny(dir, o); err != nil {
		return err
	}
	switch f {
	case AlignmentHeadsPastLayers:
		return editConfig(dir, func(c map[string]any) { c["alignment_heads"] = [][2]int{{1 << 30, 0}} })
	case ConfigInvalidUTF8:
		b, err := os.ReadFile(filepath.Join(dir, "config.json"))
		if err != nil {
			return fmt.Errorf("forge: %w", err)
		}
		b = append([]byte(`{"note": "caf`+"\xe9\xff"+`", `), b[1:]...)
		return os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644)
	case BrokenTokenizer:
		p := filepath.Join(dir, "tokenizer.json")
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("forge: %w", err)
		}
		return os.Truncate(p, st.Size()/2)
	case ProjectionShape, SwappedShapes:
		vars, aliases := Variables(o)
		if f == ProjectionShape {
			delete(aliases, "decoder/projection/weight")
			emb := vars[slices.IndexFunc(vars, func(v Variable) bool { return v.Name == "decoder/embeddings/weight" })]
			rows := emb.Shape[0] / 2
			vars = append(vars, Variable{Name: "decoder/projection/weight", Shape: []int{rows, o.DModel}, DType: emb.DType,
				Data: emb.Data[:rows*o.DModel*emb.DType.Size()]})
		} else {
			i := slices.IndexFunc(vars, func(v Variable) bool { return v.Name == "decoder/layer_0/ffn/linear_0/weight" })
			vars[i].Shape = []int{vars[i].Shape[1], vars[i].Shape[0]}
		}
		mf, err := os.Create(filepath.Join(dir, "model.bin"))
		if err != nil {
			return fmt.Errorf("forge: %w", err)
		}
		err = WriteModel(mf, vars, aliases)
		if cerr := mf.Close(); err == nil {
			err = cerr
		}
		return err
	case NMels240:
		return nil
	}
	return fmt.Errorf("forge: unknown forgery %q", f)
}

// editConfig rewrites dir's config.json through edit.
func editConfig(dir string, edit func(map[string]any)) error {
	p := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("forge: %w", err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		return fmt.Errorf("forge: %s: %w", p, err)
	}
	edit(c)
	return writeJSON(p, c)
}
