package hubtest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/models/hubtest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

// The real download code fetches a real model from the local hub intact.
func TestPullRealModelFromLocalHub(t *testing.T) {
	src := testenv.Model(t, "tiny.en")
	hub := hubtest.New(map[string]string{"Systran/faster-whisper-tiny.en": src})
	defer hub.Close()
	c, err := models.New(models.Options{Dir: t.TempDir(), Endpoint: hub.URL}, testlog.Discard())
	if err != nil {
		t.Fatal(err)
	}
	dir, err := c.Pull(context.Background(), "tiny.en", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"model.bin", "config.json", "vocabulary.txt", "tokenizer.json"} {
		a, _ := os.ReadFile(filepath.Join(src, f))
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || string(a) != string(b) {
			t.Fatalf("%s differs after download (err %v)", f, err)
		}
	}
}
