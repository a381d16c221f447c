package media

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"testing"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

// fakeSession is an audio session whose state the test sets.
type fakeSession struct {
	name           string
	playing, muted bool
	volume         float32
	gone           bool // the program quit: every call fails
	released       bool
	sets           int // SetVolume and SetMuted calls
}

var errGone = errors.New("gone")

func (s *fakeSession) Name() string { return s.name }
func (s *fakeSession) Playing() (bool, error) {
	if s.gone {
		return false, errGone
	}
	return s.playing, nil
}
func (s *fakeSession) Volume() (float32, error) {
	if s.gone {
		return 0, errGone
	}
	return s.volume, nil
}
func (s *fakeSession) SetVolume(v float32) error {
	if s.gone {
		return errGone
	}
	s.volume, s.sets = v, s.sets+1
	return nil
}
func (s *fakeSession) Muted() (bool, error) {
	if s.gone {
		return false, errGone
	}
	return s.muted, nil
}
func (s *fakeSession) SetMuted(m bool) error {
	if s.gone {
		return errGone
	}
	s.muted, s.sets = m, s.sets+1
	return nil
}
func (s *fakeSession) Release() { s.released = true }

type fakeSystem struct {
	list   []*fakeSession
	listed int
}

func (f *fakeSystem) Enter() (func(), error) { return func() {}, nil }
func (f *fakeSystem) Sessions() ([]audioSession, error) {
	f.listed++
	out := make([]audioSession, len(f.list))
	for i, s := range f.list {
		out[i] = s
	}
	return out, nil
}

// The restore rules, one session each: what begin does to it, what the user
// does during the recording, and what end leaves.
func TestSessionsRestoreOnlyWhatWasChanged(t *testing.T) {
	const near = 0.001
	tests := []struct {
		name         string
		mode         choice.MediaMode
		start        fakeSession
		during       func(s *fakeSession) // the user, while recording
		wantDuring   fakeSession          // playing is not compared
		wantEnd      fakeSession
		wantRestored int
	}{
		{name: "lower: a playing session is turned down and back up", mode: choice.MediaLower,
			start: fakeSession{playing: true, volume: 0.8}, wantDuring: fakeSession{volume: 0.16},
			wantEnd: fakeSession{volume: 0.8}, wantRestored: 1},
		{name: "lower: an inactive session is left", mode: choice.MediaLower,
			start: fakeSession{volume: 0.8}, wantDuring: fakeSession{volume: 0.8}, wantEnd: fakeSession{volume: 0.8}},
		{name: "lower: a muted session is left", mode: choice.MediaLower,
			start: fakeSession{playing: true, muted: true, volume: 0.8}, wantDuring: fakeSession{muted: true, volume: 0.8},
			wantEnd: fakeSession{muted: true, volume: 0.8}},
		{name: "lower: a silent session is left", mode: choice.MediaLower,
			start: fakeSession{playing: true}, wantDuring: fakeSession{}, wantEnd: fakeSession{}},
		{name: "lower: a level the user set meanwhile is kept", mode: choice.MediaLower,
			start: fakeSession{playing: true, volume: 0.8}, during: func(s *fakeSession) { s.volume = 0.5 },
			wantDuring: fakeSession{volume: 0.5}, wantEnd: fakeSession{volume: 0.5}},
		{name: "lower: a level rounded near ours is still ours", mode: choice.MediaLower,
			start: fakeSession{playing: true, volume: 0.8}, during: func(s *fakeSession) { s.volume = 0.165 },
			wantDuring: fakeSession{volume: 0.165}, wantEnd: fakeSession{volume: 0.8}, wantRestored: 1},
		{name: "lower: a mute meanwhile leaves the level restored", mode: choice.MediaLower,
			start: fakeSession{playing: true, volume: 1}, during: func(s *fakeSession) { s.muted = true },
			wantDuring: fakeSession{muted: true, volume: 0.2}, wantEnd: fakeSession{muted: true, volume: 1}, wantRestored: 1},
		{name: "lower: a session gone meanwhile is let go", mode: choice.MediaLower,
			start: fakeSession{playing: true, volume: 0.8}, during: func(s *fakeSession) { s.gone = true },
			wantDuring: fakeSession{volume: 0.16, gone: true}, wantEnd: fakeSession{volume: 0.16, gone: true}},
		{name: "pause: a playing session is muted and unmuted", mode: choice.MediaPause,
			start: fakeSession{playing: true, volume: 0.7}, wantDuring: fakeSession{muted: true, volume: 0.7},
			wantEnd: fakeSession{volume: 0.7}, wantRestored: 1},
		{name: "pause: a session the user muted before is left muted", mode: choice.MediaPause,
			start: fakeSession{playing: true, muted: true, volume: 0.7}, wantDuring: fakeSession{muted: true, volume: 0.7},
			wantEnd: fakeSession{muted: true, volume: 0.7}},
		{name: "pause: an inactive session is left", mode: choice.MediaPause,
			start: fakeSession{volume: 0.7}, wantDuring: fakeSession{volume: 0.7}, wantEnd: fakeSession{volume: 0.7}},
		{name: "pause: a session the user unmuted meanwhile is left as is", mode: choice.MediaPause,
			start: fakeSession{playing: true, volume: 0.7}, during: func(s *fakeSession) { s.muted = false },
			wantDuring: fakeSession{volume: 0.7}, wantEnd: fakeSession{volume: 0.7}},
		{name: "pause: a level changed meanwhile does not stop the unmute", mode: choice.MediaPause,
			start: fakeSession{playing: true, volume: 0.7}, during: func(s *fakeSession) { s.volume = 0.3 },
			wantDuring: fakeSession{muted: true, volume: 0.3}, wantEnd: fakeSession{volume: 0.3}, wantRestored: 1},
		{name: "off: nothing is touched", mode: choice.MediaOff,
			start: fakeSession{playing: true, volume: 0.7}, wantDuring: fakeSession{volume: 0.7}, wantEnd: fakeSession{volume: 0.7}},
	}
	same := func(got, want fakeSession) bool {
		return got.muted == want.muted && math.Abs(float64(got.volume-want.volume)) < near
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.start
			s.name = "player.exe"
			sys := &fakeSystem{list: []*fakeSession{&s}}
			c := newController(tt.mode, testlog.New(t, slog.LevelDebug), nil)
			c.sys = sys
			c.begin(context.Background(), tt.mode)
			if tt.during != nil {
				tt.during(&s)
			}
			if !same(s, tt.wantDuring) {
				t.Errorf("during the recording: muted %v, volume %.3f; want muted %v, volume %.3f", s.muted, s.volume, tt.wantDuring.muted, tt.wantDuring.volume)
			}
			held := len(c.sessions)
			if tt.mode == choice.MediaOff && sys.listed != 0 {
				t.Error("off listed the sessions")
			}
			if held == 0 && !s.released && sys.listed > 0 {
				t.Error("a session begin did not change was not released")
			}
			sets := s.sets
			c.end(context.Background())
			if !same(s, tt.wantEnd) {
				t.Errorf("after the recording: muted %v, volume %.3f; want muted %v, volume %.3f", s.muted, s.volume, tt.wantEnd.muted, tt.wantEnd.volume)
			}
			if restored := s.sets - sets; restored != tt.wantRestored {
				t.Errorf("restored %d sessions, want %d", restored, tt.wantRestored)
			}
			if !s.released && sys.listed > 0 {
				t.Error("the session was not released at the end")
			}
			if c.active || len(c.sessions) != 0 {
				t.Error("end left the controller holding sessions")
			}
		})
	}
}
