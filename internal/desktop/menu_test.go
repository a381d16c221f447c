package desktop

import (
	"bytes"
	"github.com/whisperkey/whisperkey/internal/feedback"
	"github.com/whisperkey/whisperkey/internal/loader"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// labels renders items as "label" with a * when checked, for comparison.
func labels(items []tray.Item) string {
	var out []string
	for _, it := range items {
		s := it.ID + "=" + it.Label
		if it.Checked {
			s += "*"
		}
		out = append(out, s)
	}
	return strings.Join(out, " | ")
}

func TestBuildMenu(t *testing.T) {
	registry := func(downloaded ...string) []models.Entry {
		var out []models.Entry
		for _, m := range models.Registry()[:4] { // tiny, tiny.en, base, base.en
			e := models.Entry{Model: m}
			for _, d := range downloaded {
				e.Downloaded = e.Downloaded || d == m.Name
			}
			out = append(out, e)
		}
		return out
	}
	cfg := config.Defaults()
	cfg.Engine.Model = "base"
	auto := config.Defaults()
	onCPU := cfg
	onCPU.Engine.Device, onCPU.Engine.ComputeType, onCPU.Decode.Language, onCPU.Paste = "cpu", "int8", "de", choice.Clipboard
	onCPU.Audio.InputDevice = "USB mic"
	folder := cfg
	folder.Engine.Model = "/models/whisper-small"
	rtx := gpu.GPU{Vendor: gpu.NVIDIA, Name: "NVIDIA GeForce RTX 3060"}
	const moreLanguages = tray.ActionKind(-1) // the Language menu's More languages submenu

	tests := []struct {
		name string
		st   menuState
		want map[tray.ActionKind]string
	}{
		{
			name: "running on base with a GPU found",
			st: menuState{cfg: cfg, models: registry("base", "tiny.en"), model: "base",
				gpus: []gpu.GPU{rtx}, computeTypes: []choice.ComputeType{choice.Int8, choice.Float32}, languages: []string{"en", "de"},
				inputs: []audio.Device{{Name: "Built-in"}}},
			want: map[tray.ActionKind]string{
				tray.SelectModel: "auto=Auto: the model for this computer | tiny=tiny (78.0 MB, download) | tiny.en=tiny.en | base=base* | " +
					"base.en=base.en (148.0 MB, download)",
				tray.SelectDevice:      "auto=Auto* | cuda=" + rtx.Label() + " | cpu=CPU",
				tray.SelectComputeType: "auto=auto* | int8=int8 | float32=float32",
				tray.SelectLanguage:    "auto=Detect automatically*",
				moreLanguages:          "en=English (en) | de=German (de)",
				tray.SelectInputDevice: "=System default* | Built-in=Built-in",
				tray.SelectPasteMode:   "paste=Paste at the cursor* | paste-enter=Paste and press Enter | clipboard=Clipboard only | type=Type as keystrokes",
			},
		},
		{
			name: "choices from the config are checked",
			st: menuState{cfg: onCPU, models: registry("base"), model: "base", computeTypes: []choice.ComputeType{choice.Int8},
				languages: []string{"en", "de"}, inputs: []audio.Device{{Name: "Built-in"}, {Name: "USB mic"}}},
			want: map[tray.ActionKind]string{
				tray.SelectDevice:      "auto=Auto | cpu=CPU*",
				tray.SelectComputeType: "auto=auto | int8=int8*",
				tray.SelectLanguage:    "auto=Detect automatically | de=German (de)*",
				moreLanguages:          "en=English (en)",
				tray.SelectInputDevice: "=System default | Built-in=Built-in | USB mic=USB mic*",
				tray.SelectPasteMode:   "paste=Paste at the cursor | paste-enter=Paste and press Enter | clipboard=Clipboard only* | type=Type as keystrokes",
			},
		},
		{
			name: "first run offline: no model, the wanted one offers a retry",
			st:   menuState{cfg: auto, models: registry(), model: "base.en", missing: true, auto: "base.en, not downloaded yet"},
			want: map[tray.ActionKind]string{
				tray.SelectModel: "auto=Auto: base.en, not downloaded yet | tiny=tiny (78.0 MB, download) | tiny.en=tiny.en (78.0 MB, download) | " +
					"base=base (148.0 MB, download) | base.en=base.en — retry download (148.0 MB)",
				tray.SelectDevice:      "auto=Auto* | cpu=CPU",
				tray.SelectComputeType: "auto=auto*",
				tray.SelectLanguage:    "auto=Detect automatically*",
				tray.SelectInputDevice: "",
			},
		},
		{
			name: "a download in progress says so",
			st:   menuState{cfg: cfg, models: registry("base"), model: "base", pulling: map[string]bool{"tiny": true}},
			want: map[tray.ActionKind]string{
				tray.SelectModel: "auto=Auto: the model for this computer | tiny=tiny (downloading…) | tiny.en=tiny.en (78.0 MB, download) | base=base* | " +
					"base.en=base.en (148.0 MB, download)",
			},
		},
		{
			name: "an NVIDIA GPU that lacks only cuBLAS offers to download it",
			st:   menuState{cfg: cfg, models: registry("base"), model: "base", gpus: []gpu.GPU{rtx}, fetchCUBLAS: true},
			want: map[tray.ActionKind]string{
				tray.SelectDevice: "auto=Auto* | cuda=" + rtx.Label() + " | cpu=CPU | fetch-cublas=Download cuBLAS for the GPU",
			},
		},
		{
			name: "the cuBLAS download in progress says so",
			st: menuState{cfg: cfg, models: registry("base"), model: "base", gpus: []gpu.GPU{rtx}, fetchCUBLAS: true,
				pulling: map[string]bool{loader.FetchID: true}},
			want: map[tray.ActionKind]string{
				tray.SelectDevice: "auto=Auto* | cuda=" + rtx.Label() + " | cpu=CPU | fetch-cublas=Download cuBLAS for the GPU (downloading…)",
			},
		},
		{
			name: "a model folder is listed first, by its name",
			st:   menuState{cfg: folder, models: registry("base"), model: "/models/whisper-small"},
			want: map[tray.ActionKind]string{
				tray.SelectModel: "auto=Auto: the model for this computer | /models/whisper-small=whisper-small* | tiny=tiny (78.0 MB, download) | " +
					"tiny.en=tiny.en (78.0 MB, download) | base=base | base.en=base.en (148.0 MB, download)",
			},
		},
		{
			// model: auto checks Auto alone, which names the model it chose and why.
			name: "auto names what it chose",
			st: menuState{cfg: auto, models: registry("base"), model: "base", auto: "base (base.en not downloaded; base found)",
				languages: []string{"en", "de", "fr", "af"}, fb: feedbackMenu{recentLanguages: []string{"fr", "xx", "en", "fr"}}},
			want: map[tray.ActionKind]string{
				tray.SelectModel: "auto=Auto: base (base.en not downloaded; base found)* | tiny=tiny (78.0 MB, download) | " +
					"tiny.en=tiny.en (78.0 MB, download) | base=base | base.en=base.en (148.0 MB, download)",
				// The recent dictations' languages first, newest first, once each
				// and only the model's; the rest by name.
				tray.SelectLanguage: "auto=Detect automatically* | fr=French (fr) | en=English (en)",
				moreLanguages:       "af=Afrikaans (af) | de=German (de)",
			},
		},
		{
			name: "the configured language comes first, then the recent ones",
			st: menuState{cfg: onCPU, models: registry("base"), model: "base", languages: []string{"en", "de", "fr", "af"},
				fb: feedbackMenu{recentLanguages: []string{"fr", "de"}}},
			want: map[tray.ActionKind]string{
				tray.SelectLanguage: "auto=Detect automatically | de=German (de)* | fr=French (fr)",
				moreLanguages:       "af=Afrikaans (af) | en=English (en)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := buildMenu(tt.st)
			got := map[tray.ActionKind][]tray.Item{tray.SelectModel: m.Models, tray.SelectDevice: m.Devices,
				tray.SelectComputeType: m.ComputeTypes, tray.SelectLanguage: m.Languages,
				tray.SelectInputDevice: m.InputDevices, tray.SelectPasteMode: m.PasteModes, moreLanguages: m.MoreLanguages}
			for kind, want := range tt.want {
				if g := labels(got[kind]); g != want {
					t.Errorf("%s:\n got %s\nwant %s", kind, g, want)
				}
			}
		})
	}
}

// The Voice commands submenu shows the words and keys set now, and says
// what turns a command on when it is off.
func TestCommandItems(t *testing.T) {
	tests := []struct {
		name string
		edit func(c *config.Config)
		want []string
	}{
		{"defaults", func(c *config.Config) {}, []string{
			"Undo the last dictation: say “scratch that” or “undo that”",
			"Paste it again: the menu item",
			"Rewrite the selection: off (hotkeys.edit)",
			"Dictate: hold ctrl+win while you speak",
			"Press Enter after the text: end with “send it” or “press enter”",
			"Stop by silence: off (hotkeys.stop_after_silence)",
			"Switch the language: off (hotkeys.language)",
			"Dictate in English from any language: off (hotkeys.translate)"}},
		{"hotkeys set", func(c *config.Config) {
			c.Hotkeys.Undo, c.Hotkeys.PasteAgain, c.Hotkeys.Edit = "ctrl+alt+z", "ctrl+alt+v", "ctrl+alt+e"
			c.Hotkeys.Language, c.Hotkeys.Translate = "ctrl+alt+l", "ctrl+alt+t"
			c.Hotkeys.Record, c.Hotkeys.Mode = "rctrl", choice.Auto
			c.Decode.Languages = config.NewList("en", "sv")
			c.Cleanup.URL = "http://127.0.0.1:8080"
		}, []string{
			"Undo the last dictation: say “scratch that” or “undo that”, or press ctrl+alt+z",
			"Paste it again: the menu item, or press ctrl+alt+v",
			"Rewrite the selection: hold ctrl+alt+e and say what to do",
			"Dictate: hold rctrl, or tap it to start and again to stop (a double tap locks it on)",
			"Press Enter after the text: end with “send it” or “press enter”",
			"Stop by silence: off (hotkeys.stop_after_silence)",
			"Switch the language: press ctrl+alt+l (auto, en, sv)",
			"Dictate in English from any language: hold ctrl+alt+t"}},
		{"hands-free", func(c *config.Config) {
			c.Hotkeys.Mode, c.Hotkeys.StopAfterSilence, c.Hotkeys.AutoSend = choice.Toggle, 1500*time.Millisecond, "ctrl+alt+s"
		}, []string{
			"Undo the last dictation: say “scratch that” or “undo that”",
			"Paste it again: the menu item",
			"Rewrite the selection: off (hotkeys.edit)",
			"Dictate: press ctrl+win to start, again to stop",
			"Press Enter after the text: end with “send it” or “press enter”, or dictate with ctrl+alt+s",
			"Stop by silence: after 1.5s of silence",
			"Switch the language: off (hotkeys.language)",
			"Dictate in English from any language: off (hotkeys.translate)"}},
		{"hands-free after a tap", func(c *config.Config) {
			c.Hotkeys.Mode, c.Hotkeys.StopAfterSilence = choice.Auto, 2*time.Second
		}, []string{
			"Undo the last dictation: say “scratch that” or “undo that”",
			"Paste it again: the menu item",
			"Rewrite the selection: off (hotkeys.edit)",
			"Dictate: hold ctrl+win, or tap it to start and again to stop (a double tap locks it on)",
			"Press Enter after the text: end with “send it” or “press enter”",
			"Stop by silence: after 2s of silence, once a tap started it",
			"Switch the language: off (hotkeys.language)",
			"Dictate in English from any language: off (hotkeys.translate)"}},
		{"no chat server, no phrases", func(c *config.Config) {
			c.Hotkeys.Edit, c.Commands.Undo, c.Commands.Send = "ctrl+alt+e", config.NewList(), config.NewList()
			c.Hotkeys.StopAfterSilence = 2 * time.Second // hold mode: the release ends it
		}, []string{
			"Undo the last dictation: off (commands.undo, hotkeys.undo)",
			"Paste it again: the menu item",
			"Rewrite the selection: hold ctrl+alt+e (needs cleanup.url)",
			"Dictate: hold ctrl+win while you speak",
			"Press Enter after the text: off (commands.send, hotkeys.auto_send)",
			"Stop by silence: toggle or auto mode only (hotkeys.mode)",
			"Switch the language: off (hotkeys.language)",
			"Dictate in English from any language: off (hotkeys.translate)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			tt.edit(&cfg)
			var got []string
			for _, it := range feedback.CommandItems(cfg) {
				got = append(got, it.Label)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// The Model menu gives each model the size `whisperkey models list` shows:
// one function renders both.
func TestModelSizeAsModelsList(t *testing.T) {
	cache, err := models.New(models.Options{Dir: t.TempDir()}, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	var list, stderr bytes.Buffer
	if code := models.RunCLI(t.Context(), []string{"list"}, &list, &stderr, cache); code != 0 {
		t.Fatalf("models list: exit %d: %s", code, stderr.String())
	}
	listed := map[string]string{} // name → SIZE column, without the "~" of a model not downloaded
	for _, line := range strings.Split(list.String(), "\n")[1:] {
		if f := regexp.MustCompile(`^(\S+)\s+~?(\S+ [kMG]?B)\s`).FindStringSubmatch(line); f != nil {
			listed[f[1]] = f[2]
		}
	}
	m := buildMenu(menuState{cfg: config.Defaults(), models: cache.List()})
	for _, e := range cache.List() {
		size, ok := listed[e.Name]
		if !ok {
			t.Errorf("models list has no size for %s:\n%s", e.Name, list.String())
			continue
		}
		var label string
		for _, it := range m.Models {
			if it.ID == e.Name {
				label = it.Label
			}
		}
		if want := e.Name + " (" + size + ", download)"; label != want {
			t.Errorf("Model menu says %q, want %q as models list has it", label, want)
		}
	}
	if len(listed) < len(models.Registry()) {
		t.Errorf("models list shows %d sizes, want one for each of the %d built-in models", len(listed), len(models.Registry()))
	}
}
