package desktop

import (
	"fmt"
	"github.com/whisperkey/whisperkey/internal/feedback"
	"github.com/whisperkey/whisperkey/internal/loader"
	"slices"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// menuState is everything the tray menu shows.
type menuState struct {
	cfg    config.Config
	models []models.Entry
	// model is the model in use or, when loading failed, wanted;
	// missing says it is not downloaded (first run with no network).
	model   string
	missing bool
	// pulling are the models being downloaded now.
	pulling map[string]bool
	// From the running model (empty when none is): the GPUs found, the
	// device's compute types and the model's languages.
	gpus []gpu.GPU
	// fetchCUBLAS: the GPU lacks only cuBLAS, which the Device menu offers
	// to download (loader.FetchID; under way while pulling has it).
	fetchCUBLAS  bool
	computeTypes []choice.ComputeType
	languages    []string
	// inputs are the microphones; nil hides the submenu (listing failed).
	inputs []audio.Device
	// profiles is the Profiles submenu (profiles.go).
	profiles []tray.Item
	// auto says which model the config's model: auto chose and why; "" before a load.
	auto string
	fb   feedbackMenu
}

// feedbackMenu is what the menu shows of feedback's.
type feedbackMenu struct {
	// recent are the Recent submenu's dictations; login the start-at-login toggle.
	recent []tray.Item
	login  tray.Toggle
	// recentLanguages are the languages of the recent dictations, newest first.
	recentLanguages []string
	// configLines are the config file's problems (feedback.ConfigNotice).
	configLines []tray.Item
}

// refreshMenu rebuilds the tray's submenus from the registry, the engine's
// report and the config.
func (d *desk) refreshMenu() {
	st := menuState{cfg: d.store.Current(), models: d.ld.Models().List(), model: d.ld.Name(), pulling: d.ld.Pulling(),
		profiles: d.profileItems(), auto: d.ld.AutoNote(), fb: feedbackMenu{recent: d.fb.RecentItems(), login: d.fb.LoginToggle(),
			recentLanguages: d.fb.RecentLanguages(), configLines: d.fb.ConfigNotice().Items()}}
	if l := d.ld.Current(); l != nil {
		st.gpus, st.computeTypes, st.languages = l.Report.GPUs, l.ComputeTypes(), l.Languages()
		st.fetchCUBLAS = l.Decision.FetchCUBLAS != 0
	}
	_, downloaded := d.ld.Models().Resolve(d.ld.Name())
	st.missing = d.ld.Err() != nil && !downloaded
	if devs, err := d.recorder.Devices(); err == nil {
		st.inputs = devs
	} else {
		d.log.Warn("cannot list microphones", "err", err)
	}
	d.tray.SetMenu(buildMenu(st))
}

// buildMenu is the tray menu for st.
func buildMenu(st menuState) tray.Menu {
	cfg := st.cfg
	var m tray.Menu
	// With model: auto only Auto is checked; its label names the model in use.
	auto := cfg.Engine.Model == choice.ModelAuto || cfg.Engine.Model == ""
	for _, e := range st.models {
		label := e.Name
		switch {
		case e.Name == st.model && st.missing:
			label = fmt.Sprintf("%s (%s)", loader.RetryLabel(e.Name), models.FormatSize(e.Size))
		case st.pulling[e.Name]:
			label = e.Name + " (downloading…)"
		case !e.Downloaded:
			label = fmt.Sprintf("%s (%s, download)", e.Name, models.FormatSize(e.Size))
		}
		m.Models = append(m.Models, tray.Item{ID: e.Name, Label: label, Checked: e.Name == st.model && !st.missing && !auto})
	}
	if st.model != "" && !containsID(m.Models, st.model) {
		label := loader.ModelName(st.model)
		if st.missing {
			label = loader.RetryLabel(label)
		}
		m.Models = append([]tray.Item{{ID: st.model, Label: label, Checked: !st.missing && !auto}}, m.Models...)
	}
	autoLabel := "Auto: the model for this computer"
	if st.auto != "" {
		autoLabel = "Auto: " + st.auto
	}
	m.Models = append([]tray.Item{{ID: choice.ModelAuto, Label: autoLabel, Checked: auto && !st.missing}}, m.Models...)

	m.Devices = []tray.Item{{ID: string(choice.DeviceAuto), Label: "Auto", Checked: cfg.Engine.Device == choice.DeviceAuto}}
	for _, g := range st.gpus {
		id := choice.DeviceCUDA
		if g.Vendor == gpu.AMD {
			id = choice.DeviceROCm
		}
		if g.Vendor == gpu.NVIDIA || g.Vendor == gpu.AMD {
			m.Devices = append(m.Devices, tray.Item{ID: string(id), Label: g.Label(), Checked: cfg.Engine.Device == id})
		}
	}
	m.Devices = append(m.Devices, tray.Item{ID: string(choice.DeviceCPU), Label: "CPU", Checked: cfg.Engine.Device == choice.DeviceCPU})
	switch {
	case st.pulling[loader.FetchID]:
		m.Devices = append(m.Devices, tray.Item{ID: loader.FetchID, Label: gpu.FetchLabel + " (downloading…)"})
	case st.fetchCUBLAS:
		m.Devices = append(m.Devices, tray.Item{ID: loader.FetchID, Label: gpu.FetchLabel})
	}
	for _, t := range append([]choice.ComputeType{choice.ComputeAuto}, st.computeTypes...) {
		m.ComputeTypes = append(m.ComputeTypes, tray.Item{ID: string(t), Label: string(t), Checked: cfg.Engine.ComputeType == t})
	}

	m.Languages, m.MoreLanguages = feedback.LanguageItems(cfg.Decode.Language, st.languages, feedback.UserLanguagesFirst(cfg, st.fb.recentLanguages))

	if st.inputs != nil {
		m.InputDevices = []tray.Item{{ID: "", Label: "System default", Checked: cfg.Audio.InputDevice == ""}}
		for _, dev := range st.inputs {
			m.InputDevices = append(m.InputDevices, tray.Item{ID: dev.Name, Label: dev.Name, Checked: cfg.Audio.InputDevice == dev.Name})
		}
	}
	for _, p := range []struct {
		mode  choice.PasteMode
		label string
	}{{choice.Paste, "Paste at the cursor"}, {choice.PasteEnter, "Paste and press Enter"},
		{choice.Clipboard, "Clipboard only"}, {choice.Type, "Type as keystrokes"}} {
		m.PasteModes = append(m.PasteModes, tray.Item{ID: string(p.mode), Label: p.label, Checked: cfg.Paste == p.mode})
	}
	m.Recent, m.StartAtLogin, m.Profiles, m.ConfigLines = st.fb.recent, st.fb.login, st.profiles, st.fb.configLines
	m.Commands = feedback.CommandItems(cfg)
	return m
}

func containsID(items []tray.Item, id string) bool {
	return slices.ContainsFunc(items, func(it tray.Item) bool { return it.ID == id })
}
