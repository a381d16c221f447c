package audio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/gen2brain/malgo"
)

// Player plays short cues (start, stop, done) on the default output device.
// A cue that would overlap the one playing is skipped: they are feedback, not music.
type Player struct {
	log  *slog.Logger
	ctx  *malgo.AllocatedContext
	mu   sync.Mutex
	busy bool
	wg   sync.WaitGroup
	done bool
}

// NewPlayer opens the audio system for output; backends as in Config (nil: default).
func NewPlayer(backends []malgo.Backend, log *slog.Logger) (*Player, error) {
	ctx, err := malgo.InitContext(backends, malgo.ContextConfig{}, nil)
	if err != nil {
		return nil, fmt.Errorf("open audio output: %w", err)
	}
	return &Player{log: log.With("pkg", "audio"), ctx: ctx}, nil
}

// Play starts playing a WAV and returns at once.
func (p *Player) Play(wav []byte) {
	clip, err := DecodeWAV(bytes.NewReader(wav))
	if err != nil {
		p.log.Warn("cue is not playable", "err", err)
		return
	}
	p.mu.Lock()
	if p.busy || p.done {
		p.mu.Unlock()
		return
	}
	p.busy = true
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		defer func() { p.mu.Lock(); p.busy = false; p.mu.Unlock() }()
		if err := p.play(clip.Mono(), clip.Rate); err != nil {
			p.log.Debug("cue not played", "err", err)
		}
	}()
}

func (p *Player) play(samples []float32, rate int) error {
	cfg := malgo.DefaultDeviceConfig(malgo.Playback)
	cfg.Playback.Format = malgo.FormatF32
	cfg.Playback.Channels = 1
	cfg.SampleRate = uint32(rate)
	finished := make(chan struct{})
	var once sync.Once
	pos := 0
	cb := malgo.DeviceCallbacks{Data: func(out, _ []byte, frames uint32) {
		for i := 0; i < int(frames); i++ {
			v := float32(0)
			if pos < len(samples) {
				v = samples[pos]
				pos++
			}
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
		}
		if pos >= len(samples) {
			once.Do(func() { close(finished) })
		}
	}}
	dev, err := malgo.InitDevice(p.ctx.Context, cfg, cb)
	if err != nil {
		return err
	}
	defer dev.Uninit()
	if err := dev.Start(); err != nil {
		return err
	}
	// A device that stops calling back must not hold the player forever.
	select {
	case <-finished:
	case <-time.After(time.Duration(len(samples))*time.Second/time.Duration(rate) + time.Second):
	}
	return nil
}

// Close waits for a playing cue and releases the audio system. Idempotent.
func (p *Player) Close() error {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return nil
	}
	p.done = true
	p.mu.Unlock()
	p.wg.Wait()
	_ = p.ctx.Uninit()
	p.ctx.Free()
	return nil
}
