package audio

import (
	"cmp"

	"github.com/gen2brain/malgo"
)

// The microphones watched while none is open: with the pre-roll off (or a
// Bluetooth microphone not held), the monitor lists the capture devices
// every RetryInterval instead. Listing asks the audio system's existing
// connection (PulseAudio's source list, WASAPI's device enumerator) and
// opens no stream, so no microphone-in-use indicator comes on and a
// headset keeps its profile, yet a microphone unplugged, back, or a new
// system default is told within the interval rather than at the next press.

// watchLocked compares the microphone the next Start would open with the
// one last seen, and tells what changed. The first look tells only a
// missing microphone.
func (r *Recorder) watchLocked() {
	r.mu.Lock()
	busy, want := r.state != idle, r.cfg.Device
	r.mu.Unlock()
	if r.dev != nil || busy {
		return // a recording's own stream, which check follows
	}
	infos, err := r.actx.Devices(malgo.Capture)
	if err != nil {
		return // cannot tell; the next Start says what is wrong
	}
	name := defaultName(infos)
	if want != "" {
		name = ""
		if m := matchDevice(infos, want); m != nil {
			name = m.Name()
		}
	}
	was, first := r.watched, !r.watching || r.watchedFor != want
	r.watched, r.watchedFor, r.watching = name, want, true
	switch {
	case name == "" && (first || was != ""):
		r.announced = true
		err := kindErr(ErrNoDevice, "no microphone found: connect one or pick another in the Input device menu (available: %s)", available(infos))
		lost := cmp.Or(was, want) // as last seen, else as configured
		if want != "" {
			err = kindErr(ErrDeviceLost, "microphone %q is not connected; reconnect it or pick another in config input_device (available: %s)", want, available(infos))
		}
		r.log.Warn("microphone gone while idle", "device", lost)
		r.emit(Event{Kind: EventDeviceLost, Device: lost, Err: err})
	case first || name == was:
	case was == "":
		if r.announced {
			r.announced = false
			r.log.Info("microphone available again", "device", name)
			r.emit(Event{Kind: EventDeviceRestored, Device: name})
		}
	default:
		r.log.Info("the microphone in use changed while idle", "device", name, "was", was)
		r.emit(Event{Kind: EventDeviceChanged, Device: name, Was: was})
	}
}
