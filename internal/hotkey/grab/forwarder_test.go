package grab

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// within fails t unless fn returns within a second: the calls it wraps must not block.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatalf("%s blocked", what)
	}
}

func TestForwarder(t *testing.T) {
	at := time.Unix(1000, 0)
	edge := func(i int) hotkey.Edge {
		return hotkey.Edge{Down: i%2 == 0, At: at.Add(time.Duration(i)), Sure: i%3 == 0}
	}
	tests := []struct {
		name string
		push int // edges pushed before anyone reads
		read int // of them read before close
		// interleave pushes each edge after the previous one was read.
		interleave bool
	}{
		{name: "nothing pushed", push: 0, read: 0},
		{name: "all read", push: 50, read: 50},
		{name: "some left unread", push: 50, read: 10},
		{name: "none read", push: 1000, read: 0},
		{name: "read as pushed", push: 20, read: 20, interleave: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			f := newForwarder()
			if !tt.interleave {
				within(t, "push with no reader", func() {
					for i := range tt.push {
						f.push(edge(i))
					}
				})
			}
			for i := range tt.read {
				if tt.interleave {
					f.push(edge(i))
				}
				select {
				case e := <-f.Edges():
					if e != edge(i) {
						t.Fatalf("edge %d = %+v, want %+v: out of order", i, e, edge(i))
					}
				case <-time.After(time.Second):
					t.Fatalf("edge %d never came", i)
				}
			}
			within(t, "close with edges unread", f.close)
			select {
			case <-f.done:
			default:
				t.Fatal("close returned before the goroutine ended")
			}
			within(t, "second close", f.close)
			within(t, "push after close", func() { f.push(edge(0)) })
			select {
			case e := <-f.Edges():
				t.Fatalf("edge %+v delivered after close", e)
			default:
			}
		})
	}
}

// Edges pushed from several goroutines at once all arrive, each producer's in order.
func TestForwarderProducers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newForwarder()
	defer f.close()
	const producers, each = 4, 200
	at := time.Unix(1000, 0)
	for p := range producers {
		go func() {
			for i := range each {
				// At carries the producer and the sequence number.
				f.push(hotkey.Edge{Down: true, At: at.Add(time.Duration(p*each + i))})
			}
		}()
	}
	next := make([]int, producers)
	for range producers * each {
		select {
		case e := <-f.Edges():
			n := int(e.At.Sub(at))
			p, i := n/each, n%each
			if i != next[p] {
				t.Fatalf("producer %d: edge %d came when %d was due", p, i, next[p])
			}
			next[p]++
		case <-time.After(5 * time.Second):
			t.Fatalf("edges missing: got %v of %d each", next, each)
		}
	}
}
