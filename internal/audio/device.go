package audio

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"
	"unsafe"

	"github.com/gen2brain/malgo"
)

// The device's life, beside the recording (capture.go): opened, watched,
// following the system default, reopened when lost.

// monitor reports limits and watches the device, reopening it when lost.
func (r *Recorder) monitor(retry time.Duration) {
	defer close(r.done)
	tick := time.NewTicker(retry)
	defer tick.Stop()
	for {
		select {
		case <-r.stopCh:
			return
		case <-r.limitCh:
			r.mu.Lock()
			limit := r.cfg.MaxDuration
			r.mu.Unlock()
			r.log.Info("recording reached the maximum duration", "max", limit)
			r.emit(Event{Kind: EventLimit})
		case <-r.checkCh:
			// Let the audio thread finish stopping so the state is final.
			select {
			case <-time.After(200 * time.Millisecond):
			case <-r.stopCh:
				return
			}
			r.check()
		case <-tick.C:
			r.check()
		}
	}
}

// check notices a device that stopped on its own, reopens a lost one, lets
// the default stand in for a lost configured one, and follows the system
// default when no device is configured.
func (r *Recorder) check() {
	r.devMu.Lock()
	defer r.devMu.Unlock()
	if r.closed {
		return
	}
	if r.dev != nil {
		if r.dev.IsStarted() && (r.standIn != "" || !r.unlistedLocked()) {
			r.followLocked()
			return
		}
		name := r.devName
		r.closeLocked()
		r.mu.Lock()
		if r.state != idle {
			// What was captured stays for Stop; nothing from another device joins it.
			r.lostRec = true
			if r.state == recording {
				r.state = ended
			}
		}
		want := r.cfg.Device
		r.mu.Unlock()
		err := kindErr(ErrDeviceLost, "microphone %q stopped delivering audio; reconnect it or pick another in config input_device", name)
		r.log.Warn("microphone lost", "device", name)
		r.announced = true
		r.emit(Event{Kind: EventDeviceLost, Device: name, Err: err})
		if want != "" && r.standIn == "" {
			r.standIn = name
		}
	}
	if !r.keepOpen {
		r.watchLocked() // opened by the next Start; watched without a stream till then
		return
	}
	was := r.standIn
	if err := r.openLocked(true); err != nil {
		r.log.Debug("microphone still unavailable", "err", err)
		return
	}
	if r.dev != nil {
		r.announceOpenLocked(was)
	}
}

// announceOpenLocked tells what the device just opened is: the default
// standing in for the configured microphone (was), or a microphone back.
func (r *Recorder) announceOpenLocked(was string) {
	if r.standIn != "" {
		r.log.Info("using the default microphone until the configured one returns", "device", r.devName, "configured", r.standIn)
		r.emit(Event{Kind: EventDeviceChanged, Device: r.devName, Was: r.standIn})
		return
	}
	if r.announced || was != "" {
		r.announced = false
		r.log.Info("microphone available again", "device", r.devName)
		r.emit(Event{Kind: EventDeviceRestored, Device: r.devName})
	}
}

// followLocked moves a working recorder to the device it should use now: the
// configured microphone once it is back after the default stood in, or the
// new system default when none is configured. It waits for an idle moment, so
// a recording never mixes two microphones.
func (r *Recorder) followLocked() {
	r.mu.Lock()
	busy := r.state != idle
	want := r.cfg.Device
	r.mu.Unlock()
	if busy || (r.standIn == "" && (want != "" || !r.asDefault)) {
		return
	}
	infos, err := r.actx.Devices(malgo.Capture)
	if err != nil {
		return // cannot tell; the device still delivers
	}
	if r.standIn != "" {
		if matchDevice(infos, want) == nil {
			return
		}
	} else if def := defaultName(infos); def == "" || def == r.devName {
		return
	}
	old, was := r.devName, r.standIn
	r.closeLocked()
	if err := r.openLocked(true); err != nil {
		r.announced = true
		r.log.Warn("microphone unavailable, retrying in the background", "err", err, "every", r.cfg.RetryInterval)
		r.emit(Event{Kind: EventDeviceLost, Device: old, Err: err})
		return
	}
	if was != "" {
		r.announceOpenLocked(was)
		return
	}
	r.log.Info("following the system's default microphone", "device", r.devName, "was", old)
	r.emit(Event{Kind: EventDeviceChanged, Device: r.devName, Was: old})
}

// Recheck reopens the microphone, as after the computer woke from sleep,
// when a stream may still look open yet deliver nothing. A recording in
// progress is left alone; without pre-roll the next Start opens it anyway.
func (r *Recorder) Recheck() {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	r.devMu.Lock()
	defer r.devMu.Unlock()
	r.mu.Lock()
	busy := r.state != idle
	r.mu.Unlock()
	if r.closed || busy || !r.keepOpen {
		return
	}
	r.closeLocked()
	was := r.standIn
	if err := r.openLocked(true); err != nil {
		r.announced = true
		r.log.Warn("microphone unavailable after resume, retrying in the background", "err", err, "every", r.cfg.RetryInterval)
		r.emit(Event{Kind: EventDeviceLost, Device: r.cfg.Device, Err: err})
		return
	}
	if r.dev == nil {
		return // a Bluetooth microphone, opened by the next Start
	}
	r.log.Info("microphone reopened", "device", r.devName)
	if r.announced {
		r.announceOpenLocked(was)
	}
}

// defaultInfo is the device the audio system marks as its default input.
func defaultInfo(infos []malgo.DeviceInfo) *malgo.DeviceInfo {
	for i := range infos {
		if infos[i].IsDefault != 0 {
			return &infos[i]
		}
	}
	return nil
}

// defaultName is the name of the device the audio system marks as its
// default input, or "" when it marks none.
func defaultName(infos []malgo.DeviceInfo) string {
	for i := range infos {
		if infos[i].IsDefault != 0 {
			return infos[i].Name()
		}
	}
	return ""
}

// unlistedLocked reports whether the configured microphone is no longer
// among the capture devices. PulseAudio moves the stream of a source that
// went away to another one instead of stopping it, so a device that still
// runs may be lost all the same. The default microphone is never unlisted:
// following the default is what the user asked for.
func (r *Recorder) unlistedLocked() bool {
	r.mu.Lock()
	want := r.cfg.Device
	r.mu.Unlock()
	if want == "" {
		return false
	}
	infos, err := r.actx.Devices(malgo.Capture)
	if err != nil {
		return false // cannot tell; the device still delivers
	}
	return matchDevice(infos, want) == nil
}

// closeIfColdStart closes the device after a recording unless it is held
// open for the pre-roll.
func (r *Recorder) closeIfColdStart() {
	r.devMu.Lock()
	defer r.devMu.Unlock()
	if !r.holdsLocked() {
		r.closeLocked()
	}
}

// holdsLocked reports whether the device stays open between recordings:
// pre-roll asked for, and not a Bluetooth headset.
func (r *Recorder) holdsLocked() bool { return r.keepOpen && r.kind != KindBluetooth }

// closeLocked uninitialises the device. The callbacks are disowned first,
// and r.mu is not held during Uninit, which waits for the audio thread.
func (r *Recorder) closeLocked() {
	if r.dev == nil {
		return
	}
	r.mu.Lock()
	r.gen = 0
	r.mu.Unlock()
	dev := r.dev
	r.dev = nil
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Stop first: it wakes the PulseAudio backend's loop, which Uninit
		// alone does not, so Uninit would wait forever on a source that
		// delivers nothing (one that was unloaded, or a silent monitor).
		_ = dev.Stop()
		dev.Uninit()
	}()
	select {
	case <-done:
	case <-time.After(uninitTimeout):
		// A backend that never answers must not hang the app. The callbacks
		// are disowned, so the device is left to finish (or not) on its own;
		// the audio system it belongs to is then not torn down (see Close).
		r.stuck = true
		r.log.Warn("the microphone did not close; leaving it to the audio system", "after", uninitTimeout)
	}
}

// openLocked opens and starts the configured device, asking miniaudio for
// 16 kHz mono float32 (it converts whatever the hardware delivers). For
// idle (held open between recordings for the pre-roll) a Bluetooth
// microphone is left closed: holding it would keep the headset in its
// telephone-quality hands-free profile all day. Start opens it then.
func (r *Recorder) openLocked(idle bool) error {
	t0 := time.Now()
	infos, listErr := r.actx.Devices(malgo.Capture)
	listed := time.Now()
	var id *malgo.DeviceID
	name := "default microphone"
	var m *malgo.DeviceInfo
	if r.cfg.Device != "" {
		if listErr != nil {
			return kindErr(ErrNoDevice, "no microphone found: listing microphones failed (%v)", listErr)
		}
		m = matchDevice(infos, r.cfg.Device)
		if m == nil && r.standIn == "" {
			return kindErr(ErrNoDevice, "no microphone found matching %q: connect it or pick another in config input_device (available: %s)", r.cfg.Device, available(infos))
		}
	}
	if m != nil {
		id = new(malgo.DeviceID)
		*id = m.ID
		name = m.Name()
	} else {
		// The default: none is configured, or it stands in for the configured one.
		if listErr == nil && len(infos) == 0 {
			return kindErr(ErrNoDevice, "no microphone found: connect one or pick another in config input_device (available: none)")
		}
		if def := defaultName(infos); def != "" {
			name = def
		}
		m = defaultInfo(infos)
	}
	kind := KindUnknown
	if m != nil {
		kind = deviceKind(rawID(m.ID, r.backend), m.Name())
	}
	r.kind = kind
	if idle && kind == KindBluetooth {
		if !r.btHeld {
			r.btHeld = true
			r.log.Info("not holding a Bluetooth microphone open between recordings: it opens at the key press, without pre-roll", "device", name)
		}
		return nil
	}
	r.btHeld = false

	dc := malgo.DefaultDeviceConfig(malgo.Capture)
	dc.Capture.Format = malgo.FormatF32
	dc.Capture.Channels = 1
	dc.SampleRate = SampleRate
	dc.PeriodSizeInMilliseconds = periodMs
	dc.Periods = periods
	dc.Resampling.Linear.LpfOrder = 8 // miniaudio's maximum: less aliasing from 44.1/48 kHz hardware
	dc.Pulse.StreamNameCapture = "Dictation"
	// The ID is passed inside the config struct, so cgo needs it pinned;
	// miniaudio copies it during InitDevice.
	var pin runtime.Pinner
	if id != nil {
		pin.Pin(id)
		dc.Capture.DeviceID = unsafe.Pointer(id)
	}
	r.nextGen++
	gen := r.nextGen
	dev, err := malgo.InitDevice(r.actx.Context, dc, malgo.DeviceCallbacks{
		Data: func(_, in []byte, _ uint32) { r.onData(gen, in) },
		Stop: func() { r.onStop(gen) },
	})
	pin.Unpin()
	if err != nil {
		return openError(name, err, infos)
	}
	inited := time.Now()
	rate := int(dev.SampleRate())
	r.mu.Lock()
	r.gen, r.rate = gen, rate
	if r.keepOpen {
		r.ring.reset(int(r.cfg.PreRoll.Seconds() * float64(rate)))
	}
	r.mu.Unlock()
	if err := dev.Start(); err != nil {
		r.mu.Lock()
		r.gen = 0
		r.mu.Unlock()
		dev.Uninit()
		return openError(name, err, infos)
	}
	r.dev, r.devName, r.asDefault = dev, name, id == nil
	if id != nil {
		r.standIn = "" // the configured microphone is back
	}
	// How long each step of the open took: at a key press (no pre-roll) the
	// sum is speech the recording misses.
	r.log.Info("microphone open", "device", name, "kind", kind.String(), "backend", r.backend, "rate", rate,
		"device_rate", dev.CaptureInternalSampleRate(), "device_channels", dev.CaptureInternalChannels(),
		"preroll", r.cfg.PreRoll, "list", listed.Sub(t0).Round(time.Millisecond),
		"init", inited.Sub(listed).Round(time.Millisecond), "start", time.Since(inited).Round(time.Millisecond))
	return nil
}

func openError(name string, err error, infos []malgo.DeviceInfo) error {
	if errors.Is(err, malgo.ErrAccessDenied) {
		return kindErr(ErrMicDenied, "microphone access denied for %q: allow desktop apps to use the microphone (Windows: Settings > Privacy & security > Microphone)", name)
	}
	return kindErr(ErrNoDevice, "no microphone found: opening %q failed (%v): connect one or pick another in config input_device (available: %s)", name, err, available(infos))
}

// matchDevice finds the configured device: exact name, then ID, then substring.
func matchDevice(infos []malgo.DeviceInfo, want string) *malgo.DeviceInfo {
	lw := strings.ToLower(want)
	for i := range infos {
		if strings.ToLower(infos[i].Name()) == lw {
			return &infos[i]
		}
	}
	for i := range infos {
		if infos[i].ID.String() == lw {
			return &infos[i]
		}
	}
	for i := range infos {
		if strings.Contains(strings.ToLower(infos[i].Name()), lw) {
			return &infos[i]
		}
	}
	return nil
}

func available(infos []malgo.DeviceInfo) string {
	if len(infos) == 0 {
		return "none"
	}
	const show = 8 // ALSA lists dozens of plugins; the first few make the point
	var names []string
	for i := range infos[:min(len(infos), show)] {
		names = append(names, fmt.Sprintf("%q", infos[i].Name()))
	}
	if len(infos) > show {
		names = append(names, fmt.Sprintf("and %d more", len(infos)-show))
	}
	return strings.Join(names, ", ")
}
