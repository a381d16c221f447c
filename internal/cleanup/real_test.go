package cleanup

import (
	"context"
	"log/slog"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

// The built-in "clean" instruction through a real OpenAI-compatible server
// and a real (small) instruction model: the fillers go, the words stay.
func TestRealModelCleansADictation(t *testing.T) {
	url := testenv.ChatServer(t)
	// A generous timeout: the point here is the rewrite, and the test
	// machine is shared; TestFaultyServerKeepsTheDictation checks the limit.
	c, err := New(Config{URL: url, Model: testenv.ChatModelName, Timeout: 2 * time.Minute}, testlog.New(t, slog.LevelDebug))
	if err != nil {
		t.Fatal(err)
	}
	clean := config.Defaults().Cleanup.CleanupModes()["clean"]
	res := c.Rewrite(context.Background(), clean, dictated)
	if res.Err != nil {
		t.Fatalf("Rewrite(%q) kept the dictation: %v", dictated, res.Err)
	}
	t.Logf("%q → %q in %v", dictated, res.Text, res.Took)
	words := strings.Fields(strings.ToLower(regexp.MustCompile(`[^\p{L}\s']`).ReplaceAllString(res.Text, " ")))
	for _, filler := range []string{"um", "uh"} {
		if slices.Contains(words, filler) {
			t.Errorf("%q still holds the filler %q", res.Text, filler)
		}
	}
	for _, key := range []string{"meet", "tuesday"} {
		if !slices.Contains(words, key) {
			t.Errorf("%q lost the word %q", res.Text, key)
		}
	}
}

// BenchmarkRealModelCleanup measures the latency a cleanup adds to a
// dictation with the test model: go test -run '^$' -bench RealModelCleanup
// -benchtime 20x ./internal/cleanup/ reports the median and p95.
func BenchmarkRealModelCleanup(b *testing.B) {
	url := testenv.ChatServer(b)
	c, err := New(Config{URL: url, Model: testenv.ChatModelName, Timeout: time.Minute}, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	clean := config.Defaults().Cleanup.CleanupModes()["clean"]
	inputs := []string{dictated, "so the the build is uh failing on the windows runner again",
		"can you um send me the slides before the meeting tomorrow", "I was like thinking we could uh maybe move the launch to Friday"}
	c.Rewrite(context.Background(), clean, inputs[0]) // warm up: the first request loads caches
	var took []time.Duration
	rejected := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		res := c.Rewrite(context.Background(), clean, inputs[i%len(inputs)])
		took = append(took, res.Took)
		if res.Err != nil {
			rejected++
		}
	}
	b.StopTimer()
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "median-ms")
	b.ReportMetric(float64(took[min(len(took)-1, len(took)*95/100)].Milliseconds()), "p95-ms")
	b.ReportMetric(float64(rejected), "kept-as-heard")
}
