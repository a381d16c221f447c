package grab

import (
	"testing"
	"time"
)

func TestServerClock(t *testing.T) {
	t0 := time.Unix(5000, 0)
	tests := []struct {
		name string
		// events: server stamp and how long after t0 it was read
		stamps []uint32
		reads  []time.Duration
		// want: each event's time after t0
		want []time.Duration
	}{
		{
			name:   "read at once",
			stamps: []uint32{1000, 1150, 4000},
			reads:  []time.Duration{0, 150 * time.Millisecond, 3 * time.Second},
			want:   []time.Duration{0, 150 * time.Millisecond, 3 * time.Second},
		},
		{
			name: "a down and its up read together after a stall keep their interval",
			// A 2 s hold read only when the up came, 1 s late.
			stamps: []uint32{1000, 3000, 3100},
			reads:  []time.Duration{0, 3 * time.Second, 3 * time.Second},
			want:   []time.Duration{0, 2 * time.Second, 2100 * time.Millisecond},
		},
		{
			name:   "a late first event is corrected by a prompt later one",
			stamps: []uint32{1000, 2000, 2200},
			reads:  []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond},
			want:   []time.Duration{500 * time.Millisecond, time.Second, 1200 * time.Millisecond},
		},
		{
			name:   "the stamp wraps",
			stamps: []uint32{1<<32 - 100, 50},
			reads:  []time.Duration{0, 150 * time.Millisecond},
			want:   []time.Duration{0, 150 * time.Millisecond},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c serverClock
			for i, ms := range tt.stamps {
				if got := c.at(ms, t0.Add(tt.reads[i])).Sub(t0); got != tt.want[i] {
					t.Errorf("event %d at %v, want %v", i, got, tt.want[i])
				}
			}
		})
	}
}
