package feedback

import "time"

// ticking is a goroutine that calls a func at every tick until stopped: the
// indicator's level feed and the daily pruning of old takes.
type ticking struct {
	stop chan struct{}
	done chan struct{}
}

// every starts calling fn every period, the first time a period from now.
func every(period time.Duration, fn func()) *ticking {
	t := &ticking{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-t.stop:
				return
			case <-tick.C:
				fn()
			}
		}
	}()
	return t
}

// end stops the calls and waits for one that runs, so none comes after.
func (t *ticking) end() {
	close(t.stop)
	<-t.done
}
