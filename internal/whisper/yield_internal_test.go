package whisper

import (
	"context"
	"errors"
	"testing"
)

// A yielding transcription stops before its next engine call once its
// context ends, and never hands the shared engine a context that can end
// mid-call (ending one kills the engine worker); on an engine of its own
// (UseForYielding) its call is cut short, except a whole window another
// transcription may be waiting for. Any other transcription's engine calls
// end with its context, as before.
func TestEngineContext(t *testing.T) {
	cases := []struct {
		name       string
		yielding   bool
		remembered bool // a whole window the memo keeps
		ownEngine  bool // UseForYielding
		ownLoading bool // that engine's worker loads again
		cancelled  bool
		wantErr    bool
		wantOwn    bool // the call goes to the yielding work's engine
		callEnds   bool // the engine call's context ends when the caller's does
	}{
		{name: "plain", callEnds: true},
		{name: "plain, ended: the call is cut short", cancelled: true, callEnds: true},
		{name: "plain, with an engine for yielding work", ownEngine: true, callEnds: true},
		{name: "yielding", yielding: true},
		{name: "yielding, ended: no call", yielding: true, cancelled: true, wantErr: true},
		{name: "yielding on its own engine: cut short", yielding: true, ownEngine: true, wantOwn: true, callEnds: true},
		{name: "yielding on its own engine, ended: no call", yielding: true, ownEngine: true, cancelled: true, wantErr: true},
		{name: "yielding on its own engine, a remembered window: finished", yielding: true, remembered: true, ownEngine: true, wantOwn: true},
		{name: "plain, a remembered window", remembered: true, ownEngine: true, callEnds: true},
		{name: "yielding while its own engine loads: the shared one's, finished", yielding: true, ownEngine: true, ownLoading: true},
		{name: "yielding while its own engine loads, ended: no call", yielding: true, ownEngine: true, ownLoading: true, cancelled: true, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			main, own := &pickedEngine{}, &pickedEngine{loading: tc.ownLoading}
			tr := &Transcriber{eng: main}
			if tc.ownEngine {
				tr.UseForYielding(own)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.yielding {
				ctx = Yielding(ctx)
			}
			if tc.remembered {
				ctx = remembered(ctx)
			}
			if tc.cancelled {
				cancel()
			}
			eng, got, err := tr.engineFor(ctx)
			if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, context.Canceled)) {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if want := Engine(main); tc.wantOwn {
				if eng != Engine(own) {
					t.Errorf("the call goes to the transcriber's engine, want the yielding work's own")
				}
			} else if eng != want {
				t.Errorf("the call goes to the yielding work's engine, want the transcriber's")
			}
			cancel()
			if ends := got.Err() != nil; ends != tc.callEnds {
				t.Errorf("the engine call's context ends with the caller's: %v, want %v", ends, tc.callEnds)
			}
		})
	}
}

// pickedEngine is an Engine that is never called here: engineFor only
// picks one. loading: its worker loads (Loaded is false).
type pickedEngine struct {
	Engine
	loading bool
}

func (p *pickedEngine) Loaded() bool { return !p.loading }
