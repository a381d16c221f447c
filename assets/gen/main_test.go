package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The committed assets must be what the generator writes now: this checks
// that it is deterministic and that nobody changed one without the other.
func TestCommittedAssetsAreCurrent(t *testing.T) {
	files, err := render()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("read committed %s: %v (run go generate ./assets)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("assets/%s differs from the generator's output (run go generate ./assets)", name)
		}
	}
}
