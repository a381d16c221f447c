package audio

import (
	"fmt"
	"io"
	"log/slog"
)

// MicReport is doctor's view of the microphone: which one dictation uses,
// how it is attached, and whether the app holds it between dictations.
type MicReport struct {
	Device  string `json:"device,omitempty"`
	Kind    string `json:"kind"`              // built-in, USB, Bluetooth, monitor of an output or unknown
	Backend string `json:"backend"`           // the audio system, such as PulseAudio or WASAPI
	Held    bool   `json:"held_open"`         // open between dictations (audio.pre_roll, not Bluetooth)
	Media   string `json:"media,omitempty"`   // what audio.media cannot do here (config.MediaNote), if anything
	Problem string `json:"problem,omitempty"` // why no microphone was found
}

// Probe looks up the microphone cfg names (the default when none) without
// opening it.
func Probe(cfg Config, log *slog.Logger) MicReport {
	preRoll := cfg.PreRoll
	cfg.PreRoll = 0 // doctor never opens the microphone
	r, err := New(cfg, log)
	if err != nil {
		return MicReport{Kind: KindUnknown.String(), Problem: err.Error()}
	}
	defer r.Close()
	rep := MicReport{Backend: r.Backend(), Kind: KindUnknown.String()}
	m, err := r.Microphone()
	if err != nil {
		rep.Problem = err.Error()
		return rep
	}
	rep.Device, rep.Kind = m.Name, m.Kind.String()
	rep.Held = preRoll > 0 && m.Kind != KindBluetooth
	return rep
}

// Print writes the report as doctor's Microphone lines.
func (m MicReport) Print(w io.Writer) {
	switch {
	case m.Problem != "":
		fmt.Fprintf(w, "Microphone: none: %s\n", m.Problem)
	case m.Held:
		fmt.Fprintf(w, "Microphone: %s (%s, %s), held open between dictations for the pre-roll (audio.pre_roll)\n", m.Device, m.Kind, m.Backend)
	default:
		fmt.Fprintf(w, "Microphone: %s (%s, %s), open only while recording\n", m.Device, m.Kind, m.Backend)
	}
	if m.Media != "" {
		fmt.Fprintf(w, "Media: %s\n", m.Media)
	}
}
