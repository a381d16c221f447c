package whisper

import (
	"context"
	"errors"
	"testing"
)

// A yielding transcription stops before its next engine call once its
// context ends, and never hands the engine a context that can end mid-call
// (ending one kills the engine worker); any other transcription's engine
// calls end with its context, as before.
func TestEngineContext(t *testing.T) {
	cases := []struct {
		name      string
		yielding  bool
		cancelled bool
		wantErr   bool
		callEnds  bool // the engine call's context ends when the caller's does
	}{
		{"plain", false, false, false, true},
		{"plain, ended: the call is cut short", false, true, false, true},
		{"yielding", true, false, false, false},
		{"yielding, ended: no call", true, true, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.yielding {
				ctx = Yielding(ctx)
			}
			if tc.cancelled {
				cancel()
			}
			got, err := engineContext(ctx)
			if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, context.Canceled)) {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			cancel()
			if ends := got.Err() != nil; ends != tc.callEnds {
				t.Errorf("the engine call's context ends with the caller's: %v, want %v", ends, tc.callEnds)
			}
		})
	}
}
