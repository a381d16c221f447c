package whisper

// zlibSize is len(zlib.compress(data)) as Python computes it (zlib at its
// default level 6, 32 KiB window, memLevel 8), which faster-whisper's
// compression ratio divides by. Go's compress/zlib is another encoder: it
// writes up to 40 % more bytes for the same text, so a looping decode that
// faster-whisper rates 2.72 rated 2.33 here and slipped under the 2.4
// threshold that triggers the temperature fallback.
//
// It makes zlib's choices, counting bits instead of writing them: the lazy
// LZ77 parse (hash chains of 3 bytes, at most 128 links, good 8, lazy 16,
// nice 128, a 3-byte match farther than 4 KiB taken as literals, position 0
// never matched), blocks of at most 16383 symbols, and per block the
// smallest of stored, fixed and dynamic Huffman coding, the Huffman code
// lengths built, depth-limited and run-length coded as zlib builds them.
// It is exact for up to 65274 bytes (zlib slides its window beyond that; a
// window's text is at most 448 tokens); TestZlibSizeMatchesPython checks it
// against Python's zlib.
func zlibSize(data []byte) int {
	if len(data) == 0 {
		return 8 // header, an empty fixed block, the Adler-32
	}
	c := newDeflateCounter(data)
	c.run()
	return 2 + (c.bits+7)/8 + 4
}

const (
	minMatch     = 3
	maxMatch     = 258
	windowSize   = 1 << 15
	minLookahead = maxMatch + minMatch + 1
	maxDist      = windowSize - minLookahead
	tooFar       = 4096
	hashBits     = 15 // memLevel 8 + 7
	hashMask     = 1<<hashBits - 1
	hashShift    = (hashBits + minMatch - 1) / minMatch

	// zlib's level 6.
	goodMatch = 8
	maxLazy   = 16
	niceMatch = 128
	maxChain  = 128

	symbolsPerBlock = 1<<14 - 1 // lit_bufsize - 1 at memLevel 8
	literals        = 256
	endOfBlock      = 256
	lCodes          = literals + 1 + 29
	dCodes          = 30
	blCodes         = 19
	maxCodeBits     = 15
	maxBLBits       = 7
	heapSize        = 2*lCodes + 1
)

var (
	extraLBits  = []int{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	extraDBits  = []int{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	extraBLBits = []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7}
	baseLength  = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224}
	baseDist    = []int{0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576}
	blOrder     = []int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
	fixedLLens  = fixedLiteralLengths()
	fixedDLens  = func() []int {
		l := make([]int, dCodes)
		for i := range l {
			l[i] = 5
		}
		return l
	}()
)

func fixedLiteralLengths() []int {
	l := make([]int, lCodes)
	for n := range l {
		switch {
		case n < 144:
			l[n] = 8
		case n < 256:
			l[n] = 9
		case n < 280:
			l[n] = 7
		default:
			l[n] = 8
		}
	}
	return l
}

// lengthCode is the code (0–28, before adding 257) of a match length less 3.
func lengthCode(lc int) int {
	if lc == maxMatch-minMatch {
		return 28
	}
	c := 27
	for baseLength[c] > lc {
		c--
	}
	return c
}

// distCode is the code of a match distance less 1.
func distCode(d int) int {
	c := dCodes - 1
	for baseDist[c] > d {
		c--
	}
	return c
}

// deflateCounter is zlib's deflate_slow state, without the output.
type deflateCounter struct {
	win        []byte  // the input, then zeros, as zlib's window past its high-water mark
	head       []int32 // last position of each hash; 0 is no position
	prev       []int32 // previous position of the same hash, by position mod 32 KiB
	insH       int
	strstart   int
	lookahead  int
	matchStart int

	lFreq, dFreq []int
	symbols      int
	blockStart   int
	bits         int
}

func newDeflateCounter(data []byte) *deflateCounter {
	win := make([]byte, len(data)+maxMatch+minMatch)
	copy(win, data)
	// prev is indexed by position mod 32 KiB, so a shorter text needs only
	// its own length: a window's text is a few hundred bytes, and the full
	// 128 KiB was half of each call's time, spent allocating and clearing.
	c := &deflateCounter{win: win, head: make([]int32, 1<<hashBits), prev: make([]int32, min(windowSize, len(data))),
		lookahead: len(data), lFreq: make([]int, lCodes), dFreq: make([]int, dCodes)}
	if len(data) >= minMatch {
		c.insH = (int(win[0])<<hashShift ^ int(win[1])) & hashMask
	}
	c.lFreq[endOfBlock] = 1
	return c
}

// insert adds the string at pos to the hash chains and returns the
// previous head of its chain.
func (c *deflateCounter) insert(pos int) int {
	c.insH = (c.insH<<hashShift ^ int(c.win[pos+minMatch-1])) & hashMask
	h := c.head[c.insH]
	c.prev[pos&(windowSize-1)] = h
	c.head[c.insH] = int32(pos)
	return int(h)
}

// longestMatch follows the chain from cur for a match longer than best,
// updating matchStart for each longer one, as zlib's longest_match does.
func (c *deflateCounter) longestMatch(cur, best int) int {
	chain := maxChain
	if best >= goodMatch {
		chain >>= 2
	}
	nice := min(niceMatch, c.lookahead)
	limit := 0
	if c.strstart > maxDist {
		limit = c.strstart - maxDist
	}
	scan := c.win[c.strstart : c.strstart+maxMatch]
	for {
		m := c.win[cur : cur+maxMatch]
		// zlib compares the bytes at best-1 and best first, then the
		// first two; the third is equal when the hashes are.
		if m[best] == scan[best] && m[best-1] == scan[best-1] && m[0] == scan[0] && m[1] == scan[1] {
			n := 3
			for n < maxMatch && m[n] == scan[n] {
				n++
			}
			if n > best {
				c.matchStart, best = cur, n
				if n >= nice {
					break
				}
			}
		}
		cur = int(c.prev[cur&(windowSize-1)])
		chain--
		if cur <= limit || chain == 0 {
			break
		}
	}
	return min(best, c.lookahead)
}

func (c *deflateCounter) run() {
	matchLength, prevLength := minMatch-1, minMatch-1
	prevMatch := 0
	available := false
	for c.lookahead > 0 {
		hashHead := 0
		if c.lookahead >= minMatch {
			hashHead = c.insert(c.strstart)
		}
		prevLength, prevMatch = matchLength, c.matchStart
		matchLength = minMatch - 1
		if hashHead != 0 && prevLength < maxLazy && c.strstart-hashHead <= maxDist {
			matchLength = c.longestMatch(hashHead, prevLength)
			if matchLength == minMatch && c.strstart-c.matchStart > tooFar {
				matchLength = minMatch - 1
			}
		}
		switch {
		case prevLength >= minMatch && matchLength <= prevLength:
			maxInsert := c.strstart + c.lookahead - minMatch
			full := c.tally(prevLength-minMatch, c.strstart-1-prevMatch)
			c.lookahead -= prevLength - 1
			for k := prevLength - 2; k > 0; k-- {
				c.strstart++
				if c.strstart <= maxInsert {
					c.insert(c.strstart)
				}
			}
			available = false
			matchLength = minMatch - 1
			c.strstart++
			if full {
				c.flush(false)
			}
		case available:
			if c.tally(-1, int(c.win[c.strstart-1])) {
				c.flush(false)
			}
			c.strstart++
			c.lookahead--
		default:
			available = true
			c.strstart++
			c.lookahead--
		}
	}
	if available {
		c.tally(-1, int(c.win[c.strstart-1]))
	}
	c.flush(true)
}

// tally counts a literal (lc < 0, x the byte) or a match (lc its length
// less 3, x its distance) and reports a full block.
func (c *deflateCounter) tally(lc, x int) bool {
	if lc < 0 {
		c.lFreq[x]++
	} else {
		c.lFreq[literals+1+lengthCode(lc)]++
		c.dFreq[distCode(x-1)]++
	}
	c.symbols++
	return c.symbols == symbolsPerBlock
}

// flush adds the bits of the block since blockStart, in the cheapest of
// zlib's three codings, and starts a new block.
func (c *deflateCounter) flush(last bool) {
	stored := c.strstart - c.blockStart
	var opt, fixed int
	lLens, lMax := huffmanLengths(c.lFreq, fixedLLens, extraLBits, literals+1, maxCodeBits, &opt, &fixed)
	dLens, dMax := huffmanLengths(c.dFreq, fixedDLens, extraDBits, 0, maxCodeBits, &opt, &fixed)
	blFreq := make([]int, blCodes)
	scanLengths(lLens, lMax, blFreq)
	scanLengths(dLens, dMax, blFreq)
	blLens, _ := huffmanLengths(blFreq, nil, extraBLBits, 0, maxBLBits, &opt, &fixed)
	maxBL := blCodes - 1
	for ; maxBL >= 3 && blLens[blOrder[maxBL]] == 0; maxBL-- {
	}
	opt += 3*(maxBL+1) + 5 + 5 + 4
	optBytes, fixedBytes := (opt+3+7)>>3, (fixed+3+7)>>3
	optBytes = min(optBytes, fixedBytes)
	switch {
	case stored+4 <= optBytes:
		c.bits = (c.bits+3+7)&^7 + 32 + 8*stored
	case fixedBytes == optBytes:
		c.bits += 3 + fixed
	default:
		c.bits += 3 + opt
	}
	if last {
		c.bits = (c.bits + 7) &^ 7
	}
	clear(c.lFreq)
	clear(c.dFreq)
	c.lFreq[endOfBlock] = 1
	c.symbols = 0
	c.blockStart = c.strstart
}

// huffmanLengths builds the code lengths of freq as zlib's build_tree and
// gen_bitlen do (ties go to the shallower subtree; lengths over maxLength
// are moved up the tree), adds the coded size of the symbols to *opt and,
// with fixed lengths given, their size in the fixed code to *fixed. It
// returns the lengths and the largest symbol that occurs.
func huffmanLengths(freq, fixedLens, extra []int, extraBase, maxLength int, opt, fixed *int) ([]int, int) {
	elems := len(freq)
	size := 2*elems + 1
	f := make([]int, size)
	copy(f, freq)
	dad := make([]int, size)
	length := make([]int, size)
	depth := make([]int, size)
	heap := make([]int, heapSize)
	heapLen, heapMax, maxCode := 0, heapSize, -1
	for n := range elems {
		if f[n] != 0 {
			heapLen++
			heap[heapLen], maxCode = n, n
		}
	}
	// At least two codes, so that every code has at least one bit.
	for heapLen < 2 {
		node := 0
		if maxCode < 2 {
			maxCode++
			node = maxCode
		}
		heapLen++
		heap[heapLen] = node
		f[node] = 1
		*opt--
		if fixedLens != nil {
			*fixed -= fixedLens[node]
		}
	}
	smaller := func(n, m int) bool { return f[n] < f[m] || f[n] == f[m] && depth[n] <= depth[m] }
	down := func(k int) {
		v := heap[k]
		for j := k << 1; j <= heapLen; j <<= 1 {
			if j < heapLen && smaller(heap[j+1], heap[j]) {
				j++
			}
			if smaller(v, heap[j]) {
				break
			}
			heap[k], k = heap[j], j
		}
		heap[k] = v
	}
	for n := heapLen / 2; n >= 1; n-- {
		down(n)
	}
	node := elems
	for {
		n := heap[1]
		heap[1] = heap[heapLen]
		heapLen--
		down(1)
		m := heap[1]
		heapMax--
		heap[heapMax] = n
		heapMax--
		heap[heapMax] = m
		f[node] = f[n] + f[m]
		depth[node] = max(depth[n], depth[m]) + 1
		dad[n], dad[m] = node, node
		heap[1] = node
		node++
		down(1)
		if heapLen < 2 {
			break
		}
	}
	heapMax--
	heap[heapMax] = heap[1]

	var count [maxCodeBits + 1]int
	overflow := 0
	length[heap[heapMax]] = 0
	h := heapMax + 1
	for ; h < heapSize; h++ {
		n := heap[h]
		bits := length[dad[n]] + 1
		if bits > maxLength {
			bits = maxLength
			overflow++
		}
		length[n] = bits
		if n > maxCode {
			continue
		}
		count[bits]++
		xbits := 0
		if n >= extraBase {
			xbits = extra[n-extraBase]
		}
		*opt += f[n] * (bits + xbits)
		if fixedLens != nil {
			*fixed += f[n] * (fixedLens[n] + xbits)
		}
	}
	if overflow > 0 {
		for overflow > 0 {
			bits := maxLength - 1
			for count[bits] == 0 {
				bits--
			}
			count[bits]--
			count[bits+1] += 2
			count[maxLength]--
			overflow -= 2
		}
		for bits := maxLength; bits != 0; bits-- {
			for n := count[bits]; n != 0; {
				h--
				m := heap[h]
				if m > maxCode {
					continue
				}
				if length[m] != bits {
					*opt += (bits - length[m]) * f[m]
					length[m] = bits
				}
				n--
			}
		}
	}
	return length[:elems], maxCode
}

// scanLengths counts, into blFreq, the symbols that send the code lengths
// lens[:maxCode+1]: lengths, repeats of the last (16), runs of zeros (17,
// 18), as zlib's scan_tree does.
func scanLengths(lens []int, maxCode int, blFreq []int) {
	const rep3to6, zeros3to10, zeros11to138 = 16, 17, 18
	lenAt := func(n int) int {
		if n > maxCode {
			return 0xffff // guard
		}
		return lens[n]
	}
	prevLen, next, count := -1, lenAt(0), 0
	maxCount, minCount := 7, 4
	if next == 0 {
		maxCount, minCount = 138, 3
	}
	for n := 0; n <= maxCode; n++ {
		cur := next
		next = lenAt(n + 1)
		count++
		if count < maxCount && cur == next {
			continue
		}
		switch {
		case count < minCount:
			blFreq[cur] += count
		case cur != 0:
			if cur != prevLen {
				blFreq[cur]++
			}
			blFreq[rep3to6]++
		case count <= 10:
			blFreq[zeros3to10]++
		default:
			blFreq[zeros11to138]++
		}
		count, prevLen = 0, cur
		switch {
		case next == 0:
			maxCount, minCount = 138, 3
		case cur == next:
			maxCount, minCount = 6, 3
		default:
			maxCount, minCount = 7, 4
		}
	}
}
