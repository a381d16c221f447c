package grab

import "time"

// serverClock maps an X server's event timestamps (milliseconds, wrapping at 2^32)
// to local time. Reading events late, as a loaded machine does, would make a key held
// for a second look like a tap if each event took the time it was read; the server's
// stamps keep the real intervals. The offset kept is the smallest seen (the event read
// soonest after it happened), so it only ever moves towards the true one.
type serverClock struct {
	base   time.Time // local time of server time 0, as best known
	last   uint32    // the last stamp, to notice the wrap
	wraps  int64
	primed bool
}

// at is the local time of an event stamped ms that is read now.
func (c *serverClock) at(ms uint32, now time.Time) time.Time {
	if c.primed && ms < c.last && c.last-ms > 1<<31 {
		c.wraps++ // about every 49.7 days of server uptime
	}
	c.last = ms
	since := time.Duration(c.wraps<<32+int64(ms)) * time.Millisecond
	if base := now.Add(-since); !c.primed || base.Before(c.base) {
		c.base, c.primed = base, true
	}
	at := c.base.Add(since)
	if at.After(now) {
		return now
	}
	return at
}
