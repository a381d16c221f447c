package whisper

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"slices"
	"sync"

	"github.com/whisperkey/whisperkey/internal/wire"
)

// memoSize bounds the windows kept: a two-minute hold has four, and each
// early transcription of it looks up all of them again.
const memoSize = 8

// windowMemo keeps the decodes of whole 30-s windows of long recordings.
// While a long dictation is held, an early transcription at a pause
// decodes the windows already complete; the next one, and the release's,
// find them here and decode only what follows. It is exact by
// construction: the key is everything a window's decode depends on (its
// features, its audio, the prompt, the options), so a window that differs
// in any bit, such as one whose features a louder later word renormalised,
// is decoded afresh. Windows live in memory only, for the loaded model.
//
// A window being decoded is waited for, not decoded twice: the release
// comes while the hold's transcription is still decoding the first window
// more often than not, and the engine would only queue a second decode of
// it behind the first.
type windowMemo struct {
	mu     sync.Mutex
	items  map[memoKey]memoItem
	order  []memoKey                 // oldest first
	flight map[memoKey]chan struct{} // closed when the decode of the key ends
}

type memoKey [sha256.Size]byte

type memoItem struct {
	d     decoded
	langs []wire.LangProb
}

// begin returns the item of k when it is known. Otherwise, after waiting
// for a decode of k in flight elsewhere to end, it makes the caller the one
// to decode k: the caller must then call done, with ok false when it has
// no item (its decode failed or was not made).
func (m *windowMemo) begin(ctx context.Context, k memoKey) (it memoItem, known bool, done func(it memoItem, ok bool), err error) {
	for {
		m.mu.Lock()
		if it, ok := m.items[k]; ok {
			m.mu.Unlock()
			// The caller's Result hands tokens out; the memo keeps its own.
			it.d.tokens = slices.Clone(it.d.tokens)
			return it, true, nil, nil
		}
		ch, busy := m.flight[k]
		if !busy {
			if m.flight == nil {
				m.flight = make(map[memoKey]chan struct{})
			}
			ch = make(chan struct{})
			m.flight[k] = ch
			m.mu.Unlock()
			return memoItem{}, false, func(it memoItem, ok bool) {
				m.mu.Lock()
				delete(m.flight, k)
				if ok {
					m.put(k, it)
				}
				m.mu.Unlock()
				close(ch)
			}, nil
		}
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return memoItem{}, false, nil, ctx.Err()
		}
	}
}

// put keeps it under k; m.mu is held.
func (m *windowMemo) put(k memoKey, it memoItem) {
	if m.items == nil {
		m.items = make(map[memoKey]memoItem, memoSize)
	}
	if _, ok := m.items[k]; ok {
		return
	}
	if len(m.order) == memoSize {
		delete(m.items, m.order[0])
		m.order = slices.Delete(m.order, 0, 1)
	}
	it.d.tokens = slices.Clone(it.d.tokens)
	m.items[k] = it
	m.order = append(m.order, k)
}

// keyer hashes the inputs of one decode.
type keyer struct {
	h   hash.Hash
	buf [4096]byte
}

func newKeyer(kind string) *keyer {
	k := &keyer{h: sha256.New()}
	k.text(kind)
	return k
}

func (k *keyer) text(s string) {
	k.ints([]int{len(s)})
	k.h.Write([]byte(s))
}

func (k *keyer) floats(v []float32) {
	k.ints([]int{len(v)})
	for len(v) > 0 {
		n := min(len(v), len(k.buf)/4)
		for i, f := range v[:n] {
			binary.LittleEndian.PutUint32(k.buf[4*i:], math.Float32bits(f))
		}
		k.h.Write(k.buf[:4*n])
		v = v[n:]
	}
}

func (k *keyer) ints(v []int) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(len(v)))
	k.h.Write(b[:])
	for _, x := range v {
		binary.LittleEndian.PutUint64(b[:], uint64(x))
		k.h.Write(b[:])
	}
}

func (k *keyer) sum() (key memoKey) {
	k.h.Sum(key[:0])
	return key
}

// decodeKey is the key of decodeWindow's result for a whole window: its
// features, the audio under it (the speech detector's verdict), the
// prompt's parts and every option.
func decodeKey(win wire.Window, audio []float32, previous, sot, suppress []int, opt Options, first bool) memoKey {
	k := newKeyer("decode")
	k.ints([]int{win.NMels, win.Frames})
	k.floats(win.Features)
	k.floats(audio)
	k.ints(previous)
	k.ints(sot)
	k.ints(suppress)
	// %#v spells every field, the slices' elements included; a hold's
	// passes are not forced into whole windows (held.go), so they are no
	// input of their decode.
	opt.Held = nil
	k.text(fmt.Sprintf("%#v %t", opt, first))
	return k.sum()
}

// languageKey is the key of the language detected on a whole first window.
func languageKey(win wire.Window) memoKey {
	k := newKeyer("language")
	k.ints([]int{win.NMels, win.Frames})
	k.floats(win.Features)
	return k.sum()
}
