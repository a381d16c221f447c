package desktop

import (
	"fmt"
	"strings"

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
	// to download (fetchID); fetching says the download is under way.
	fetchCUBLAS, fetching bool
	computeTypes          []string
	languages             []string
	// inputs are the microphones; nil hides the submenu (listing failed).
	inputs []audio.Device
	// recent are the Recent submenu's dictations; login the start-at-login toggle.
	recent []tray.Item
	login  tray.Toggle
	// profiles is the Profiles submenu (profiles.go).
	profiles []tray.Item
}

// refreshMenu rebuilds the tray's submenus from the registry, the engine's
// report and the config.
func (d *desk) refreshMenu() {
	st := menuState{cfg: d.store.Current(), models: d.models.List(), model: d.modelName, pulling: d.pulling,
		recent: d.recentItems(), login: d.loginToggle(), profiles: d.profileItems()}
	if l := d.svc.Current(); l != nil {
		st.gpus, st.computeTypes, st.languages = l.Report.GPUs, l.ComputeTypes(), l.Languages()
		st.fetchCUBLAS = l.Decision.FetchCUBLAS != 0
	}
	st.fetching = d.pulling[fetchID]
	_, downloaded := d.models.Resolve(d.modelName)
	st.missing = d.modelErr != nil && !downloaded
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
	for _, e := range st.models {
		label := e.Name
		switch {
		case e.Name == st.model && st.missing:
			label = fmt.Sprintf("%s (%s)", retryLabel(e.Name), sizeText(e.Size))
		case st.pulling[e.Name]:
			label = e.Name + " (downloading…)"
		case !e.Downloaded:
			label = fmt.Sprintf("%s (%s, download)", e.Name, sizeText(e.Size))
		}
		m.Models = append(m.Models, tray.Item{ID: e.Name, Label: label, Checked: e.Name == st.model && !st.missing})
	}
	if st.model != "" && !containsID(m.Models, st.model) {
		label := modelName(st.model)
		if st.missing {
			label = retryLabel(label)
		}
		m.Models = append([]tray.Item{{ID: st.model, Label: label, Checked: !st.missing}}, m.Models...)
	}

	m.Devices = []tray.Item{{ID: config.DeviceAuto, Label: "Auto", Checked: cfg.Engine.Device == config.DeviceAuto}}
	for _, g := range st.gpus {
		id := config.DeviceCUDA
		if g.Vendor == gpu.AMD {
			id = config.DeviceROCm
		}
		if g.Vendor == gpu.NVIDIA || g.Vendor == gpu.AMD {
			m.Devices = append(m.Devices, tray.Item{ID: id, Label: g.Label(), Checked: cfg.Engine.Device == id})
		}
	}
	m.Devices = append(m.Devices, tray.Item{ID: config.DeviceCPU, Label: "CPU", Checked: cfg.Engine.Device == config.DeviceCPU})
	switch {
	case st.fetching:
		m.Devices = append(m.Devices, tray.Item{ID: fetchID, Label: gpu.FetchLabel + " (downloading…)"})
	case st.fetchCUBLAS:
		m.Devices = append(m.Devices, tray.Item{ID: fetchID, Label: gpu.FetchLabel})
	}
	for _, t := range append([]string{"auto"}, st.computeTypes...) {
		m.ComputeTypes = append(m.ComputeTypes, tray.Item{ID: t, Label: t, Checked: cfg.Engine.ComputeType == t})
	}

	m.Languages = []tray.Item{{ID: "auto", Label: "Detect automatically", Checked: cfg.Decode.Language == "auto" || cfg.Decode.Language == ""}}
	for _, code := range st.languages {
		m.Languages = append(m.Languages, tray.Item{ID: code, Label: code, Checked: cfg.Decode.Language == code})
	}

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
	m.Recent, m.StartAtLogin, m.Profiles = st.recent, st.login, st.profiles
	m.Commands = commandItems(cfg)
	return m
}

// commandItems list what can be done with the last dictation and the
// selection, with the spoken forms and hotkeys of cfg, so the menu shows
// the words to say and the keys to press.
func commandItems(cfg config.Config) []tray.Item {
	key := func(k string) string {
		if k == "" || k == config.HotkeyOff {
			return ""
		}
		return k
	}
	var said []string
	for _, p := range cfg.Commands.Undo.Items() {
		said = append(said, "“"+p+"”")
	}
	undo := "Undo the last dictation: "
	switch u := key(cfg.Hotkeys.Undo); {
	case len(said) > 0 && u != "":
		undo += "say " + strings.Join(said, " or ") + ", or press " + u
	case len(said) > 0:
		undo += "say " + strings.Join(said, " or ")
	case u != "":
		undo += "press " + u
	default:
		undo += "off (" + config.KeyUndoPhrases + ", " + config.KeyUndo + ")"
	}
	again := "Paste it again: the menu item"
	if k := key(cfg.Hotkeys.PasteAgain); k != "" {
		again += ", or press " + k
	}
	edit := "Rewrite the selection: "
	switch k := key(cfg.Hotkeys.Edit); {
	case k == "":
		edit += "off (" + config.KeyEditHotkey + ")"
	case cfg.Cleanup.URL == "":
		edit += "hold " + k + " (needs " + config.KeyCleanupURL + ")"
	default:
		edit += "hold " + k + " and say what to do"
	}
	return []tray.Item{{ID: "undo", Label: undo}, {ID: "paste-again", Label: again}, {ID: "edit", Label: edit}}
}

func containsID(items []tray.Item, id string) bool {
	for _, it := range items {
		if it.ID == id {
			return true
		}
	}
	return false
}

func sizeText(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%d MB", b>>20)
}
