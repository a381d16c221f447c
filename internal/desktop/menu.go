package desktop

import (
	"fmt"
	"slices"
	"strings"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/tray"
	"github.com/whisperkey/whisperkey/internal/whisper"
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
	// auto says which model the config's model: auto chose and why; "" before a load.
	auto string
	// recentLanguages are the languages of the recent dictations, newest first.
	recentLanguages []string
	// configLines are the config file's problems (confignotice.go).
	configLines []tray.Item
}

// refreshMenu rebuilds the tray's submenus from the registry, the engine's
// report and the config.
func (d *desk) refreshMenu() {
	st := menuState{cfg: d.store.Current(), models: d.models.List(), model: d.modelName, pulling: d.pulling,
		recent: d.recentItems(), login: d.loginToggle(), profiles: d.profileItems(), auto: d.autoNote,
		recentLanguages: d.recentLanguages(), configLines: d.cfgNotice.items()}
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
	// With model: auto only Auto is checked; its label names the model in use.
	auto := cfg.Engine.Model == choice.ModelAuto || cfg.Engine.Model == ""
	for _, e := range st.models {
		label := e.Name
		switch {
		case e.Name == st.model && st.missing:
			label = fmt.Sprintf("%s (%s)", retryLabel(e.Name), models.FormatSize(e.Size))
		case st.pulling[e.Name]:
			label = e.Name + " (downloading…)"
		case !e.Downloaded:
			label = fmt.Sprintf("%s (%s, download)", e.Name, models.FormatSize(e.Size))
		}
		m.Models = append(m.Models, tray.Item{ID: e.Name, Label: label, Checked: e.Name == st.model && !st.missing && !auto})
	}
	if st.model != "" && !containsID(m.Models, st.model) {
		label := modelName(st.model)
		if st.missing {
			label = retryLabel(label)
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
	case st.fetching:
		m.Devices = append(m.Devices, tray.Item{ID: fetchID, Label: gpu.FetchLabel + " (downloading…)"})
	case st.fetchCUBLAS:
		m.Devices = append(m.Devices, tray.Item{ID: fetchID, Label: gpu.FetchLabel})
	}
	for _, t := range append([]string{"auto"}, st.computeTypes...) {
		m.ComputeTypes = append(m.ComputeTypes, tray.Item{ID: t, Label: t, Checked: cfg.Engine.ComputeType == t})
	}

	m.Languages, m.MoreLanguages = languageItems(cfg.Decode.Language, st.languages, st.recentLanguages)

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
	m.Recent, m.StartAtLogin, m.Profiles, m.ConfigLines = st.recent, st.login, st.profiles, st.configLines
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

// languageItems are the Language menu: detection, the configured language
// and those of the recent dictations first, as far as the menu has room,
// then the rest of the model's languages, by name, in More languages.
func languageItems(configured string, languages, recent []string) (top, more []tray.Item) {
	if len(languages) == 0 {
		return []tray.Item{{ID: "auto", Label: "Detect automatically", Checked: configured == "auto" || configured == ""}}, nil
	}
	item := func(code string) tray.Item {
		return tray.Item{ID: code, Label: fmt.Sprintf("%s (%s)", whisper.LanguageTitle(code), code), Checked: code == configured}
	}
	top = []tray.Item{{ID: "auto", Label: "Detect automatically", Checked: configured == "auto" || configured == ""}}
	known := map[string]bool{}
	for _, code := range languages {
		known[code] = true
	}
	shown := map[string]bool{}
	for _, code := range append([]string{configured}, recent...) {
		if known[code] && !shown[code] && len(top) < tray.MaxLanguages {
			shown[code] = true
			top = append(top, item(code))
		}
	}
	for _, code := range languages {
		if !shown[code] {
			more = append(more, item(code))
		}
	}
	slices.SortStableFunc(more, func(a, b tray.Item) int { return strings.Compare(a.Label, b.Label) })
	return top, more
}

func containsID(items []tray.Item, id string) bool {
	for _, it := range items {
		if it.ID == id {
			return true
		}
	}
	return false
}
