package audio

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/gen2brain/malgo"
)

// Defaults of Config.
const (
	DefaultPreRoll       = 500 * time.Millisecond
	DefaultMaxDuration   = 15 * time.Minute
	DefaultRetryInterval = 3 * time.Second
	// uninitTimeout bounds how long closing a device may block its caller.
	uninitTimeout = 2 * time.Second
	maxPreRoll    = 10 * time.Second

	// Audio arrives every periodMs; the backend may hold periods×periodMs
	// before it drops any. Low-latency defaults (3×10 ms) overrun as soon as
	// a busy machine delays the audio thread by 30 ms, cutting words.
	periodMs = 20
	periods  = 20
	// flushWait bounds how long Stop waits for the audio captured up to the
	// moment it was called.
	flushWait = 3 * periodMs * time.Millisecond
)

// Errors callers can branch on.
var (
	// ErrNoDevice means no usable microphone: none connected, the configured
	// one missing, or the audio system refusing to open it.
	ErrNoDevice = errors.New("no microphone found")
	// ErrMicDenied means the OS refused access to the microphone (privacy settings).
	ErrMicDenied = errors.New("microphone access denied")
	// ErrDeviceLost means the microphone stopped delivering audio during a recording.
	ErrDeviceLost = errors.New("microphone stopped delivering audio")
	// ErrNotRecording is returned by Stop without a Start.
	ErrNotRecording = errors.New("not recording")
	// ErrRecording is returned by Start during a recording.
	ErrRecording = errors.New("already recording")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("recorder closed")
)

// Config selects and tunes the microphone. Zero fields take the defaults
// noted, except PreRoll, where zero means "no pre-roll".
type Config struct {
	// Device is the microphone: "" for the system default, otherwise its
	// name (case-insensitive; an exact match wins, then a substring) or its ID.
	Device string
	// PreRoll keeps the microphone open between recordings and puts up to
	// this much audio from before Start at the front of each recording, so a
	// word begun before the hotkey went down keeps its first syllable. 0
	// opens the microphone only while recording: no always-on microphone
	// indicator; what is said from Start on is kept, less the device's
	// start-up (tens of milliseconds on PulseAudio, up to about 110 ms for
	// WASAPI under wine: docs/benchmarks.md). A Bluetooth
	// microphone is never held open: it opens at Start, without pre-roll.
	PreRoll time.Duration
	// MaxDuration caps a recording (after the pre-roll); reaching it ends
	// the capture and sends EventLimit. Default DefaultMaxDuration.
	MaxDuration time.Duration
	// RetryInterval is how often a lost or missing microphone is reopened
	// and an open one is checked. Default DefaultRetryInterval.
	RetryInterval time.Duration
	// Backends restricts the audio systems tried, in order (for example
	// BackendNull in tests). Default: miniaudio's order for the OS.
	Backends []malgo.Backend
}

func (c Config) withDefaults() (Config, error) {
	switch {
	case c.PreRoll < 0:
		return c, fmt.Errorf("audio pre-roll %v is negative: use 0 to open the microphone only while recording", c.PreRoll)
	case c.PreRoll > maxPreRoll:
		return c, fmt.Errorf("audio pre-roll %v is too long: use at most %v", c.PreRoll, maxPreRoll)
	case c.MaxDuration < 0:
		return c, fmt.Errorf("audio max duration %v is negative: use a positive duration such as 15m", c.MaxDuration)
	case c.RetryInterval < 0:
		return c, fmt.Errorf("audio retry interval %v is negative", c.RetryInterval)
	}
	if c.MaxDuration == 0 {
		c.MaxDuration = DefaultMaxDuration
	}
	if c.RetryInterval == 0 {
		c.RetryInterval = DefaultRetryInterval
	}
	return c, nil
}

// Device describes a capture device.
type Device struct {
	Name    string
	ID      string // backend identifier, usable as Config.Device
	Default bool
	Kind    Kind
}

// EventKind says what happened to the recorder.
type EventKind int

// Event kinds.
const (
	// EventLimit: the recording reached MaxDuration and stopped growing; call Stop.
	EventLimit EventKind = iota + 1
	// EventDeviceLost: the microphone could not be opened or stopped working
	// (Err says why). The recorder keeps retrying.
	EventDeviceLost
	// EventDeviceRestored: the microphone works again.
	EventDeviceRestored
	// EventDeviceChanged: recording now uses another microphone (Device; Was
	// is the one before): the system's default input moved while no device is
	// configured, or the configured one went away and the default stands in
	// until it returns (then EventDeviceRestored names it).
	EventDeviceChanged
)

func (k EventKind) String() string {
	switch k {
	case EventLimit:
		return "limit"
	case EventDeviceLost:
		return "device-lost"
	case EventDeviceRestored:
		return "device-restored"
	case EventDeviceChanged:
		return "device-changed"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is a notification from the recorder.
type Event struct {
	Kind   EventKind
	Device string // device name, when known
	Was    string // for EventDeviceChanged: the device used before
	Err    error  // for EventDeviceLost
}

// Stats describes the last recording.
type Stats struct {
	// FirstSampleLatency is the time from Start to the arrival of the first
	// audio captured after it: one device period with the stream kept open,
	// the device start-up time without.
	FirstSampleLatency time.Duration
	PreRoll            time.Duration // audio from before Start at the front
	Duration           time.Duration // all audio returned
	Limited            bool          // MaxDuration was reached
	Device             string
}

type recState int

const (
	idle recState = iota
	recording
	limited // MaxDuration reached; samples are kept for Stop
	ended   // the microphone was lost; samples are kept for Stop, and no other device's are added
)

// Recorder captures 16 kHz mono audio from one microphone.
type Recorder struct {
	cfg      Config
	log      *slog.Logger
	actx     *malgo.AllocatedContext
	backend  string // the audio system in use, such as WASAPI
	keepOpen bool

	opMu sync.Mutex // serialises Start, Stop, Cancel and Close

	devMu     sync.Mutex // guards the fields below; never held by the audio callback
	dev       *malgo.Device
	devName   string
	nextGen   uint64
	announced bool // EventDeviceLost sent and not yet followed by EventDeviceRestored
	// asDefault: dev was opened as the system default (no device ID), so it
	// follows the default when that moves.
	asDefault bool
	// standIn is the configured microphone that went away while the default
	// stands in for it; "" when none does.
	standIn string
	closed  bool
	stuck   bool // a device's Uninit never returned; the context must not be freed under it
	kind    Kind // of the device last opened or about to be
	btHeld  bool // a Bluetooth microphone was left closed while idle (logged once)
	// watched is the microphone the next Start opens as last seen while
	// none is open (watch.go), for the input_device watchedFor; watching:
	// it has been looked at.
	watched, watchedFor string
	watching            bool

	mu      sync.Mutex // guards the fields below; taken by the audio callback
	gen     uint64     // generation of the device whose callbacks count; 0 = none
	rate    int
	ring    ring
	ringAt  time.Time // arrival of the newest ring sample
	state   recState
	chunks  [][]float32
	n       int // samples in chunks
	maxN    int
	preN    int
	startAt time.Time
	firstAt time.Time
	lostRec bool          // the device was lost during this recording
	flush   chan struct{} // closed by the first callback after flushAt
	flushAt time.Time
	recDev  string
	stats   Stats

	checkCh chan struct{} // a stop notification arrived
	limitCh chan struct{} // MaxDuration reached
	stopCh  chan struct{} // closed by Close to end monitor
	done    chan struct{} // closed when monitor has returned

	pending *Config // from Reconfigure during a recording; applied when it ends (guarded by opMu)

	evMu     sync.Mutex // guards evClosed and sending on events
	evClosed bool
	events   chan Event
}

// New opens the audio system and, when cfg.PreRoll > 0, the microphone. A
// microphone that cannot be opened is not an error here: the recorder sends
// EventDeviceLost, retries in the background, and Start reports the problem.
func New(cfg Config, log *slog.Logger) (*Recorder, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("pkg", "audio")

	// PulseAudio shows this name next to the recording stream.
	appName := []byte("WhisperKey\x00")
	var pin runtime.Pinner
	pin.Pin(&appName[0])
	// miniaudio does not say which backend of a list it took, and which one
	// captures (WASAPI or a fallback) matters when a microphone misbehaves:
	// the backends are tried one at a time, in miniaudio's order.
	var actx *malgo.AllocatedContext
	var backend malgo.Backend
	backends := cfg.Backends
	if len(backends) == 0 {
		backends = osBackends()
	}
	for _, b := range backends {
		var list []malgo.Backend
		if b != backendAny {
			list = []malgo.Backend{b}
		}
		actx, err = malgo.InitContext(list, malgo.ContextConfig{
			Pulse: malgo.PulseContextConfig{PApplicationName: &appName[0]},
		}, func(msg string) {
			log.Debug("miniaudio", "msg", strings.TrimSpace(msg))
		})
		if err == nil {
			backend = b
			break
		}
		log.Debug("audio backend unavailable", "backend", backendName(b), "err", err)
	}
	pin.Unpin()
	if err != nil {
		return nil, kindErr(ErrNoDevice, "no audio system found (%v): install or start one (Windows: check the Windows Audio service; Linux: PulseAudio, PipeWire or ALSA)", err)
	}

	r := &Recorder{
		cfg:      cfg,
		log:      log,
		actx:     actx,
		backend:  backendName(backend),
		keepOpen: cfg.PreRoll > 0,
		checkCh:  make(chan struct{}, 1),
		limitCh:  make(chan struct{}, 1),
		stopCh:   make(chan struct{}),
		done:     make(chan struct{}),
		events:   make(chan Event, 16),
	}
	if r.keepOpen {
		r.devMu.Lock()
		if err := r.openLocked(true); err != nil {
			r.announced = true
			log.Warn("microphone unavailable, retrying in the background", "err", err, "every", cfg.RetryInterval)
			r.emit(Event{Kind: EventDeviceLost, Device: cfg.Device, Err: err})
		}
		r.devMu.Unlock()
	} else {
		// The first look now, not at the first tick: a microphone changed
		// before that tick (a dictation can fill it) would be taken as the
		// first one seen, and nobody told.
		r.devMu.Lock()
		r.watchLocked()
		r.devMu.Unlock()
	}
	go r.monitor(cfg.RetryInterval)
	return r, nil
}

// Events delivers limit and device notifications. It is closed by Close.
// Events are dropped (and logged) if nobody reads them.
func (r *Recorder) Events() <-chan Event { return r.events }

// Devices lists the capture devices.
func (r *Recorder) Devices() ([]Device, error) {
	r.devMu.Lock()
	defer r.devMu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	infos, err := r.actx.Devices(malgo.Capture)
	if err != nil {
		return nil, fmt.Errorf("list microphones: %w", err)
	}
	out := make([]Device, len(infos))
	for i := range infos {
		out[i] = Device{Name: infos[i].Name(), ID: infos[i].ID.String(), Default: infos[i].IsDefault != 0,
			Kind: deviceKind(rawID(infos[i].ID, r.backend), infos[i].Name())}
	}
	return out, nil
}

// Microphone is the device recordings use now: the configured one, else
// the system default. ErrNoDevice when there is none.
func (r *Recorder) Microphone() (Device, error) {
	r.devMu.Lock()
	defer r.devMu.Unlock()
	if r.closed {
		return Device{}, ErrClosed
	}
	infos, err := r.actx.Devices(malgo.Capture)
	if err != nil {
		return Device{}, fmt.Errorf("list microphones: %w", err)
	}
	r.mu.Lock()
	want := r.cfg.Device
	r.mu.Unlock()
	m := defaultInfo(infos)
	if want != "" {
		if m = matchDevice(infos, want); m == nil {
			return Device{}, kindErr(ErrNoDevice, "no microphone found matching %q: connect it or pick another in config input_device (available: %s)", want, available(infos))
		}
	}
	if m == nil {
		return Device{}, kindErr(ErrNoDevice, "no microphone found: connect one (the audio system marks no default input; available: %s)", available(infos))
	}
	return Device{Name: m.Name(), ID: m.ID.String(), Default: m.IsDefault != 0, Kind: deviceKind(rawID(m.ID, r.backend), m.Name())}, nil
}

// HeldOpen reports whether the microphone is open between recordings (for
// the pre-roll), which the desktop shows: a privacy indicator stays on.
func (r *Recorder) HeldOpen() bool {
	r.devMu.Lock()
	defer r.devMu.Unlock()
	return r.dev != nil && r.holdsLocked()
}

// Backend is the audio system in use, such as PulseAudio or WASAPI.
func (r *Recorder) Backend() string { return r.backend }

// Start begins a recording, keeping everything captured from now on plus
// up to PreRoll of audio from just before the call.
func (r *Recorder) Start() error {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	now := time.Now()
	r.devMu.Lock()
	defer r.devMu.Unlock()
	if r.closed {
		return ErrClosed
	}
	r.mu.Lock()
	if r.state != idle {
		r.mu.Unlock()
		return ErrRecording
	}
	r.beginLocked(now)
	r.mu.Unlock()
	if r.dev != nil {
		return nil
	}
	// Cold start (no pre-roll) or a device that was lost: open it now. The
	// recording is armed first so its very first callback is kept.
	was := r.standIn
	if err := r.openLocked(false); err != nil {
		r.mu.Lock()
		r.resetLocked()
		r.mu.Unlock()
		return err
	}
	r.mu.Lock()
	r.recDev = r.devName
	r.mu.Unlock()
	if r.announced {
		r.announceOpenLocked(was)
	}
	return nil
}

// Stop ends the recording and returns it as 16 kHz mono samples. If the
// microphone was lost during the recording, Stop returns what was captured
// together with an error wrapping ErrDeviceLost.
func (r *Recorder) Stop() ([]float32, error) {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	r.mu.Lock()
	if r.state == idle {
		r.mu.Unlock()
		return nil, ErrNotRecording
	}
	if r.state == recording && r.gen != 0 {
		// The device still holds up to a period of audio spoken before this
		// call: wait for the next delivery so the last syllable is kept.
		wait := make(chan struct{})
		r.flush, r.flushAt = wait, time.Now()
		r.mu.Unlock()
		select {
		case <-wait:
		case <-time.After(flushWait):
		}
		r.mu.Lock()
		r.flush = nil
	}
	samples := make([]float32, 0, r.n)
	for _, c := range r.chunks {
		samples = append(samples, c...)
	}
	rate, lost, dev := r.rate, r.lostRec, r.recDev
	r.stats = Stats{
		PreRoll:  samplesDur(r.preN, rate),
		Duration: samplesDur(len(samples), rate),
		Limited:  r.state == limited,
		Device:   dev,
	}
	if !r.firstAt.IsZero() {
		r.stats.FirstSampleLatency = r.firstAt.Sub(r.startAt)
	}
	r.resetLocked()
	r.mu.Unlock()

	r.closeIfColdStart()
	r.applyPending()
	if rate != SampleRate && rate > 0 {
		samples = Resample(samples, rate, SampleRate)
	}
	r.log.Debug("recording stopped", "duration", r.stats.Duration, "preroll", r.stats.PreRoll,
		"first_sample_latency", r.stats.FirstSampleLatency, "limited", r.stats.Limited)
	if lost {
		return samples, kindErr(ErrDeviceLost, "microphone %q stopped delivering audio during the recording; %v of audio was kept", dev, r.stats.Duration.Round(time.Millisecond))
	}
	return samples, nil
}

// Captured returns the samples of the recording in progress from index
// from on, exactly as Stop will return them; nil when there are none, no
// recording is in progress, or the device delivers another rate than 16 kHz
// (Stop resamples the whole recording then, and its samples near the end
// would differ from a piece resampled early).
func (r *Recorder) Captured(from int) []float32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == idle || r.rate != SampleRate || from >= r.n || from < 0 {
		return nil
	}
	out := make([]float32, 0, r.n-from)
	at := 0
	for _, c := range r.chunks {
		if end := at + len(c); end > from {
			out = append(out, c[max(from-at, 0):]...)
		}
		at += len(c)
	}
	return out
}

// Cancel ends the recording and discards it. It does nothing when idle.
func (r *Recorder) Cancel() {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	r.mu.Lock()
	wasRecording := r.state != idle
	r.resetLocked()
	r.mu.Unlock()
	if wasRecording {
		r.closeIfColdStart()
		r.applyPending()
	}
}

// Reconfigure switches to cfg's device, pre-roll and maximum length (the
// audio system and retry interval stay as New set them). It applies at once
// when idle, or when the recording in progress ends, so a dictation is never
// cut. A device that cannot be opened is reported as EventDeviceLost and
// retried, as in New; only an invalid cfg is an error.
func (r *Recorder) Reconfigure(cfg Config) error {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	cfg.Backends, cfg.RetryInterval = r.cfg.Backends, r.cfg.RetryInterval
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	r.mu.Lock()
	busy := r.state != idle
	r.mu.Unlock()
	if busy {
		r.pending = &cfg
		return nil
	}
	return r.apply(cfg)
}

// applyPending applies a Reconfigure that came during the recording that
// just ended. opMu is held.
func (r *Recorder) applyPending() {
	if r.pending == nil {
		return
	}
	cfg := *r.pending
	r.pending = nil
	_ = r.apply(cfg) // cfg was validated by Reconfigure; ErrClosed needs no report
}

// apply installs cfg while idle, reopening the microphone when the device or
// the pre-roll changed. opMu is held.
func (r *Recorder) apply(cfg Config) error {
	r.devMu.Lock()
	defer r.devMu.Unlock()
	if r.closed {
		return ErrClosed
	}
	reopen := cfg.Device != r.cfg.Device || cfg.PreRoll != r.cfg.PreRoll
	if cfg.Device != r.cfg.Device {
		r.standIn = "" // the user chose anew
	}
	r.mu.Lock()
	r.cfg = cfg
	r.mu.Unlock()
	r.keepOpen = cfg.PreRoll > 0
	if !reopen {
		return nil
	}
	r.closeLocked()
	if !r.keepOpen {
		return nil // opened by the next Start
	}
	if err := r.openLocked(true); err != nil {
		r.announced = true
		r.log.Warn("microphone unavailable, retrying in the background", "err", err, "every", cfg.RetryInterval)
		r.emit(Event{Kind: EventDeviceLost, Device: cfg.Device, Err: err})
		return nil
	}
	if r.dev != nil && r.announced {
		r.announced = false
		r.emit(Event{Kind: EventDeviceRestored, Device: r.devName})
	}
	return nil
}

// Stats describes the last recording returned by Stop.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Close stops the background goroutine, closes the microphone and the
// audio system, and closes Events. It is safe to call more than once.
func (r *Recorder) Close() error {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	r.devMu.Lock()
	if r.closed {
		r.devMu.Unlock()
		return nil
	}
	r.closed = true
	r.devMu.Unlock()

	close(r.stopCh)
	<-r.done

	r.devMu.Lock()
	r.closeLocked()
	r.devMu.Unlock()
	r.mu.Lock()
	r.resetLocked()
	r.mu.Unlock()

	r.devMu.Lock()
	stuck := r.stuck
	r.devMu.Unlock()
	var err error
	if !stuck {
		err = r.actx.Uninit()
		r.actx.Free()
	}

	r.evMu.Lock()
	r.evClosed = true
	close(r.events)
	r.evMu.Unlock()
	if err != nil {
		return fmt.Errorf("close audio system: %w", err)
	}
	return nil
}

// beginLocked arms a recording, seeding it with the pre-roll: the ring's
// samples that arrived no earlier than now-PreRoll (the ring may be stale if
// the source paused). devMu and mu are held.
func (r *Recorder) beginLocked(now time.Time) {
	pre := 0
	if r.holdsLocked() && r.rate > 0 && r.ring.n > 0 {
		want := r.cfg.PreRoll - now.Sub(r.ringAt)
		pre = min(int(want.Seconds()*float64(r.rate)), r.ring.n)
	}
	first := make([]float32, 0, max(pre, r.chunkSize()))
	if pre > 0 {
		first = r.ring.appendLast(first, pre)
	}
	r.chunks = [][]float32{first}
	r.n, r.preN = len(first), len(first)
	r.maxN = r.preN + int(r.cfg.MaxDuration.Seconds()*float64(max(r.rate, SampleRate)))
	r.state = recording
	r.startAt, r.firstAt = now, time.Time{}
	r.lostRec = false
	r.recDev = r.devName
}

func (r *Recorder) resetLocked() {
	r.state = idle
	r.chunks = nil
	r.n, r.preN = 0, 0
}

func (r *Recorder) chunkSize() int { return max(r.rate, SampleRate) } // one second

// onData runs on the audio thread: copy and return quickly.
func (r *Recorder) onData(gen uint64, in []byte) {
	if len(in) < 4 {
		return
	}
	s := unsafe.Slice((*float32)(unsafe.Pointer(&in[0])), len(in)/4)
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if gen != r.gen {
		return
	}
	if r.keepOpen {
		r.ring.write(s)
		r.ringAt = now
	}
	if r.state != recording {
		return
	}
	if r.firstAt.IsZero() {
		r.firstAt = now
	}
	if room := r.maxN - r.n; len(s) >= room {
		s = s[:room]
		r.state = limited
		select {
		case r.limitCh <- struct{}{}:
		default:
		}
	}
	for len(s) > 0 {
		last := &r.chunks[len(r.chunks)-1]
		if len(*last) == cap(*last) {
			r.chunks = append(r.chunks, make([]float32, 0, r.chunkSize()))
			continue
		}
		k := min(cap(*last)-len(*last), len(s))
		*last = append(*last, s[:k]...)
		s = s[k:]
		r.n += k
	}
	if r.flush != nil && now.After(r.flushAt) {
		close(r.flush)
		r.flush = nil
	}
}

// onStop runs when miniaudio reports the device stopped. That also happens
// when PulseAudio merely suspends an idle source, so the monitor checks the
// device state before calling it lost.
func (r *Recorder) onStop(gen uint64) {
	r.mu.Lock()
	current := gen == r.gen
	r.mu.Unlock()
	if current {
		select {
		case r.checkCh <- struct{}{}:
		default:
		}
	}
}

// emit sends an event without ever blocking the caller.
func (r *Recorder) emit(e Event) {
	r.evMu.Lock()
	defer r.evMu.Unlock()
	if r.evClosed {
		return
	}
	select {
	case r.events <- e:
	default:
		r.log.Warn("audio event dropped: nobody is reading Events", "kind", e.Kind.String())
	}
}

func samplesDur(n, rate int) time.Duration {
	if rate <= 0 {
		return 0
	}
	return time.Duration(n) * time.Second / time.Duration(rate)
}
