package desktop

import (
	"context"
	"strings"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// copyRecent puts a Recent dictation on the clipboard.
func (d *desk) copyRecent(ctx context.Context, id string) {
	if d.fb.Recent == nil {
		return
	}
	text, err := d.fb.RecentText(id)
	if err != nil {
		d.status(tray.StateError, "That dictation is no longer in the Recent list")
		return
	}
	if err := d.paster.Copy(ctx, text); err != nil {
		d.status(tray.StateError, "Could not copy the dictation: "+err.Error())
		return
	}
	d.status(tray.StateIdle, "Copied to the clipboard — ready")
}

// setStartAtLogin turns the start-at-login entry on or off.
func (d *desk) setStartAtLogin(value string) {
	if state, text, ok := d.fb.SetStartAtLogin(value == "on"); ok {
		d.status(state, text)
		d.refreshMenu()
	}
}

// checkGPUUsed tells the user when a GPU was found but the engine runs on
// the CPU although the config did not ask for it.
func (d *desk) checkGPUUsed(cfg config.Config) {
	if reason, ok := gpuNotUsed(d.svc.Current(), cfg); ok {
		d.fb.Tell(notify.GPUNotUsed(reason, d.opt.GuidePath))
	}
}

// checkVocabulary tells the user, once per distinct list, which vocabulary
// terms (the config's or a profile's) the loaded model has no room for.
func (d *desk) checkVocabulary() {
	l := d.svc.Current()
	if l == nil {
		return
	}
	cfg := d.dictation.Config()
	var msgs []string
	add := func(where string, c config.Config) {
		if msg := dictation.VocabularyLeftOut(l.FitVocabulary(dictation.DecodeOptions(c))); msg != "" {
			msgs = append(msgs, where+msg)
		}
	}
	add("", cfg)
	for _, name := range cfg.Profiles.Names() {
		if p, ok := cfg.Profiles.Find(name); ok && p.Vocabulary != nil {
			add("profile "+name+": ", cfg.WithProfile(p))
		}
	}
	msg := strings.Join(msgs, "; ")
	if msg == d.vocabTold {
		return
	}
	d.vocabTold = msg
	if msg != "" {
		d.log.Warn(msg)
		d.fb.Tell(notify.VocabularyTooLong(msg))
	}
}

// gpuNotUsed says why l runs on the CPU when an NVIDIA or AMD GPU was found
// and cfg did not ask for the CPU; ok is false otherwise.
func gpuNotUsed(l *backend.Loaded, cfg config.Config) (reason string, ok bool) {
	if l == nil || l.Spec.Device != config.DeviceCPU || cfg.Engine.Device == config.DeviceCPU {
		return "", false
	}
	for _, g := range l.Report.GPUs {
		if g.Vendor == gpu.NVIDIA || g.Vendor == gpu.AMD {
			return l.Message, true
		}
	}
	return "", false
}
