package envvars

import (
	"slices"
	"strings"
)

// Var is one environment variable the program reads.
type Var struct {
	Name string
	// Purpose says what it does, in a few words.
	Purpose string
	// Secret values are never printed, only that they are set.
	Secret bool
}

// ConfigPrefix starts the variables that override config keys:
// WHISPERKEY_<KEY> with "_" for ".", e.g. WHISPERKEY_HOTKEYS_RECORD;
// config.EnvOverrides lists them, one per key.
const ConfigPrefix = "WHISPERKEY_"

// NotRead marks a WHISPERKEY_ variable in Set's list that nothing reads.
const NotRead = "(not read: no such setting; see docs/configuration.md#environment-variables)"

// All lists the variables read besides the config-key overrides. A test
// checks that the code reads no other.
var All = []Var{
	{Name: "WHISPERKEY_CONFIG", Purpose: "config file to use instead of the per-user one"},
	{Name: "WHISPERKEY_CACHE", Purpose: "where models and downloads are kept"},
	{Name: "WHISPERKEY_ENGINE_ROOT", Purpose: "folder holding the engine variants"},
	{Name: "WHISPERKEY_MODEL", Purpose: "model to use (also the config key model)"},
	{Name: "WHISPERKEY_SAVE_RECORDINGS", Purpose: "folder where every recording is also saved as WAV"},
	{Name: "WHISPERKEY_LOG_FORMAT", Purpose: `"json" writes the log as JSON records`},
	{Name: "WHISPERKEY_SERVE_API_KEY", Purpose: "bearer token `serve` requires (instead of --api-key)", Secret: true},
	{Name: "WHISPERKEY_REMOTE_API_KEY", Purpose: "bearer token for the remote server (also the config key remote.api_key, which `transcribe --remote` reads)", Secret: true},
	{Name: "WHISPERKEY_VAD_DIR", Purpose: "folder holding the speech detector (silero_vad_v6.onnx and ONNX Runtime)"},
	{Name: "WHISPERKEY_CUBLAS_PIN", Purpose: "JSON file with the cuBLAS download to use instead of the built-in pin (a mirror; tests)"},
	{Name: "HF_ENDPOINT", Purpose: "Hugging Face mirror for model downloads"},
	{Name: "HF_TOKEN", Purpose: "Hugging Face access token", Secret: true},
	{Name: "CT2_CUDA_ALLOCATOR", Purpose: "CTranslate2's GPU memory allocator (default for GPU workers: cub_caching)"},
	{Name: "DISPLAY", Purpose: "X11 display"},
	{Name: "DBUS_SYSTEM_BUS_ADDRESS", Purpose: "system bus where logind says the computer resumed (Linux)"},
	{Name: "WAYLAND_DISPLAY", Purpose: "Wayland display: the session's routes, its clipboard and virtual keyboard (docs/wayland.md)"},
	{Name: "XDG_SESSION_TYPE", Purpose: "x11 or wayland: which session doctor and the tray describe (Linux)"},
	{Name: "XDG_CURRENT_DESKTOP", Purpose: "which desktop's key-binding steps doctor gives (Linux)"},
	{Name: "SWAYSOCK", Purpose: "sway's IPC socket, asked which window has the focus (Wayland)"},
	{Name: "HYPRLAND_INSTANCE_SIGNATURE", Purpose: "Hyprland's instance, asked which window has the focus (Wayland)"},
	{Name: "XDG_CONFIG_HOME", Purpose: "config and autostart folder (Linux)"},
	{Name: "HOME", Purpose: "home folder, when XDG_CONFIG_HOME is not set (Linux)"},
	{Name: "XDG_STATE_HOME", Purpose: "log and state folder (Linux)"},
	{Name: "XDG_CACHE_HOME", Purpose: "cache folder when WHISPERKEY_CACHE is not set (Linux)"},
	{Name: "XDG_RUNTIME_DIR", Purpose: "single-instance lock and control socket folder (Linux)"},
	{Name: "APPDATA", Purpose: "config folder (Windows)"},
	{Name: "LOCALAPPDATA", Purpose: "log, state and cache folder (Windows)"},
	{Name: "LD_LIBRARY_PATH", Purpose: "searched for CUDA libraries; the engine worker's library path (Linux)"},
	{Name: "PATH", Purpose: "searched for CUDA libraries (Windows)"},
	{Name: "CUDA_PATH", Purpose: "CUDA toolkit folder (Windows)"},
	{Name: "HIP_PATH", Purpose: "HIP SDK folder; not passed to the engine worker"},
	{Name: "ProgramFiles", Purpose: "where ROCm and nvidia-smi are looked for (Windows)"},
	{Name: "SystemRoot", Purpose: "where nvidia-smi is looked for (Windows)"},
}

// Set returns "NAME=value" for each WhisperKey variable that environ (as from
// os.Environ) sets: the listed ones that concern WhisperKey alone, and every
// config-key override (overrides, config.EnvOverrides). Secret values show as
// "(set)"; a WHISPERKEY_ name that is neither, such as a misspelt key, is
// marked as not read. Generic variables (PATH, DISPLAY, …) are left out:
// they are set on every machine.
func Set(environ, overrides []string) []string {
	var out []string
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if v == "" {
			continue
		}
		i := slices.IndexFunc(All, func(x Var) bool { return x.Name == k })
		switch {
		case i >= 0 && All[i].Secret:
			out = append(out, k+"=(set)")
		case strings.HasPrefix(k, ConfigPrefix) && i < 0 && !slices.Contains(overrides, k):
			out = append(out, kv+" "+NotRead)
		case strings.HasPrefix(k, ConfigPrefix) || k == "HF_ENDPOINT" || k == "CT2_CUDA_ALLOCATOR":
			out = append(out, kv)
		}
	}
	slices.Sort(out)
	return out
}
