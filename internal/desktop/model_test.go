package desktop

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// A dictation that reaches the local engine while a model load is pending
// says so once, waits for the load and is transcribed; without a load it
// goes straight through; a dictation given up (the app quits) stops waiting.
func TestGatedEngineWaitsForTheLoad(t *testing.T) {
	tests := []struct {
		name     string
		loading  bool
		cancel   bool
		wantWait bool
		wantErr  error
	}{
		{name: "no load"},
		{name: "load pending", loading: true, wantWait: true},
		{name: "given up while waiting", loading: true, cancel: true, wantWait: true, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g modelGate
			var waited atomic.Int32
			e := &gatedEngine{Engine: &namedEngine{name: "text"}, gate: &g, waiting: func() { waited.Add(1) }}
			if tt.loading {
				g.begin()
				g.begin() // a second job while the first runs: still one gate
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type answer struct {
				text string
				err  error
			}
			done := make(chan answer, 1)
			go func() {
				r, err := e.Transcribe(ctx, nil, whisper.DefaultOptions())
				if err != nil {
					done <- answer{err: err}
					return
				}
				done <- answer{text: r.Text}
			}()
			if tt.loading {
				select {
				case a := <-done:
					t.Fatalf("transcribed during the load: %+v", a)
				case <-time.After(100 * time.Millisecond):
				}
				if tt.cancel {
					cancel()
				} else {
					g.end()
				}
			}
			a := <-done
			if !errors.Is(a.err, tt.wantErr) || (tt.wantErr == nil && a.text != "text") {
				t.Fatalf("got %+v, want text or %v", a, tt.wantErr)
			}
			if got := waited.Load() == 1; got != tt.wantWait {
				t.Errorf("told the user %d times, want a notice: %v", waited.Load(), tt.wantWait)
			}
			if g.pending() != nil && !tt.loading {
				t.Error("the gate is busy with no load")
			}
		})
	}
}
