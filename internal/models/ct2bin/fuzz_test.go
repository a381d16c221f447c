package ct2bin_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin/ct2bintest"
)

// FuzzInspectModelBin gives Inspect arbitrary model.bin bytes beside a valid
// config and vocabulary: it never panics, reports problems as one line, and
// what it accepts has the facts the engine divides by.
func FuzzInspectModelBin(f *testing.F) {
	base := f.TempDir()
	if err := ct2bintest.GenerateTiny(base, ct2bintest.TinyOptions{}); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(base, "model.bin"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{6, 0, 0, 0})
	f.Fuzz(func(t *testing.T, bin []byte) {
		dir := t.TempDir()
		for _, name := range []string{"config.json", "vocabulary.json"} {
			if err := os.Link(filepath.Join(base, name), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "model.bin"), bin, 0o644); err != nil {
			t.Fatal(err)
		}
		info, err := ct2bin.Inspect(dir)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if info.Heads < 1 || info.DModel%info.Heads != 0 || info.NMels < 1 || info.VocabSize < 1 {
			t.Fatalf("accepted a model the engine cannot load: %+v", info)
		}
	})
}
