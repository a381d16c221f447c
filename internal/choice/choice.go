package choice

import "slices"

// ModelAuto is the model value that lets the hardware pick the model.
const ModelAuto = "auto"

// DefaultBeamSize is the beam width decoding uses when nothing sets one
// (faster-whisper's default): the config's beam_size, the decoder's options
// and serve's flag all read it here, the one package both config and the
// decoder may import.
const DefaultBeamSize = 5

// Device is where the user asks the engine to run (the config key device,
// the --device flags, the tray's Device menu).
type Device string

// Devices the user may ask for.
const (
	DeviceAuto Device = "auto" // the best GPU found, checked against the CPU, else the CPU
	DeviceCPU  Device = "cpu"
	DeviceCUDA Device = "cuda" // an NVIDIA GPU
	DeviceROCm Device = "rocm" // an AMD GPU
)

// Devices lists the devices in the order help texts name them.
func Devices() []Device { return []Device{DeviceAuto, DeviceCPU, DeviceCUDA, DeviceROCm} }

// Valid reports whether d is one of Devices.
func (d Device) Valid() bool { return slices.Contains(Devices(), d) }

// ComputeType is the number format CTranslate2 runs a model in (the config
// key compute_type, the --compute-type flags, the tray's Compute type menu,
// the types a device reports): CTranslate2's own names, so the value goes to
// the library as it is.
type ComputeType string

// Compute types the user may ask for.
const (
	ComputeAuto    ComputeType = "auto"    // the fastest the device supports (CTranslate2 picks)
	ComputeDefault ComputeType = "default" // the format the model was saved in
	Int8           ComputeType = "int8"
	Int8Float32    ComputeType = "int8_float32"
	Int8Float16    ComputeType = "int8_float16"
	Int8BFloat16   ComputeType = "int8_bfloat16"
	Int16          ComputeType = "int16"
	Float16        ComputeType = "float16"
	BFloat16       ComputeType = "bfloat16"
	Float32        ComputeType = "float32"
)

// ComputeTypes lists the compute types in the order help texts name them.
func ComputeTypes() []ComputeType {
	return []ComputeType{ComputeAuto, ComputeDefault, Int8, Int8Float32, Int8Float16, Int8BFloat16, Int16, Float16, BFloat16, Float32}
}

// Valid reports whether t is one of ComputeTypes.
func (t ComputeType) Valid() bool { return slices.Contains(ComputeTypes(), t) }

// PasteMode is how a dictation reaches the focused window (the config key paste).
type PasteMode string

// Paste modes.
const (
	Paste      PasteMode = "paste"       // paste at the cursor, the clipboard put back after
	Clipboard  PasteMode = "clipboard"   // only put the text on the clipboard; the user pastes
	PasteEnter PasteMode = "paste-enter" // paste, then press Enter (chat boxes, terminals)
	Type       PasteMode = "type"        // Unicode keystrokes, for targets that refuse the clipboard
)

// PasteModes lists the paste modes in the order menus show them.
func PasteModes() []PasteMode { return []PasteMode{Paste, Clipboard, PasteEnter, Type} }

// Valid reports whether m is one of PasteModes.
func (m PasteMode) Valid() bool { return slices.Contains(PasteModes(), m) }

// HotkeyMode is how the record hotkey behaves (the config key hotkeys.mode).
type HotkeyMode string

// Hotkey modes.
const (
	Hold   HotkeyMode = "hold"   // record while held (push to talk)
	Toggle HotkeyMode = "toggle" // one press starts, the next stops
	Auto   HotkeyMode = "auto"   // held: push to talk; tapped: as toggle; tapped twice: locked on
)

// HotkeyModes lists the hotkey modes.
func HotkeyModes() []HotkeyMode { return []HotkeyMode{Hold, Toggle, Auto} }

// Valid reports whether m is one of HotkeyModes.
func (m HotkeyMode) Valid() bool { return slices.Contains(HotkeyModes(), m) }

// Placement is where the recording indicator shows (the config key indicator).
type Placement string

// Placements.
const (
	Bottom       Placement = "bottom" // bottom centre of the monitor with the focused window
	Cursor       Placement = "cursor" // just below and right of the mouse pointer
	IndicatorOff Placement = "off"    // no indicator
)

// Placements lists the placements.
func Placements() []Placement { return []Placement{Bottom, Cursor, IndicatorOff} }

// Valid reports whether p is one of Placements.
func (p Placement) Valid() bool { return slices.Contains(Placements(), p) }

// MediaMode is what happens to playing media while recording (the config key audio.media).
type MediaMode string

// Media modes.
const (
	MediaPause MediaMode = "pause" // pause the players that were playing, resume them after
	MediaLower MediaMode = "lower" // turn the playing players down, back up after
	MediaOff   MediaMode = "off"   // leave media alone
)

// MediaModes lists the media modes.
func MediaModes() []MediaMode { return []MediaMode{MediaPause, MediaLower, MediaOff} }

// Valid reports whether m is one of MediaModes.
func (m MediaMode) Valid() bool { return slices.Contains(MediaModes(), m) }

// SendMode is whether a dictation ends with Enter (a profile's send).
type SendMode string

// Send modes.
const (
	SendNever    SendMode = "never"     // no Enter, whatever is said (the auto-send hotkey still presses it)
	SendWhenSaid SendMode = "when_said" // Enter when the dictation ends with a send phrase (commands.send)
	SendAlways   SendMode = "always"    // Enter after every dictation
)

// SendModes lists the send modes.
func SendModes() []SendMode { return []SendMode{SendNever, SendWhenSaid, SendAlways} }

// Valid reports whether m is one of SendModes.
func (m SendMode) Valid() bool { return slices.Contains(SendModes(), m) }
