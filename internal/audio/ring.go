package audio

// ring keeps the newest len(buf) samples.
type ring struct {
	buf []float32
	pos int // next write
	n   int // valid samples
}

func (g *ring) reset(size int) {
	if cap(g.buf) < size {
		g.buf = make([]float32, size)
	}
	g.buf = g.buf[:size]
	g.pos, g.n = 0, 0
}

func (g *ring) write(s []float32) {
	size := len(g.buf)
	if size == 0 {
		return
	}
	if len(s) >= size {
		copy(g.buf, s[len(s)-size:])
		g.pos, g.n = 0, size
		return
	}
	k := copy(g.buf[g.pos:], s)
	copy(g.buf, s[k:])
	g.pos = (g.pos + len(s)) % size
	g.n = min(g.n+len(s), size)
}

// appendLast appends the newest k samples, oldest first.
func (g *ring) appendLast(dst []float32, k int) []float32 {
	k = min(k, g.n)
	if k <= 0 {
		return dst
	}
	start := (g.pos - k + len(g.buf)) % len(g.buf)
	if start+k <= len(g.buf) {
		return append(dst, g.buf[start:start+k]...)
	}
	dst = append(dst, g.buf[start:]...)
	return append(dst, g.buf[:k-(len(g.buf)-start)]...)
}
