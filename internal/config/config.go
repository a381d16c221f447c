package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// Config is one immutable snapshot of the settings. Fields hold checked values;
// the comment of each key in config.example.yaml says what it does.
type Config struct {
	Engine        Engine
	Decode        Decode
	Text          Text // see words.go
	Hotkeys       Hotkeys
	Paste         choice.PasteMode
	Audio         Audio
	Sounds        bool
	LogLevel      string // debug, info, warn or error
	ModelCacheDir string // "" means the default per-user cache
	// ModelsMirror is the base URL of a server with the Hugging Face layout
	// that model downloads use instead of huggingface.co; "" means none.
	ModelsMirror string
	Remote       Remote
	Feedback     Feedback
	Commands     Commands // spoken commands on the last dictation (commands.go)
	Profiles     Profiles // per-app overrides, first match wins (profiles.go)
	Cleanup      Cleanup  // optional AI rewrite of each dictation (cleanup.go)
	Edit         Edit     // rewriting the selection by voice (voiceedit.go)
	// UnloadAfter (engine.unload_after) ends the engine worker, and with it
	// the model's memory, after that long without a dictation; 0 keeps the
	// model loaded. Not in Engine: changing it needs no new worker.
	UnloadAfter time.Duration
}

// Remote names an OpenAI-compatible server to transcribe on instead of the
// local engine; an empty URL means transcribe locally.
type Remote struct {
	URL    string // "" or an http:// or https:// URL
	APIKey string // sent as a bearer token; never logged or shown
	Model  string // the model name sent with each request
}

// Feedback holds what the user sees of the app's work: the indicator, notifications
// and the kept history of dictations.
type Feedback struct {
	Indicator     choice.Placement
	Notifications bool
	KeepOnDisk    bool // history.keep_on_disk: keep the recent dictations in a file
	// KeepAudioDays (history.keep_audio_days) keeps each take's recording
	// that many days, so Recent can transcribe it again; 0 keeps none.
	KeepAudioDays int
	// LiveText shows on the indicator the words heard so far, as the hold's
	// early transcriptions find them, before the key is released.
	LiveText bool
}

// Engine holds the settings that need a new engine worker when they change.
type Engine struct {
	Model       string // choice.ModelAuto, a model name, a Hugging Face repo id or a model folder
	Device      choice.Device
	DeviceIndex int
	ComputeType choice.ComputeType // CTranslate2 compute type, "auto" by default
	CPUThreads  int                // 0 lets CTranslate2 choose
}

// Decode holds the decoding settings, applied per transcription.
type Decode struct {
	Language      string // "auto" or a Whisper language code
	Languages     List   // the user's languages: "auto" detects only these (languages.go)
	BeamSize      int
	Vocabulary    List   // words and phrases to spell as written (words.go)
	Prompt        string // text that sets the style, as if said before
	InitialPrompt string // old name of Prompt: Load moves it there
	Hotwords      string // old name of Vocabulary (comma-separated): Load moves it there
	// ShortWindow (ShortWindowAuto, On or Off) decodes short recordings on
	// a window fitted to the speech, falling back to the full 30 s when the
	// result looks wrong; auto does on the CPU only.
	ShortWindow string
	// Early transcribes while the key is still held, once the speech has
	// ended, so the text is ready at the release (the same words).
	Early bool
	// EarlyPrefix: a release after more words forces what the hold's last
	// two early transcriptions agree on, and decodes only the rest.
	EarlyPrefix bool
}

// Hotkeys holds key combinations as written in the file (parsed by internal/hotkey)
// and how the record key behaves.
type Hotkeys struct {
	Record   string
	Cancel   string // HotkeyOff when turned off
	AutoSend string // HotkeyOff when turned off
	Mode     choice.HotkeyMode
	// PasteAgain inserts the last dictation again; Undo removes it from the
	// window it went to. HotkeyOff when turned off (the default).
	PasteAgain string
	Undo       string
	// Edit is held like Record, but the words are an instruction for the
	// selected text (voiceedit.go). HotkeyOff when turned off (the default).
	Edit string
	// Translate is held like Record, for text translated into English;
	// Language picks the next of auto and Decode.Languages at each press
	// (languages.go). HotkeyOff when turned off (the default).
	Translate, Language string
	// StopAfterSilence ends a toggled recording after this much silence
	// following speech (handsfree.go); 0, the default, turns it off.
	StopAfterSilence time.Duration
}

// Audio holds the capture settings.
type Audio struct {
	InputDevice   string // "" means the system default microphone
	MinDuration   time.Duration
	MaxDuration   time.Duration
	PreRoll       bool
	PreRollLength time.Duration
	Media         choice.MediaMode // playing media while recording; Linux and Windows (MediaNote)
}

// Allowed values of the enumerated keys.
const (
	HotkeyOff = "none" // an optional hotkey that is turned off

	ShortWindowAuto = "auto" // on the CPU, off on a GPU
	ShortWindowOn   = "true"
	ShortWindowOff  = "false"
)

// Keys as written in the file (dotted for nested ones) and accepted by Store.Set.
const (
	KeyModel          = "model"
	KeyDevice         = "device"
	KeyDeviceIndex    = "device_index"
	KeyComputeType    = "compute_type"
	KeyCPUThreads     = "cpu_threads"
	KeyLanguage       = "language"
	KeyBeamSize       = "beam_size"
	KeyInitialPrompt  = "initial_prompt"
	KeyHotwords       = "hotwords"
	KeyShortWindow    = "decoding.short_window"
	KeyEarly          = "decoding.early"
	KeyEarlyPrefix    = "decoding.early_prefix"
	KeyRecord         = "hotkeys.record"
	KeyCancel         = "hotkeys.cancel"
	KeyAutoSend       = "hotkeys.auto_send"
	KeyMode           = "hotkeys.mode"
	KeyPasteAgain     = "hotkeys.paste_again"
	KeyUndo           = "hotkeys.undo"
	KeyEditHotkey     = "hotkeys.edit"
	KeyPaste          = "paste"
	KeyInputDevice    = "audio.input_device"
	KeyMinDuration    = "audio.min_duration"
	KeyMaxDuration    = "audio.max_duration"
	KeyPreRoll        = "audio.pre_roll"
	KeyPreRollLength  = "audio.pre_roll_length"
	KeyMedia          = "audio.media"
	KeySounds         = "sounds"
	KeyLogLevel       = "log_level"
	KeyModelCacheDir  = "model_cache_dir"
	KeyModelsMirror   = "models.mirror"
	KeyRemoteURL      = "remote.url"
	KeyRemoteAPIKey   = "remote.api_key"
	KeyRemoteModel    = "remote.model"
	KeyIndicator      = "indicator"
	KeyNotifications  = "notifications"
	KeyLiveText       = "live_text"
	KeyKeepOnDisk     = "history.keep_on_disk"
	KeyKeepAudioDays  = "history.keep_audio_days"
	KeyUnloadAfter    = "engine.unload_after"
	envPrefix         = "WHISPERKEY"
	languageDocAnchor = "docs/configuration.md#language"
)

const (
	// MaxKeepAudioDays bounds history.keep_audio_days: a year of takes.
	MaxKeepAudioDays = 365
	// MaxUnloadAfter bounds engine.unload_after: past a day, keeping the
	// model loaded (0) is what is meant.
	MaxUnloadAfter = 24 * time.Hour
)

// Defaults returns the built-in settings; config.example.yaml spells out the same values.
func Defaults() Config {
	return Config{
		Engine: Engine{Model: choice.ModelAuto, Device: choice.DeviceAuto, ComputeType: choice.ComputeAuto},
		Decode: Decode{Language: "auto", BeamSize: choice.DefaultBeamSize, ShortWindow: ShortWindowAuto, Early: true},
		Hotkeys: Hotkeys{Record: "ctrl+win", Cancel: "esc", AutoSend: HotkeyOff, Mode: choice.Hold,
			PasteAgain: HotkeyOff, Undo: HotkeyOff, Edit: HotkeyOff, Translate: HotkeyOff, Language: HotkeyOff},
		Paste: choice.Paste,
		Audio: Audio{
			MinDuration:   300 * time.Millisecond,
			MaxDuration:   5 * time.Minute,
			PreRoll:       false, // the microphone closed between dictations (docs/configuration.md#audio)
			PreRollLength: 500 * time.Millisecond,
			Media:         choice.MediaOff,
		},
		Sounds:   true,
		LogLevel: "info",
		Remote:   Remote{Model: "whisper-1"},
		Text:     Text{Output: Output{Case: CaseAsSpoken}},
		Feedback: Feedback{Indicator: choice.Bottom, Notifications: true, LiveText: true},
		Cleanup:  Cleanup{Timeout: 3 * time.Second, Mode: "clean"},
		Edit:     Edit{Timeout: 15 * time.Second},
		Commands: Commands{Undo: NewList(DefaultUndoPhrases...), Send: NewList(DefaultSendPhrases...)},
	}
}

// SlogLevel returns LogLevel as a slog level.
func (c Config) SlogLevel() slog.Level {
	var l slog.Level
	_ = l.UnmarshalText([]byte(c.LogLevel)) // LogLevel was validated; info on the zero Config
	return l
}

// Options are the checks that live in other packages, and watcher tuning.
type Options struct {
	// ValidateHotkey checks a hotkeys.* combination such as "ctrl+shift+space"
	// (hotkey.Validate). Nil accepts any text.
	ValidateHotkey func(string) error
	// ValidateModel checks a model value other than "auto" (the model
	// registry's lookup). Nil accepts any single line of text.
	ValidateModel func(string) error
	// CheckVocabulary, when set, is asked by `config validate` about the
	// vocabularies (the config's and each profile's): what it returns is
	// shown as warnings (terms the model has no room for), not errors.
	CheckVocabulary func(Config) []string
	// CannotTranslate says why a model (a name other than auto) cannot
	// translate, or "" (models.CannotTranslate); nil skips the check.
	CannotTranslate func(model string) string
	// Debounce is how long the watcher waits after the last file event before
	// reloading, so an editor's multi-step save is read once. Default 150ms.
	Debounce time.Duration
}

func (o Options) withDefaults() Options {
	if o.Debounce <= 0 {
		o.Debounce = 150 * time.Millisecond
	}
	return o
}

// errNotAllowed marks a value outside the allowed set; the message needs no extra reason.
var errNotAllowed = errors.New("not allowed")

// field describes one key: where it lives in Config, what it accepts and how to say so.
type field struct {
	key     string
	ptr     func(c *Config) any // *string, *int, *bool or *time.Duration
	allowed string              // shown after "allowed:"
	hint    string              // completes "set KEY to …"
	check   func(v any, o Options) error
	// renamedTo is the key that replaced this one; Load moves the value there.
	renamedTo string
}

func fields() []field {
	const combo = "modifiers ctrl, shift, alt, win and at most one key, joined with +, such as ctrl+win or ctrl+shift+space; or rctrl, ralt, mouse4, mouse5 alone"
	return append([]field{
		{key: KeyModel, ptr: func(c *Config) any { return &c.Engine.Model }, check: checkModel,
			allowed: "auto, a model name such as base, small or large-v3-turbo (whisperkey models lists them), a Hugging Face repo id owner/name, or a CTranslate2 model folder",
			hint:    "one of those"},
		enumField(KeyDevice, func(c *Config) *choice.Device { return &c.Engine.Device }, choice.Devices()...),
		intField(KeyDeviceIndex, func(c *Config) any { return &c.Engine.DeviceIndex }, 0, 63),
		enumField(KeyComputeType, func(c *Config) *choice.ComputeType { return &c.Engine.ComputeType }, choice.ComputeTypes()...),
		intField(KeyCPUThreads, func(c *Config) any { return &c.Engine.CPUThreads }, 0, MaxCPUThreads),
		{key: KeyLanguage, ptr: func(c *Config) any { return &c.Decode.Language }, check: checkLanguage,
			allowed: "auto or a Whisper language code such as en, de, fr, es, ja, zh (all codes: " + languageDocAnchor + ")",
			hint:    "auto or one of those codes"},
		intField(KeyBeamSize, func(c *Config) any { return &c.Decode.BeamSize }, 1, MaxBeamSize),
		renamed(textField(KeyInitialPrompt, func(c *Config) any { return &c.Decode.InitialPrompt }), KeyPrompt),
		renamed(textField(KeyHotwords, func(c *Config) any { return &c.Decode.Hotwords }), KeyVocabulary),
		enumField(KeyShortWindow, func(c *Config) *string { return &c.Decode.ShortWindow }, ShortWindowAuto, ShortWindowOn, ShortWindowOff),
		boolField(KeyEarly, func(c *Config) any { return &c.Decode.Early }),
		boolField(KeyEarlyPrefix, func(c *Config) any { return &c.Decode.EarlyPrefix }),
		{key: KeyRecord, ptr: func(c *Config) any { return &c.Hotkeys.Record }, check: checkHotkey(false),
			allowed: combo, hint: "a key combination"},
		{key: KeyCancel, ptr: func(c *Config) any { return &c.Hotkeys.Cancel }, check: checkHotkey(true),
			allowed: combo + ", or none to turn it off", hint: "a key combination or none"},
		{key: KeyAutoSend, ptr: func(c *Config) any { return &c.Hotkeys.AutoSend }, check: checkHotkey(true),
			allowed: combo + ", or none to turn it off", hint: "a key combination or none"},
		enumField(KeyMode, func(c *Config) *choice.HotkeyMode { return &c.Hotkeys.Mode }, choice.HotkeyModes()...),
		{key: KeyPasteAgain, ptr: func(c *Config) any { return &c.Hotkeys.PasteAgain }, check: checkHotkey(true),
			allowed: combo + ", or none to turn it off", hint: "a key combination or none"},
		{key: KeyUndo, ptr: func(c *Config) any { return &c.Hotkeys.Undo }, check: checkHotkey(true),
			allowed: combo + ", or none to turn it off", hint: "a key combination or none"},
		{key: KeyEditHotkey, ptr: func(c *Config) any { return &c.Hotkeys.Edit }, check: checkHotkey(true),
			allowed: combo + ", or none to turn it off", hint: "a key combination or none"},
		enumField(KeyPaste, func(c *Config) *choice.PasteMode { return &c.Paste }, choice.PasteModes()...),
		textField(KeyInputDevice, func(c *Config) any { return &c.Audio.InputDevice }),
		durField(KeyMinDuration, func(c *Config) any { return &c.Audio.MinDuration }, 0, 10*time.Second),
		durField(KeyMaxDuration, func(c *Config) any { return &c.Audio.MaxDuration }, time.Second, time.Hour),
		boolField(KeyPreRoll, func(c *Config) any { return &c.Audio.PreRoll }),
		durField(KeyPreRollLength, func(c *Config) any { return &c.Audio.PreRollLength }, 0, 5*time.Second),
		enumField(KeyMedia, func(c *Config) *choice.MediaMode { return &c.Audio.Media }, choice.MediaModes()...),
		boolField(KeySounds, func(c *Config) any { return &c.Sounds }),
		enumField(KeyLogLevel, func(c *Config) *string { return &c.LogLevel }, "debug", "info", "warn", "error"),
		{key: KeyModelCacheDir, ptr: func(c *Config) any { return &c.ModelCacheDir }, check: checkAbsDir,
			allowed: `an absolute folder path (~ for your home folder works), or "" for the default cache`, hint: "an absolute folder path"},
		{key: KeyModelsMirror, ptr: func(c *Config) any { return &c.ModelsMirror }, check: checkMirrorURL,
			allowed: `"" to download from Hugging Face (or HF_ENDPOINT), or the http:// or https:// base address of a server with the Hugging Face layout, such as https://hf-mirror.example.com`,
			hint:    "such an address"},
		{key: KeyRemoteURL, ptr: func(c *Config) any { return &c.Remote.URL }, check: checkRemoteURL,
			allowed: `"" to transcribe on this computer, or the http:// or https:// address of an OpenAI-compatible server such as http://gpu-box:8765`,
			hint:    "such an address"},
		textField(KeyRemoteAPIKey, func(c *Config) any { return &c.Remote.APIKey }),
		{key: KeyRemoteModel, ptr: func(c *Config) any { return &c.Remote.Model }, check: checkOneLine,
			allowed: "the model name the server expects, such as whisper-1", hint: "a model name"},
		enumField(KeyIndicator, func(c *Config) *choice.Placement { return &c.Feedback.Indicator }, choice.Placements()...),
		boolField(KeyNotifications, func(c *Config) any { return &c.Feedback.Notifications }),
		boolField(KeyLiveText, func(c *Config) any { return &c.Feedback.LiveText }),
		boolField(KeyKeepOnDisk, func(c *Config) any { return &c.Feedback.KeepOnDisk }),
		described(intField(KeyKeepAudioDays, func(c *Config) any { return &c.Feedback.KeepAudioDays }, 0, MaxKeepAudioDays),
			fmt.Sprintf("0 to keep no recordings (the default), or a number of days from 1 to %d", MaxKeepAudioDays)),
		described(durField(KeyUnloadAfter, func(c *Config) any { return &c.UnloadAfter }, 0, MaxUnloadAfter),
			"0 to keep the model loaded (the default), or a duration up to "+formatDuration(MaxUnloadAfter)+", such as 10m"),
		{key: KeyProfiles, ptr: func(c *Config) any { return &c.Profiles },
			allowed: "a list of profiles, each with a name, a match (class, exe or title) and the settings it changes (see " + profilesDocAnchor + ")",
			hint:    "such a list"},
	}, slices.Concat(wordsFields(), cleanupFields(), commandFields(), editFields(), languagesFields(), handsfreeFields())...)
}

func lookupField(key string) (field, bool) {
	for _, f := range fields() {
		if strings.EqualFold(f.key, key) {
			return f, true
		}
	}
	return field{}, false
}

// envName is the variable that overrides key: WHISPERKEY_HOTKEYS_RECORD for hotkeys.record.
// EnvOverrides lists the environment variables that override config keys,
// one per key: WHISPERKEY_ and the key in capitals with "_" for "."
// (docs/configuration.md), such as WHISPERKEY_HOTKEYS_RECORD.
func EnvOverrides() []string {
	var names []string
	for _, f := range fields() {
		names = append(names, envName(f.key))
	}
	return names
}

func envName(key string) string {
	return envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// enumField is a key with a closed set of spellings, stored as a string or as one
// of the choice types; Load is the one place these are parsed.
func enumField[T ~string](key string, ptr func(*Config) *T, vals ...T) field {
	names := make([]string, len(vals))
	for i, v := range vals {
		names[i] = string(v)
	}
	return field{key: key, ptr: func(c *Config) any { return textOf(ptr(c)) },
		allowed: strings.Join(names, ", "), hint: "one of them",
		check: func(v any, _ Options) error {
			if slices.Contains(names, v.(string)) {
				return nil
			}
			return errNotAllowed
		}}
}

// textPtr points at a field of a string kind other than string itself.
type textPtr interface {
	text() string
	setText(string)
}

type typedText[T ~string] struct{ p *T }

func (t typedText[T]) text() string     { return string(*t.p) }
func (t typedText[T]) setText(s string) { *t.p = T(s) }

// textOf hands convert and render a *string as it is, and a typed one wrapped.
func textOf[T ~string](p *T) any {
	if s, ok := any(p).(*string); ok {
		return s
	}
	return typedText[T]{p}
}

func intField(key string, ptr func(*Config) any, lo, hi int) field {
	return field{key: key, ptr: ptr, allowed: fmt.Sprintf("a whole number from %d to %d", lo, hi), hint: "a number in that range",
		check: func(v any, _ Options) error {
			if n := v.(int); n < lo || n > hi {
				return errNotAllowed
			}
			return nil
		}}
}

// described is f with its allowed values said in other words, for a key
// whose zero turns it off.
func described(f field, allowed string) field {
	f.allowed = allowed
	return f
}

func durField(key string, ptr func(*Config) any, lo, hi time.Duration) field {
	def := Defaults()
	return field{key: key, ptr: ptr, hint: "a duration in that range",
		allowed: fmt.Sprintf("a duration from %s to %s, such as %s", formatDuration(lo), formatDuration(hi), formatDuration(*ptr(&def).(*time.Duration))),
		check: func(v any, _ Options) error {
			if d := v.(time.Duration); d < lo || d > hi {
				return errNotAllowed
			}
			return nil
		}}
}

func boolField(key string, ptr func(*Config) any) field {
	return field{key: key, ptr: ptr, allowed: "true, false", hint: "true or false"}
}

func textField(key string, ptr func(*Config) any) field {
	return field{key: key, ptr: ptr, allowed: "any text", hint: "some text"}
}

func checkHotkey(optional bool) func(any, Options) error {
	return func(v any, o Options) error {
		switch s := v.(string); {
		case optional && (s == "" || strings.EqualFold(s, HotkeyOff)):
			return nil
		case s == "":
			return errors.New("it must not be empty")
		case o.ValidateHotkey != nil:
			return o.ValidateHotkey(s)
		}
		return nil
	}
}

func checkModel(v any, o Options) error {
	switch s := v.(string); {
	case strings.TrimSpace(s) == "" || strings.ContainsAny(s, "\r\n\t"):
		return errNotAllowed
	case s != choice.ModelAuto && o.ValidateModel != nil:
		return o.ValidateModel(s)
	}
	return nil
}

func checkRemoteURL(v any, _ Options) error {
	s := v.(string)
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || strings.ContainsAny(s, " \t\r\n"):
		return errors.New("it is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("it must start with http:// or https://")
	case u.Host == "":
		return errors.New("it has no host name")
	}
	return nil
}

// checkMirrorURL is checkRemoteURL without a query or fragment, which the
// download URLs are appended after.
func checkMirrorURL(v any, o Options) error {
	if err := checkRemoteURL(v, o); err != nil {
		return err
	}
	if s := v.(string); strings.ContainsAny(s, "?#") {
		return errors.New("it must be a base address without ? or #")
	}
	return nil
}

func checkOneLine(v any, _ Options) error {
	if s := v.(string); strings.TrimSpace(s) == "" || strings.ContainsAny(s, "\r\n\t") {
		return errNotAllowed
	}
	return nil
}

func checkAbsDir(v any, _ Options) error {
	if s := v.(string); s != "" && !filepath.IsAbs(s) && s != "~" && !strings.HasPrefix(s, "~/") && !strings.HasPrefix(s, `~\`) {
		return errors.New("the path must be absolute")
	}
	return nil
}

// whisperLanguages are the language codes of multilingual Whisper models (large-v3 added yue).
const whisperLanguages = `en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk
	el ms cs ro da hu ta no th ur hr bg lt la mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn
	bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl
	mg as tt haw ln ha ba jw su yue`

func checkLanguage(v any, _ Options) error {
	if s := v.(string); s == "auto" || slices.Contains(strings.Fields(whisperLanguages), s) {
		return nil
	}
	return errNotAllowed
}

// MediaNote says what audio.media cannot do on goos ("" when it does all
// it says there): players are reached through MPRIS on Linux; on Windows
// through the programs' audio sessions, which can be turned down but not
// paused (the system media session is WinRT), so pause mutes them there;
// elsewhere media is left alone.
func MediaNote(cfg Config, goos string) string {
	switch {
	case cfg.Audio.Media == choice.MediaOff || goos == "linux" || goos == "windows" && cfg.Audio.Media == choice.MediaLower:
		return ""
	case goos == "windows":
		return fmt.Sprintf("%s: %s mutes the programs playing on Windows instead of pausing them (their audio sessions; "+
			"the system media controls are out of reach), and unmutes them after: a video or song plays on unheard", KeyMedia, cfg.Audio.Media)
	}
	return fmt.Sprintf("%s: %s works on Linux and Windows only for now; on %s it leaves media alone", KeyMedia, cfg.Audio.Media, goos)
}
