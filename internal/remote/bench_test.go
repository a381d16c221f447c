package remote_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/remote"
	"github.com/whisperkey/whisperkey/internal/server"
	"github.com/whisperkey/whisperkey/internal/server/servertest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// BenchmarkRemoteOverhead times a 2 s dictation on the local engine and on
// the same engine behind `serve` on loopback, alternating. overhead_ms is
// what the remote path adds to each request (WAV encoding, HTTP, multipart,
// decoding, queue, JSON): the client's latency minus the time the engine
// took for that same request inside the server, so a busy machine's noise
// in the engine time does not land in it.
func BenchmarkRemoteOverhead(b *testing.B) {
	const text = "Please call me back when you get this."
	eng := openEngine(b)
	timed := &timedEngine{next: eng}
	base, _ := servertest.Start(b, server.Config{}, testlog.Discard(), timed)
	c, err := remote.New(remote.Config{URL: base}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	speech := testenv.Speech(b, text)
	opt := whisper.DefaultOptions()
	opt.Language = "en"
	run := func(tr remote.Transcriber) time.Duration {
		start := time.Now()
		res, err := tr.Transcribe(context.Background(), speech, opt)
		if err != nil {
			b.Fatal(err)
		}
		if wer := whisper.WordErrorRate(text, res.Text); wer > 0.25 {
			b.Fatalf("text %q (WER %.2f)", res.Text, wer)
		}
		return time.Since(start)
	}
	run(eng) // warm both paths
	run(c)
	var local, rem, diff []float64
	b.ResetTimer()
	for range b.N {
		l, r := run(eng), run(c)
		local = append(local, ms(l))
		rem = append(rem, ms(r))
		diff = append(diff, ms(r-timed.last))
	}
	b.ReportMetric(float64(len(speech))/16000, "audio_s")
	b.ReportMetric(median(local), "local_ms")
	b.ReportMetric(median(rem), "remote_ms")
	b.ReportMetric(median(diff), "overhead_ms")
	http.DefaultClient.CloseIdleConnections()
}

// timedEngine measures the real engine's time per call inside the server.
type timedEngine struct {
	next server.Transcriber
	last time.Duration // written by the server's handler before the answer is sent
}

func (e *timedEngine) Transcribe(ctx context.Context, s []float32, o whisper.Options) (*whisper.Result, error) {
	start := time.Now()
	res, err := e.next.Transcribe(ctx, s, o)
	e.last = time.Since(start)
	return res, err
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
