package whisper

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A second asker of a window being decoded waits for that decode: it gets
// its result, or the turn to decode when it failed, or its own context's end.
func TestMemoWaitsForADecodeInFlight(t *testing.T) {
	cases := []struct {
		name      string
		ok        bool // the first decode has a result
		cancel    bool // the waiter's context ends first
		wantKnown bool
		wantErr   error
	}{
		{"the first decode's result is the waiter's", true, false, true, nil},
		{"a failed first decode leaves the waiter to decode", false, false, false, nil},
		{"the waiter's context ends: it stops waiting", true, true, false, context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var m windowMemo
			key := memoKey{1}
			_, known, done, err := m.begin(context.Background(), key)
			if known || done == nil || err != nil {
				t.Fatalf("first asker: known %v, done %v, err %v", known, done != nil, err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type answer struct {
				it    memoItem
				known bool
				done  func(memoItem, bool)
				err   error
			}
			got := make(chan answer, 1)
			go func() {
				it, known, done, err := m.begin(ctx, key)
				got <- answer{it, known, done, err}
			}()
			select {
			case a := <-got:
				t.Fatalf("the second asker did not wait: %+v", a)
			case <-time.After(50 * time.Millisecond):
			}
			if tc.cancel {
				cancel()
			} else {
				done(memoItem{d: decoded{tokens: []int{7, 8}}}, tc.ok)
			}
			a := <-got
			if a.known != tc.wantKnown || !errors.Is(a.err, tc.wantErr) {
				t.Fatalf("waiter: known %v err %v, want %v %v", a.known, a.err, tc.wantKnown, tc.wantErr)
			}
			if a.known && len(a.it.d.tokens) != 2 {
				t.Errorf("waiter got tokens %v", a.it.d.tokens)
			}
			if !a.known && a.err == nil {
				if a.done == nil {
					t.Fatal("the waiter neither got the window nor the turn to decode it")
				}
				a.done(memoItem{}, false)
			}
		})
	}
}
