package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// byteBudget is a count of bytes that requests take and give back, such as
// the memory all uploads hold together. A request that does not fit waits
// until others give bytes back or its ctx ends.
type byteBudget struct {
	mu    sync.Mutex
	free  int64
	freed chan struct{} // closed, and replaced, whenever bytes are given back
}

func newByteBudget(n int64) *byteBudget {
	return &byteBudget{free: n, freed: make(chan struct{})}
}

// take reserves n bytes, waiting for them until ctx ends; false means it
// got none. Waiters are not queued: a brief wait does not need fairness.
func (b *byteBudget) take(ctx context.Context, n int64) bool {
	for {
		b.mu.Lock()
		if n <= b.free {
			b.free -= n
			b.mu.Unlock()
			return true
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return false
		}
	}
}

// give returns n bytes that take reserved and wakes the waiters.
func (b *byteBudget) give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free += n
	close(b.freed)
	b.freed = make(chan struct{})
}

// Why an upload was cut off.
var (
	errSlowUpload    = errors.New("upload too slow")
	errUploadTimeout = errors.New("upload outlived the request's deadline")
)

// pacedBody ends an upload that sends nothing for idle, that sends less
// than minRate bytes a second in any window of idle (windows follow each
// other from the first read), or that is still arriving at deadline. The
// windows stop a fast start from buying time: 23 MiB and then a byte every
// 8 s averaged over 4 KiB/s for an hour and a half, holding its memory.
type pacedBody struct {
	r        io.Reader
	rc       *http.ResponseController
	idle     time.Duration
	minRate  int64
	deadline time.Time
	n        int64     // bytes read
	window   time.Time // when the window being counted began
	windowN  int64     // n when it began
	err      error     // errSlowUpload or errUploadTimeout once cut off
}

func newPacedBody(r io.Reader, w http.ResponseWriter, idle time.Duration, minRate int64, deadline time.Time) *pacedBody {
	return &pacedBody{r: r, rc: http.NewResponseController(w), idle: idle, minRate: minRate,
		deadline: deadline, window: time.Now()}
}

func (p *pacedBody) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	// Wait for bytes until idle has passed, until the window ends if it
	// still lacks its bytes, and until the deadline, whichever is first.
	quota := int64(p.idle.Seconds() * float64(p.minRate))
	wait := time.Now().Add(p.idle)
	if end := p.window.Add(p.idle); p.n-p.windowN < quota && end.Before(wait) {
		wait = end
	}
	if p.deadline.Before(wait) {
		wait = p.deadline
	}
	_ = p.rc.SetReadDeadline(wait)
	n, err := p.r.Read(b)
	p.n += int64(n)
	now := time.Now()
	var ne net.Error
	switch {
	case !now.Before(p.deadline):
		p.err = errUploadTimeout
	case errors.As(err, &ne) && ne.Timeout():
		p.err = errSlowUpload // stalled, or the window ended short
	case now.Sub(p.window) >= p.idle:
		if p.n-int64(n)-p.windowN < quota {
			p.err = errSlowUpload
			break
		}
		// This read's bytes count in the next window.
		p.window, p.windowN = p.window.Add(p.idle), p.n-int64(n)
	}
	if p.err != nil {
		return n, p.err
	}
	return n, err
}

// stop reads nothing more from the client, whose connection then closes.
func (p *pacedBody) stop(w http.ResponseWriter) {
	_ = p.rc.SetReadDeadline(time.Now())
	w.Header().Set("Connection", "close")
}

// errOverShare means a file part held more than its request's length said.
var errOverShare = errors.New("the file is longer than the request's Content-Length")

// readInto reads r to its end into buf's spare room, sized to the memory
// the upload took, and never grows buf: io.ReadAll would double it, holding
// up to twice the upload, and as much again in garbage.
func readInto(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			// Full: only the end of the part may follow.
			var probe [1]byte
			n, err := r.Read(probe[:])
			switch {
			case n > 0:
				return buf, errOverShare
			case err == io.EOF:
				return buf, nil
			case err != nil:
				return buf, err
			}
			continue
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
