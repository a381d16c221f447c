package whisper

import (
	"hash/maphash"
)

// strIndex maps strings to ids of a vocabulary with open addressing over
// int32 slots: several times faster to build and probe than a Go map for the
// 50k-token vocabularies read at every start.
type strIndex struct {
	seed  maphash.Seed
	keys  []string // id → string
	slots []int32  // -1 when empty, else an id
	mask  uint64
}

// newStrIndex sizes an index for up to n of keys' ids; add inserts them.
func newStrIndex(keys []string, n int) *strIndex {
	size := 1
	for size < 2*n {
		size <<= 1
	}
	x := &strIndex{seed: maphash.MakeSeed(), keys: keys, slots: make([]int32, size), mask: uint64(size - 1)}
	for i := range x.slots {
		x.slots[i] = -1
	}
	return x
}

// ownIndex indexes the (tok, id) pairs of a tokenizer.json vocab.
func ownIndex(toks [][]byte, ids []int) *strIndex {
	maxID := -1
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	keys := make([]string, maxID+1)
	for i, tok := range toks {
		if ids[i] >= 0 {
			keys[ids[i]] = string(tok)
		}
	}
	x := newStrIndex(keys, len(ids))
	for _, id := range ids {
		if id >= 0 {
			x.add(id)
		}
	}
	return x
}

// add inserts keys[id] unless the string is already present (the first id
// wins, as in CTranslate2).
func (x *strIndex) add(id int) {
	k := x.keys[id]
	for h := maphash.String(x.seed, k) & x.mask; ; h = (h + 1) & x.mask {
		s := x.slots[h]
		if s < 0 {
			x.slots[h] = int32(id)
			return
		}
		if x.keys[s] == k {
			return
		}
	}
}

func (x *strIndex) get(k string) (int, bool) {
	for h := maphash.String(x.seed, k) & x.mask; ; h = (h + 1) & x.mask {
		s := x.slots[h]
		if s < 0 {
			return 0, false
		}
		if x.keys[s] == k {
			return int(s), true
		}
	}
}

func (x *strIndex) getBytes(k []byte) (int, bool) {
	for h := maphash.Bytes(x.seed, k) & x.mask; ; h = (h + 1) & x.mask {
		s := x.slots[h]
		if s < 0 {
			return 0, false
		}
		if x.keys[s] == string(k) {
			return int(s), true
		}
	}
}
