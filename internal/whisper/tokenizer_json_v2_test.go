//go:build goexperiment.jsonv2

package whisper

import (
	"bytes"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"fmt"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
)

// jsonV2Parsers, with GOEXPERIMENT=jsonv2, are encoding/json/v2 and a
// streaming walk of jsontext's tokens.
func jsonV2Parsers() []jsonParser {
	return []jsonParser{{"v2", parseBPEFileV2}, {"jsontext", parseBPEFileJSONText}}
}

// UnmarshalJSONFrom lets v2 read a merge without going through v1.
func (m *stdlibMerge) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	return m.decode(v, unmarshalV2)
}

func parseBPEFileV2(path string) (*bpeFile, error) { return parseBPEFileWith(path, unmarshalV2) }

func unmarshalV2(b []byte, out any) error { return jsonv2.Unmarshal(b, out) }

// parseBPEFileJSONText walks the token stream, decoding into values only
// what it keeps, as a streaming decoder is used.
func parseBPEFileJSONText(path string) (*bpeFile, error) {
	data, err := ct2bin.ReadModelFile(path)
	if err != nil {
		return nil, err
	}
	f := &bpeFile{path: path, added: map[string]int{}}
	d := jsontext.NewDecoder(bytes.NewReader(data))
	// object reads {, then calls fn with each key (fn consumes the value), then }.
	object := func(fn func(key string) error) error {
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		for d.PeekKind() != '}' {
			k, err := d.ReadToken()
			if err != nil {
				return err
			}
			if err := fn(k.String()); err != nil {
				return err
			}
		}
		_, err := d.ReadToken()
		return err
	}
	err = object(func(key string) error {
		switch key {
		case "model":
			return object(func(key string) error {
				switch key {
				case "vocab":
					return object(func(tok string) error {
						v, err := d.ReadToken()
						f.toks, f.ids = append(f.toks, []byte(tok)), append(f.ids, int(v.Int()))
						return err
					})
				case "merges":
					var merges []stdlibMerge
					if err := jsonv2.UnmarshalDecode(d, &merges); err != nil {
						return err
					}
					for _, m := range merges {
						f.merges = append(f.merges, m)
					}
					return nil
				}
				return d.SkipValue()
			})
		case "added_tokens":
			var doc tokenizerDoc
			if err := jsonv2.UnmarshalDecode(d, &doc.AddedTokens); err != nil {
				return err
			}
			f.added = doc.bpeFile(path).added
			return nil
		}
		return d.SkipValue()
	})
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return f, nil
}
