package desktop

import (
	"strings"
	"testing"

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
	onCPU := cfg
	onCPU.Engine.Device, onCPU.Engine.ComputeType, onCPU.Decode.Language, onCPU.Paste = "cpu", "int8", "de", choice.Clipboard
	onCPU.Audio.InputDevice = "USB mic"
	rtx := gpu.GPU{Vendor: gpu.NVIDIA, Name: "NVIDIA GeForce RTX 3060"}

	tests := []struct {
		name string
		st   menuState
		want map[tray.ActionKind]string
	}{
		{
			name: "running on base with a GPU found",
			st: menuState{cfg: cfg, models: registry("base", "tiny.en"), model: "base",
				gpus: []gpu.GPU{rtx}, computeTypes: []string{"int8", "float32"}, languages: []string{"en", "de"},
				inputs: []audio.Device{{Name: "Built-in"}}},
			want: map[tray.ActionKind]string{
				tray.SelectModel:       "tiny=tiny (74 MB, download) | tiny.en=tiny.en | base=base* | base.en=base.en (141 MB, download)",
				tray.SelectDevice:      "auto=Auto* | cuda=" + rtx.Label() + " | cpu=CPU",
				tray.SelectComputeType: "auto=auto* | int8=int8 | float32=float32",
				tray.SelectLanguage:    "auto=Detect automatically* | en=en | de=de",
				tray.SelectInputDevice: "=System default* | Built-in=Built-in",
				tray.SelectPasteMode:   "paste=Paste at the cursor* | paste-enter=Paste and press Enter | clipboard=Clipboard only | type=Type as keystrokes",
			},
		},
		{
			name: "choices from the config are checked",
			st: menuState{cfg: onCPU, models: registry("base"), model: "base", computeTypes: []string{"int8"},
				languages: []string{"en", "de"}, inputs: []audio.Device{{Name: "Built-in"}, {Name: "USB mic"}}},
			want: map[tray.ActionKind]string{
				tray.SelectDevice:      "auto=Auto | cpu=CPU*",
				tray.SelectComputeType: "auto=auto | int8=int8*",
				tray.SelectLanguage:    "auto=Detect automatically | en=en | de=de*",
				tray.SelectInputDevice: "=System default | Built-in=Built-in | USB mic=USB mic*",
				tray.SelectPasteMode:   "paste=Paste at the cursor | paste-enter=Paste and press Enter | clipboard=Clipboard only* | type=Type as keystrokes",
			},
		},
		{
			name: "first run offline: no model, the wanted one offers a retry",
			st:   menuState{cfg: cfg, models: registry(), model: "base.en", missing: true},
			want: map[tray.ActionKind]string{
				tray.SelectModel:       "tiny=tiny (74 MB, download) | tiny.en=tiny.en (74 MB, download) | base=base (141 MB, download) | base.en=base.en — retry download (141 MB)",
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
				tray.SelectModel: "tiny=tiny (downloading…) | tiny.en=tiny.en (74 MB, download) | base=base* | base.en=base.en (141 MB, download)",
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
				pulling: map[string]bool{fetchID: true}, fetching: true},
			want: map[tray.ActionKind]string{
				tray.SelectDevice: "auto=Auto* | cuda=" + rtx.Label() + " | cpu=CPU | fetch-cublas=Download cuBLAS for the GPU (downloading…)",
			},
		},
		{
			name: "a model folder is listed first, by its name",
			st:   menuState{cfg: cfg, models: registry("base"), model: "/models/whisper-small"},
			want: map[tray.ActionKind]string{
				tray.SelectModel: "/models/whisper-small=whisper-small* | tiny=tiny (74 MB, download) | tiny.en=tiny.en (74 MB, download) | base=base | base.en=base.en (141 MB, download)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := buildMenu(tt.st)
			got := map[tray.ActionKind][]tray.Item{tray.SelectModel: m.Models, tray.SelectDevice: m.Devices,
				tray.SelectComputeType: m.ComputeTypes, tray.SelectLanguage: m.Languages,
				tray.SelectInputDevice: m.InputDevices, tray.SelectPasteMode: m.PasteModes}
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
			"Rewrite the selection: off (hotkeys.edit)"}},
		{"hotkeys set", func(c *config.Config) {
			c.Hotkeys.Undo, c.Hotkeys.PasteAgain, c.Hotkeys.Edit = "ctrl+alt+z", "ctrl+alt+v", "ctrl+alt+e"
			c.Cleanup.URL = "http://127.0.0.1:8080"
		}, []string{
			"Undo the last dictation: say “scratch that” or “undo that”, or press ctrl+alt+z",
			"Paste it again: the menu item, or press ctrl+alt+v",
			"Rewrite the selection: hold ctrl+alt+e and say what to do"}},
		{"no chat server, no phrases", func(c *config.Config) {
			c.Hotkeys.Edit, c.Commands.Undo = "ctrl+alt+e", config.NewList()
		}, []string{
			"Undo the last dictation: off (commands.undo, hotkeys.undo)",
			"Paste it again: the menu item",
			"Rewrite the selection: hold ctrl+alt+e (needs cleanup.url)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			tt.edit(&cfg)
			var got []string
			for _, it := range commandItems(cfg) {
				got = append(got, it.Label)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// The indicator shows the last whole words of the live text that fit.
func TestLiveTail(t *testing.T) {
	tests := []struct{ text, want string }{
		{" Short.", "Short."},
		{"The coffee machine on the second floor is broken again.", "…floor is broken again."},
		{"Supercalifragilisticexpialidociousness-and-more-words", "…lidociousness-and-more-words"}, // no space: cut mid-word
	}
	for _, tt := range tests {
		if got := liveTail(tt.text, 28); got != tt.want {
			t.Errorf("liveTail(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
