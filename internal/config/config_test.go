package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// writeConfig puts content in a fresh config.yaml and returns its path.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadWant loads content as a config file with opts and fails t unless Load
// accepts it (want "") or refuses it with an error containing want.
func loadWant(t *testing.T, content string, opts Options, want string) Config {
	t.Helper()
	cfg, _, err := Load(writeConfig(t, content), opts)
	switch {
	case want == "" && err != nil:
		t.Fatalf("Load: %v", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("Load error %v, want one containing %q", err, want)
	}
	return cfg
}

// testHotkey stands in for hotkey.Validate's contract (a real parser lives in internal/hotkey).
func testHotkey(s string) error {
	for _, part := range strings.Split(strings.ToLower(s), "+") {
		if !slices.Contains([]string{"ctrl", "shift", "alt", "win", "space", "esc", "f9", "enter", "x"}, part) {
			return fmt.Errorf("unknown key %q", part)
		}
	}
	return nil
}

func TestLoadAcceptsValues(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want func(*Config) // edits Defaults() into the expected result
	}{
		{"missing keys use defaults", "", func(*Config) {}},
		{"only comments", "# nothing here\n", func(*Config) {}},
		{"empty group", "hotkeys:\naudio:\n", func(*Config) {}},
		{"empty value uses default", "model:\n", func(*Config) {}},
		{"model name", "model: small", func(c *Config) { c.Engine.Model = "small" }},
		{"model repo id", "model: Systran/faster-whisper-small", func(c *Config) { c.Engine.Model = "Systran/faster-whisper-small" }},
		{"model folder", "model: /models/whisper-base", func(c *Config) { c.Engine.Model = "/models/whisper-base" }},
		{"device", "device: rocm", func(c *Config) { c.Engine.Device = choice.DeviceROCm }},
		{"device index", "device_index: 1", func(c *Config) { c.Engine.DeviceIndex = 1 }},
		{"compute type", "compute_type: int8_float16", func(c *Config) { c.Engine.ComputeType = "int8_float16" }},
		{"cpu threads", "cpu_threads: 8", func(c *Config) { c.Engine.CPUThreads = 8 }},
		{"language", "language: de", func(c *Config) { c.Decode.Language = "de" }},
		{"norwegian is not false", "language: no", func(c *Config) { c.Decode.Language = "no" }},
		{"beam size", "beam_size: 1", func(c *Config) { c.Decode.BeamSize = 1 }},
		{"prompt", `prompt: "Hello: world"`, func(c *Config) { c.Decode.Prompt = "Hello: world" }},
		{"old names left empty", "initial_prompt: \"\"\nhotwords: \"\"", func(*Config) {}},
		{"hotkeys", "hotkeys:\n  record: ctrl+shift+space\n  auto_send: ctrl+shift+enter\n  mode: toggle",
			func(c *Config) {
				c.Hotkeys.Record, c.Hotkeys.AutoSend, c.Hotkeys.Mode = "ctrl+shift+space", "ctrl+shift+enter", choice.Toggle
			}},
		{"cancel off with empty", "hotkeys:\n  cancel: \"\"", func(c *Config) { c.Hotkeys.Cancel = HotkeyOff }},
		{"cancel off with None", "hotkeys:\n  cancel: None", func(c *Config) { c.Hotkeys.Cancel = HotkeyOff }},
		{"paste", "paste: paste-enter", func(c *Config) { c.Paste = choice.PasteEnter }},
		{"paste type", "paste: type", func(c *Config) { c.Paste = choice.Type }},
		{"feedback", "indicator: cursor\nnotifications: false\nlive_text: false\nhistory:\n  keep_on_disk: true", func(c *Config) {
			c.Feedback = Feedback{Indicator: choice.Cursor, Notifications: false, KeepOnDisk: true}
		}},
		{"input device", "audio:\n  input_device: USB Mic", func(c *Config) { c.Audio.InputDevice = "USB Mic" }},
		{"memory given back and takes kept", "engine:\n  unload_after: 10m\nhistory:\n  keep_audio_days: 7", func(c *Config) {
			c.UnloadAfter, c.Feedback.KeepAudioDays = 10*time.Minute, 7
		}},
		{"seconds as number", "audio:\n  min_duration: 0.25\n  max_duration: 90", func(c *Config) {
			c.Audio.MinDuration, c.Audio.MaxDuration = 250*time.Millisecond, 90*time.Second
		}},
		{"durations as text", "audio:\n  max_duration: 1m30s\n  pre_roll_length: 0", func(c *Config) {
			c.Audio.MaxDuration, c.Audio.PreRollLength = 90*time.Second, 0
		}},
		{"bool words", "audio:\n  pre_roll: off\nsounds: yes", func(c *Config) { c.Audio.PreRoll = false }},
		{"keys are case-insensitive", "Model: small\nHotkeys:\n  Mode: toggle", func(c *Config) {
			c.Engine.Model, c.Hotkeys.Mode = "small", choice.Toggle
		}},
		{"log level", "log_level: debug", func(c *Config) { c.LogLevel = "debug" }},
		{"cache dir with ~", "model_cache_dir: ~/models", func(c *Config) { c.ModelCacheDir = "~/models" }},
		{"cache dir absolute", "model_cache_dir: /var/cache/wk", func(c *Config) { c.ModelCacheDir = "/var/cache/wk" }},
		{"models mirror", "models:\n  mirror: https://hf-mirror.corp.example/hf/", func(c *Config) { c.ModelsMirror = "https://hf-mirror.corp.example/hf/" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLoads(t, tt.yaml, Options{ValidateHotkey: testHotkey}, tt.want)
		})
	}
}

// checkLoads loads yaml with no error or warning and wants the defaults as
// edit changes them.
func checkLoads(t *testing.T, yaml string, opts Options, edit func(*Config)) {
	t.Helper()
	got, warns, err := Load(writeConfig(t, yaml), opts)
	if err != nil || len(warns) > 0 {
		t.Fatalf("Load: err %v, warnings %v", err, warns)
	}
	want := Defaults()
	edit(&want)
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestLoadRejectsValues(t *testing.T) {
	rejectModel := func(s string) error { return fmt.Errorf("unknown model %q", s) }
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want string // {file} stands for the file
	}{
		{"device", "device: gpu",
			nil, `{file}:1: key "device": "gpu" is not allowed (allowed: auto, cpu, cuda, rocm); fix: set device to one of them or remove the line to use auto`},
		{"device index negative", "device_index: -1",
			nil, `{file}:1: key "device_index": "-1" is not allowed (allowed: a whole number from 0 to 63); fix: set device_index to a number in that range or remove the line to use 0`},
		{"device index text", "device_index: first",
			nil, `{file}:1: key "device_index": "first" is not allowed (allowed: a whole number from 0 to 63); fix: set device_index to a number in that range or remove the line to use 0`},
		{"compute type", "compute_type: fp16",
			nil, `{file}:1: key "compute_type": "fp16" is not allowed (allowed: auto, default, int8, int8_float32, int8_float16, int8_bfloat16, int16, float16, bfloat16, float32); fix: set compute_type to one of them or remove the line to use auto`},
		{"cpu threads", "cpu_threads: 1000",
			nil, `{file}:1: key "cpu_threads": "1000" is not allowed (allowed: a whole number from 0 to 256); fix: set cpu_threads to a number in that range or remove the line to use 0`},
		{"model empty", `model: ""`,
			nil, `{file}:1: key "model": "" is not allowed (allowed: auto, a model name such as base, small or large-v3-turbo (whisperkey models lists them), a Hugging Face repo id owner/name, or a CTranslate2 model folder); fix: set model to one of those or remove the line to use auto`},
		{"model unknown to the registry", "model: bse",
			nil, `{file}:1: key "model": "bse" is not allowed: unknown model "bse" (allowed: auto, a model name such as base, small or large-v3-turbo (whisperkey models lists them), a Hugging Face repo id owner/name, or a CTranslate2 model folder); fix: set model to one of those or remove the line to use auto`},
		{"language", "language: english",
			nil, `{file}:1: key "language": "english" is not allowed (allowed: auto or a Whisper language code such as en, de, fr, es, ja, zh (all codes: docs/configuration.md#language)); fix: set language to auto or one of those codes or remove the line to use auto`},
		{"beam size zero", "beam_size: 0",
			nil, `{file}:1: key "beam_size": "0" is not allowed (allowed: a whole number from 1 to 16); fix: set beam_size to a number in that range or remove the line to use 5`},
		{"beam size fraction", "beam_size: 2.5",
			nil, `{file}:1: key "beam_size": "2.5" is not allowed (allowed: a whole number from 1 to 16); fix: set beam_size to a number in that range or remove the line to use 5`},
		{"prompt is a list", "initial_prompt: [a, b]",
			nil, `{file}:1: key "initial_prompt": "[…]" is not allowed: it must be a single value (allowed: any text); fix: set initial_prompt to some text or remove the line to use the default (empty)`},
		{"remote url without scheme", "remote:\n  url: gpu-box:8765",
			nil, `{file}:2: key "remote.url": "gpu-box:8765" is not allowed: it must start with http:// or https:// (allowed: "" to transcribe on this computer, or the http:// or https:// address of an OpenAI-compatible server such as http://gpu-box:8765); fix: set remote.url to such an address or remove the line to use the default (empty)`},
		{"remote url ftp", "remote:\n  url: ftp://gpu-box/",
			nil, `{file}:2: key "remote.url": "ftp://gpu-box/" is not allowed: it must start with http:// or https:// (allowed: "" to transcribe on this computer, or the http:// or https:// address of an OpenAI-compatible server such as http://gpu-box:8765); fix: set remote.url to such an address or remove the line to use the default (empty)`},
		{"remote url without host", "remote:\n  url: http://",
			nil, `{file}:2: key "remote.url": "http://" is not allowed: it has no host name (allowed: "" to transcribe on this computer, or the http:// or https:// address of an OpenAI-compatible server such as http://gpu-box:8765); fix: set remote.url to such an address or remove the line to use the default (empty)`},
		{"models mirror without scheme", "models:\n  mirror: hf-mirror.corp.example",
			nil, `{file}:2: key "models.mirror": "hf-mirror.corp.example" is not allowed: it must start with http:// or https:// (allowed: "" to download from Hugging Face (or HF_ENDPOINT), or the http:// or https:// base address of a server with the Hugging Face layout, such as https://hf-mirror.example.com); fix: set models.mirror to such an address or remove the line to use the default (empty)`},
		{"models mirror with a query", "models:\n  mirror: https://mirror.example/?repo=hf",
			nil, `{file}:2: key "models.mirror": "https://mirror.example/?repo=hf" is not allowed: it must be a base address without ? or # (allowed: "" to download from Hugging Face (or HF_ENDPOINT), or the http:// or https:// base address of a server with the Hugging Face layout, such as https://hf-mirror.example.com); fix: set models.mirror to such an address or remove the line to use the default (empty)`},
		{"remote url from the environment", "",
			map[string]string{"WHISPERKEY_REMOTE_URL": "gpu-box"}, `WHISPERKEY_REMOTE_URL: key "remote.url": "gpu-box" is not allowed: it must start with http:// or https:// (allowed: "" to transcribe on this computer, or the http:// or https:// address of an OpenAI-compatible server such as http://gpu-box:8765); fix: set WHISPERKEY_REMOTE_URL to such an address or unset it`},
		{"remote model empty", "remote:\n  model: \"\"",
			nil, `{file}:2: key "remote.model": "" is not allowed (allowed: the model name the server expects, such as whisper-1); fix: set remote.model to a model name or remove the line to use whisper-1`},
		{"record empty", "hotkeys:\n  record: \"\"",
			nil, `{file}:2: key "hotkeys.record": "" is not allowed: it must not be empty (allowed: modifiers ctrl, shift, alt, win and at most one key, joined with +, such as ctrl+win or ctrl+shift+space; or rctrl, ralt, mouse4, mouse5 alone); fix: set hotkeys.record to a key combination or remove the line to use ctrl+win`},
		{"record unknown key name", "hotkeys:\n  record: ctl+space",
			nil, `{file}:2: key "hotkeys.record": "ctl+space" is not allowed: unknown key "ctl" (allowed: modifiers ctrl, shift, alt, win and at most one key, joined with +, such as ctrl+win or ctrl+shift+space; or rctrl, ralt, mouse4, mouse5 alone); fix: set hotkeys.record to a key combination or remove the line to use ctrl+win`},
		{"cancel equals record", "hotkeys:\n  record: ctrl+x\n  cancel: Ctrl+X",
			nil, `{file}:3: key "hotkeys.cancel": "Ctrl+X" is not allowed: it is the same combination as hotkeys.record (allowed: modifiers ctrl, shift, alt, win and at most one key, joined with +, such as ctrl+win or ctrl+shift+space; or rctrl, ralt, mouse4, mouse5 alone, or none to turn it off); fix: choose another combination for hotkeys.cancel, or none to turn it off`},
		{"mode", "hotkeys:\n  mode: push",
			nil, `{file}:2: key "hotkeys.mode": "push" is not allowed (allowed: hold, toggle, auto); fix: set hotkeys.mode to one of them or remove the line to use hold`},
		{"paste", "paste: typing",
			nil, `{file}:1: key "paste": "typing" is not allowed (allowed: paste, clipboard, paste-enter, type); fix: set paste to one of them or remove the line to use paste`},
		{"indicator", "indicator: top",
			nil, `{file}:1: key "indicator": "top" is not allowed (allowed: bottom, cursor, off); fix: set indicator to one of them or remove the line to use bottom`},
		{"keep on disk", "history:\n  keep_on_disk: sometimes",
			nil, `{file}:2: key "history.keep_on_disk": "sometimes" is not allowed (allowed: true, false); fix: set history.keep_on_disk to true or false or remove the line to use false`},
		{"min duration text", "audio:\n  min_duration: fast",
			nil, `{file}:2: key "audio.min_duration": "fast" is not allowed (allowed: a duration from 0s to 10s, such as 300ms); fix: set audio.min_duration to a duration in that range or remove the line to use 300ms`},
		{"max duration too long", "audio:\n  max_duration: 2h",
			nil, `{file}:2: key "audio.max_duration": "2h" is not allowed (allowed: a duration from 1s to 1h, such as 5m); fix: set audio.max_duration to a duration in that range or remove the line to use 5m`},
		{"min not below max", "audio:\n  min_duration: 5s\n  max_duration: 5s",
			nil, `{file}:2: key "audio.min_duration": "5s" is not allowed: it must be shorter than audio.max_duration (5s) (allowed: a duration from 0s to 10s, such as 300ms); fix: make audio.min_duration shorter than audio.max_duration`},
		{"pre roll", "audio:\n  pre_roll: maybe",
			nil, `{file}:2: key "audio.pre_roll": "maybe" is not allowed (allowed: true, false); fix: set audio.pre_roll to true or false or remove the line to use false`},
		{"pre roll length", "audio:\n  pre_roll_length: 6s",
			nil, `{file}:2: key "audio.pre_roll_length": "6s" is not allowed (allowed: a duration from 0s to 5s, such as 500ms); fix: set audio.pre_roll_length to a duration in that range or remove the line to use 500ms`},
		{"unload after", "engine:\n  unload_after: 2d",
			nil, `{file}:2: key "engine.unload_after": "2d" is not allowed (allowed: 0 to keep the model loaded (the default), or a duration up to 24h, such as 10m); fix: set engine.unload_after to a duration in that range or remove the line to use 0s`},
		{"unload after too long", "engine:\n  unload_after: 25h",
			nil, `{file}:2: key "engine.unload_after": "25h" is not allowed (allowed: 0 to keep the model loaded (the default), or a duration up to 24h, such as 10m); fix: set engine.unload_after to a duration in that range or remove the line to use 0s`},
		{"keep audio days", "history:\n  keep_audio_days: 400",
			nil, `{file}:2: key "history.keep_audio_days": "400" is not allowed (allowed: 0 to keep no recordings (the default), or a number of days from 1 to 365); fix: set history.keep_audio_days to a number in that range or remove the line to use 0`},
		{"sounds", "sounds: loud",
			nil, `{file}:1: key "sounds": "loud" is not allowed (allowed: true, false); fix: set sounds to true or false or remove the line to use true`},
		{"log level", "log_level: verbose",
			nil, `{file}:1: key "log_level": "verbose" is not allowed (allowed: debug, info, warn, error); fix: set log_level to one of them or remove the line to use info`},
		{"relative cache dir", "model_cache_dir: models",
			nil, `{file}:1: key "model_cache_dir": "models" is not allowed: the path must be absolute (allowed: an absolute folder path (~ for your home folder works), or "" for the default cache); fix: set model_cache_dir to an absolute folder path or remove the line to use the default (empty)`},
		{"group written as a value", "hotkeys: ctrl+win",
			nil, `{file}:1: key "hotkeys": "ctrl+win" is not allowed (allowed: a group of keys: record, cancel, auto_send, mode, paste_again, undo, edit, translate, language, stop_after_silence); fix: put the keys of hotkeys on the lines below it, indented by two spaces`},
		{"duplicate key", "model: base\nsounds: true\nmodel: small",
			nil, `{file}:3: key "model" appears twice (also on line 1); fix: delete one of the two lines`},
		{"not a mapping", "just some words",
			nil, `{file}:1: the file must consist of key: value lines; fix: start again from config.example.yaml; WhisperKey keeps running on the last good config`},
		{"yaml syntax", "model: base\n  device: cpu",
			nil, `{file}:2: YAML syntax error: mapping values are not allowed in this context; fix: correct that line (indent with spaces, not tabs; put quotes around a value that contains ": " or starts with * & ! % @ or a backquote); WhisperKey keeps running on the last good config`},
		{"environment", "device: cpu",
			map[string]string{"WHISPERKEY_DEVICE": "gpu"}, `WHISPERKEY_DEVICE: key "device": "gpu" is not allowed (allowed: auto, cpu, cuda, rocm); fix: set WHISPERKEY_DEVICE to one of them or unset it`},
		{"nested environment", "",
			map[string]string{"WHISPERKEY_AUDIO_MAX_DURATION": "forever"}, `WHISPERKEY_AUDIO_MAX_DURATION: key "audio.max_duration": "forever" is not allowed (allowed: a duration from 1s to 1h, such as 5m); fix: set WHISPERKEY_AUDIO_MAX_DURATION to a duration in that range or unset it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			path := writeConfig(t, tt.yaml)
			opts := Options{ValidateHotkey: testHotkey}
			if tt.name == "model unknown to the registry" {
				opts.ValidateModel = rejectModel
			}
			got, _, err := Load(path, opts)
			if err == nil {
				t.Fatal("Load accepted it")
			}
			if want := strings.ReplaceAll(tt.want, "{file}", path); err.Error() != want {
				t.Errorf("message\n got: %s\nwant: %s", err, want)
			}
			var e *Error
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &e) {
				t.Errorf("error %v does not match ErrInvalid and *Error", err)
			}
			if got != Defaults() {
				t.Errorf("on error Load returned %+v, want Defaults()", got)
			}
		})
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	_, _, err := Load(writeConfig(t, "device: gpu\nbeam_size: 0\nsounds: loud\n"), Options{})
	if n := len(strings.Split(err.Error(), "\n")); n != 3 {
		t.Errorf("got %d problems, want 3:\n%v", n, err)
	}
}

func TestUnknownKeysWarn(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string // {file} stands for the file
	}{
		{"typo", "modle: small", `{file}:1: unknown key "modle" is ignored; did you mean "model"?`},
		{"swapped letters in a group", "hotkeys:\n  recrod: f9", `{file}:2: unknown key "hotkeys.recrod" is ignored; did you mean "hotkeys.record"?`},
		{"right name, wrong place", "record: ctrl+win", `{file}:1: unknown key "record" is ignored; did you mean "hotkeys.record"?`},
		{"group name typo", "hotkey:\n  record: f9", `{file}:1: unknown key "hotkey" is ignored; did you mean "hotkeys"?`},
		{"made-up group with a known key", "whisper:\n  model: small", `{file}:1: unknown key "whisper" is ignored; did you mean "model"?`},
		{"nothing close", "colour: blue", `{file}:1: unknown key "colour" is ignored; docs/configuration.md lists the keys`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.yaml)
			cfg, warns, err := Load(path, Options{})
			if err != nil {
				t.Fatalf("an unknown key must not be an error: %v", err)
			}
			if cfg != Defaults() {
				t.Errorf("unknown key changed the config: %+v", cfg)
			}
			if want := strings.ReplaceAll(tt.want, "{file}", path); len(warns) != 1 || warns[0].String() != want {
				t.Errorf("warnings %v\nwant %s", warns, want)
			}
		})
	}
}

func TestEnvironmentOverridesFile(t *testing.T) {
	t.Setenv("WHISPERKEY_MODEL", "small")
	t.Setenv("WHISPERKEY_HOTKEYS_RECORD", "ctrl+alt+space")
	t.Setenv("WHISPERKEY_AUDIO_MAX_DURATION", "90")
	t.Setenv("WHISPERKEY_SOUNDS", "false")
	t.Setenv("WHISPERKEY_BEAM_SIZE", "") // empty variables are ignored
	cfg, _, err := Load(writeConfig(t, "model: base\nbeam_size: 3\nhotkeys:\n  record: f9\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.Engine.Model, want.Hotkeys.Record, want.Audio.MaxDuration, want.Sounds = "small", "ctrl+alt+space", 90*time.Second, false
	want.Decode.BeamSize = 3
	if cfg != want {
		t.Errorf("got  %+v\nwant %+v", cfg, want)
	}
}

// The example file is the documentation of the defaults: it must not drift from the code.
func TestExampleFileIsTheDefaults(t *testing.T) {
	const example = "../../config.example.yaml"
	cfg, warns, err := Load(example, Options{})
	if err != nil || len(warns) > 0 {
		t.Fatalf("example: err %v, warnings %v", err, warns)
	}
	if cfg != Defaults() {
		t.Errorf("example file\n %+v\ndiffers from Defaults()\n %+v", cfg, Defaults())
	}
	text, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	def := Defaults()
	for _, f := range fields() {
		leaf := f.key[strings.LastIndex(f.key, ".")+1:]
		if f.renamedTo != "" { // an old name: documented as such, gone from the example
			if !strings.Contains(string(doc), "`"+f.key+"`") || strings.Contains(string(text), "\n"+leaf+":") {
				t.Errorf("%s: docs/configuration.md must name it and config.example.yaml must not set it", f.key)
			}
			continue
		}
		if !strings.Contains(string(text), "\n"+leaf+":") && !strings.Contains(string(text), "  "+leaf+":") {
			t.Errorf("config.example.yaml does not set %s", f.key)
		}
		if !strings.Contains(string(doc), "`"+f.key+"`") {
			t.Errorf("docs/configuration.md does not document `%s`", f.key)
		}
		if !strings.Contains(string(doc), "`"+envName(f.key)+"`") {
			t.Errorf("docs/configuration.md does not name `%s`", envName(f.key))
		}
		d := fmt.Sprint(render(f.ptr(&def)))
		if d == "map[]" {
			d = "{}" // an empty mapping as YAML writes it
		}
		if d != "" && !strings.Contains(string(text), "Default: "+d) {
			t.Errorf("config.example.yaml does not say %s's default %q", f.key, d)
		}
	}
	for _, code := range strings.Fields(whisperLanguages) {
		if !strings.Contains(string(doc), "`"+code+"`") {
			t.Errorf("docs/configuration.md#language does not list %q", code)
		}
	}
	for _, anchor := range []string{"nvidia", "amd-rdna-2-and-newer", "amd-rdna-1", "cpu"} {
		if !strings.Contains(string(text), "docs/gpu-setup.md#"+anchor) {
			t.Errorf("config.example.yaml does not link docs/gpu-setup.md#%s", anchor)
		}
	}
}

func TestSlogLevel(t *testing.T) {
	c := Defaults()
	c.LogLevel = "warn"
	if got := c.SlogLevel().String(); got != "WARN" {
		t.Errorf("SlogLevel = %s, want WARN", got)
	}
}

// The limits that flags share with the file: one rule each, the same bound
// in the file's check and in the validators the commands call.
func TestSharedLimits(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string // "" means valid
	}{
		{"beam 1", ValidateBeamSize(1), ""},
		{"beam 16", ValidateBeamSize(MaxBeamSize), ""},
		{"beam 0", ValidateBeamSize(0), "use 1 to 16"},
		{"beam 17", ValidateBeamSize(17), "beam size 17 is out of range: use 1 to 16"},
		{"0 threads", ValidateCPUThreads(0), ""},
		{"the most threads", ValidateCPUThreads(MaxCPUThreads), ""},
		{"negative threads", ValidateCPUThreads(-5), "threads -5 is out of range: use 0"},
		{"absurd threads (the worker crashed)", ValidateCPUThreads(100000), "threads 100000 is out of range: use 0 (all cores, up to 4) or 1 to 256"},
		{"auto", ValidateDevice("auto"), ""},
		{"rocm", ValidateDevice("rocm"), ""},
		{"gpu is not a device", ValidateDevice("gpu"), `device "gpu" is not one of auto, cpu, cuda, rocm`},
		{"empty device", ValidateDevice(""), `device "" is not one of auto, cpu, cuda, rocm`},
		{"int8", ValidateComputeType("int8"), ""},
		{"fp16 is not a compute type", ValidateComputeType("fp16"),
			`compute type "fp16" is not one of auto, default, int8, int8_float32, int8_float16, int8_bfloat16, int16, float16, bfloat16, float32`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			switch {
			case tc.want == "" && tc.err != nil:
				t.Fatalf("err = %v, want valid", tc.err)
			case tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", tc.err, tc.want)
			}
		})
	}
	// The file takes exactly what the flags take.
	for _, n := range []int{0, 1, MaxBeamSize, MaxBeamSize + 1} {
		_, _, err := Load(writeConfig(t, fmt.Sprintf("beam_size: %d\n", n)), Options{})
		if (err == nil) != (ValidateBeamSize(n) == nil) {
			t.Errorf("beam_size: %d in the file: %v; the flag's check says %v", n, err, ValidateBeamSize(n))
		}
	}
}

func TestMediaNote(t *testing.T) {
	tests := []struct {
		name  string
		media choice.MediaMode
		goos  string
		want  string
	}{
		{"off anywhere", choice.MediaOff, "windows", ""},
		{"pause on linux", choice.MediaPause, "linux", ""},
		{"lower on windows", choice.MediaLower, "windows", ""},
		{"pause on windows mutes", choice.MediaPause, "windows", "audio.media: pause mutes the programs playing on Windows instead of pausing them (their audio sessions; " +
			"the system media controls are out of reach), and unmutes them after: a video or song plays on unheard"},
		{"lower on darwin", choice.MediaLower, "darwin", "audio.media: lower works on Linux and Windows only for now; on darwin it leaves media alone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Defaults()
			cfg.Audio.Media = tt.media
			if got := MediaNote(cfg, tt.goos); got != tt.want {
				t.Errorf("MediaNote = %q, want %q", got, tt.want)
			}
		})
	}
}
