//go:build linux

package evdev

import (
	"fmt"
	"io"
)

// stream turns one device's events into changes of the board. The kernel
// groups events into frames ended by SYN_REPORT; a frame is applied whole.
// SYN_DROPPED says the kernel's buffer for this reader overflowed and events
// were lost: everything up to the next SYN_REPORT is dropped, and then the
// keys down are read again (resync).
type stream struct {
	dev   string
	board *board
	// resync reads the keys the device holds now (EVIOCGKEY); nil, or an
	// error, counts as all keys up.
	resync   func() ([]uint16, error)
	frame    []event
	dropping bool
}

// feed takes one event and returns the edges it completes.
func (s *stream) feed(ev event) []fired {
	switch {
	case ev.typ == evSyn && ev.code == synDropped:
		s.frame, s.dropping = s.frame[:0], true
		return nil
	case ev.typ == evSyn && ev.code == synReport && s.dropping:
		s.dropping = false
		var down []uint16
		if s.resync != nil {
			down, _ = s.resync() // a device that cannot answer is going away: all up
		}
		return s.board.reset(s.dev, down, ev.at)
	case ev.typ == evSyn && ev.code == synReport:
		var out []fired
		for _, k := range s.frame {
			switch k.value {
			case keyDown:
				out = append(out, s.board.press(s.dev, k.code, k.at)...)
			case keyUp:
				out = append(out, s.board.lift(s.dev, k.code, k.at)...)
			}
		}
		s.frame = s.frame[:0]
		return out
	case s.dropping:
		return nil
	case ev.typ == evKey && ev.value != keyRepeat:
		s.frame = append(s.frame, ev)
	}
	return nil
}

// readBatch is how many events one read asks for; a read of an event
// device returns whole events, as many as are queued and fit.
const readBatch = 64

// run reads r until it fails and hands each frame's edges to deliver. It
// returns the read error (io.EOF at the end of a stream). Bytes that do not
// yet make a whole event wait for the next read.
func (s *stream) run(r io.Reader, deliver func([]fired)) error {
	buf := make([]byte, readBatch*eventSize)
	have := 0
	for {
		n, err := r.Read(buf[have:])
		have += n
		whole := have - have%eventSize
		for off := 0; off < whole; off += eventSize {
			if out := s.feed(decode(buf[off:])); len(out) > 0 {
				deliver(out)
			}
		}
		have = copy(buf, buf[whole:have])
		if err != nil {
			if err == io.EOF && have > 0 {
				return fmt.Errorf("%w: %d bytes of a partial event at the end", io.ErrUnexpectedEOF, have)
			}
			return err
		}
	}
}
