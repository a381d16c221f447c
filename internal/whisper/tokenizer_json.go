package whisper

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// jsonScanner is a minimal JSON reader over a byte slice, enough for
// tokenizer.json and vocabulary.json.
type jsonScanner struct {
	data  []byte
	pos   int
	depth int    // objects and arrays open at pos
	arena []byte // backing store for strings that had escapes
}

// maxJSONDepth bounds nesting: the scanner recurses once per level, and a
// 32 MB file of brackets (under ct2bin.MaxTokenizerJSON) once overflowed
// the goroutine stack, a crash no recover catches. Real tokenizer.json
// files nest 5 deep; encoding/json allows 10000.
const maxJSONDepth = 64

func (s *jsonScanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *jsonScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("JSON offset %d: %s", s.pos, fmt.Sprintf(format, args...))
}

// peek skips whitespace and returns the next byte (0 at the end).
func (s *jsonScanner) peek() byte {
	s.ws()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

func (s *jsonScanner) expect(c byte) error {
	if s.peek() != c {
		return s.errorf("expected %q", c)
	}
	s.pos++
	return nil
}

func (s *jsonScanner) end() error {
	if s.peek() != 0 {
		return s.errorf("trailing data")
	}
	return nil
}

// object calls fn for each key with the scanner at the value; fn must
// consume the value.
func (s *jsonScanner) object(fn func(key []byte) error) error {
	return s.list('{', '}', func() error {
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		return fn(key)
	})
}

// array calls fn for each element; fn must consume it.
func (s *jsonScanner) array(fn func() error) error {
	return s.list('[', ']', fn)
}

// list reads open, then comma-separated items up to end, as objects and
// arrays have them; item must consume one.
func (s *jsonScanner) list(open, end byte, item func() error) error {
	if err := s.expect(open); err != nil {
		return err
	}
	if s.depth++; s.depth > maxJSONDepth {
		return s.errorf("nested more than %d deep", maxJSONDepth)
	}
	defer func() { s.depth-- }()
	if s.peek() == end {
		s.pos++
		return nil
	}
	for {
		if err := item(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case end:
			s.pos++
			return nil
		default:
			return s.errorf("expected , or %c", end)
		}
	}
}

// str reads a string. Without escapes the result aliases the input.
func (s *jsonScanner) str() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	start := s.pos
	i := bytes.IndexByte(s.data[start:], '"')
	if i < 0 {
		return nil, s.errorf("unterminated string")
	}
	esc := bytes.IndexByte(s.data[start:start+i], '\\')
	if esc < 0 {
		s.pos = start + i + 1
		return s.data[start : start+i], nil
	}
	i = esc
	// Strings with escapes are decoded into the arena, saving an allocation
	// each; bytes already handed out are never overwritten, because a full
	// arena is replaced rather than reused.
	base := len(s.arena)
	s.arena = append(s.arena, s.data[start:start+i]...)
	s.pos = start + i
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return s.arena[base:len(s.arena):len(s.arena)], nil
		case c != '\\':
			s.arena = append(s.arena, c)
			s.pos++
			continue
		}
		if s.pos+1 >= len(s.data) {
			break
		}
		esc := s.data[s.pos+1]
		s.pos += 2
		switch esc {
		case '"', '\\', '/':
			s.arena = append(s.arena, esc)
		case 'b':
			s.arena = append(s.arena, '\b')
		case 'f':
			s.arena = append(s.arena, '\f')
		case 'n':
			s.arena = append(s.arena, '\n')
		case 'r':
			s.arena = append(s.arena, '\r')
		case 't':
			s.arena = append(s.arena, '\t')
		case 'u':
			r, err := s.hex4()
			if err != nil {
				return nil, err
			}
			if utf16IsHigh(r) && s.pos+1 < len(s.data) && s.data[s.pos] == '\\' && s.data[s.pos+1] == 'u' {
				save := s.pos
				s.pos += 2
				lo, err := s.hex4()
				if err == nil && lo >= 0xDC00 && lo <= 0xDFFF {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				} else {
					s.pos = save
				}
			}
			s.arena = utf8.AppendRune(s.arena, r) // lone surrogates become U+FFFD
		default:
			return nil, s.errorf("bad escape %q", "\\"+string(rune(esc)))
		}
	}
	return nil, s.errorf("unterminated string")
}

func utf16IsHigh(r rune) bool { return r >= 0xD800 && r <= 0xDBFF }

func (s *jsonScanner) hex4() (rune, error) {
	if s.pos+4 > len(s.data) {
		return 0, s.errorf("short \\u escape")
	}
	v, err := strconv.ParseUint(string(s.data[s.pos:s.pos+4]), 16, 32)
	if err != nil {
		return 0, s.errorf("bad \\u escape")
	}
	s.pos += 4
	return rune(v), nil
}

func (s *jsonScanner) int() (int, error) {
	s.ws()
	start := s.pos
	if s.pos < len(s.data) && s.data[s.pos] == '-' {
		s.pos++
	}
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	v, err := strconv.Atoi(string(s.data[start:s.pos]))
	if err != nil {
		return 0, s.errorf("expected an integer")
	}
	return v, nil
}

// merge reads one BPE merge, either "a b" (older files) or ["a", "b"].
func (s *jsonScanner) merge() ([2][]byte, error) {
	var m [2][]byte
	if s.peek() == '"' {
		b, err := s.str()
		if err != nil {
			return m, err
		}
		i := bytes.IndexByte(b, ' ')
		if i < 0 || bytes.IndexByte(b[i+1:], ' ') >= 0 {
			return m, s.errorf("merge %q is not two space-separated tokens", b)
		}
		m[0], m[1] = b[:i], b[i+1:]
		return m, nil
	}
	n := 0
	err := s.array(func() error {
		b, err := s.str()
		if n < 2 {
			m[n] = b
		}
		n++
		return err
	})
	if err == nil && n != 2 {
		err = s.errorf("merge has %d parts, want 2", n)
	}
	return m, err
}

// skip consumes any JSON value.
func (s *jsonScanner) skip() error {
	switch c := s.peek(); c {
	case '{':
		return s.object(func([]byte) error { return s.skip() })
	case '[':
		return s.array(s.skip)
	case '"':
		_, err := s.str()
		return err
	case 0:
		return s.errorf("unexpected end")
	default:
		// number, true, false, null
		start := s.pos
		for s.pos < len(s.data) {
			c := s.data[s.pos]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t' {
				break
			}
			s.pos++
		}
		if s.pos == start {
			return s.errorf("unexpected %q", c)
		}
		return nil
	}
}
