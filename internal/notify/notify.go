package notify

import (
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Kind groups messages for rate limiting: a kind shows at most once per Config.Interval.
type Kind int

// Kinds of message.
const (
	KindMicLost Kind = iota + 1
	KindMicBack
	KindModelDownloaded
	KindGPUNotUsed
	KindEngineRestarted
	KindRecordingCut
	KindNotPasted
	KindNoModel
	KindRemoteFallback
	KindHotkey
	KindMicChanged
	KindCleanupFallback
	KindVocabulary
	KindCommand // a command on the last dictation (undo, paste again) was not carried out
	KindNotRunning
	KindRecording    // the indicator's stand-in where no layer surface can show (GNOME)
	KindNothingHeard // likewise; it replaces the recording notice on screen
	KindConfig       // the config file has an unknown key or was rejected
)

func (k Kind) String() string {
	switch k {
	case KindMicLost:
		return "mic-lost"
	case KindMicBack:
		return "mic-back"
	case KindModelDownloaded:
		return "model-downloaded"
	case KindGPUNotUsed:
		return "gpu-not-used"
	case KindEngineRestarted:
		return "engine-restarted"
	case KindRecordingCut:
		return "recording-cut"
	case KindNotPasted:
		return "not-pasted"
	case KindNoModel:
		return "no-model"
	case KindRemoteFallback:
		return "remote-fallback"
	case KindHotkey:
		return "hotkey"
	case KindMicChanged:
		return "mic-changed"
	case KindCleanupFallback:
		return "cleanup-fallback"
	case KindVocabulary:
		return "vocabulary"
	case KindCommand:
		return "command"
	case KindNotRunning:
		return "not-running"
	case KindRecording:
		return "recording"
	case KindNothingHeard:
		return "nothing-heard"
	case KindConfig:
		return "config"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Message is one notification. Build them with the constructors below so the wording stays in one place.
type Message struct {
	Kind    Kind
	Summary string // the title line
	Body    string // one or two sentences; plain text
	Urgent  bool   // stays until dismissed where the desktop supports it
	// Transient: gone once it has shown, not kept in the desktop's list of
	// notifications (a state that is over in seconds).
	Transient bool
	// Unthrottled: shown even within Interval of the last of its kind,
	// because the caller tells each distinct problem once itself (a config
	// file fixed and broken again within seconds is news again).
	Unthrottled bool
}

// MicrophoneLost says the input device went away; device may be empty.
func MicrophoneLost(device string) Message {
	body := "The microphone is gone, so dictation cannot record. WhisperKey keeps running and picks it up again when it returns."
	if device != "" {
		body = fmt.Sprintf("%q is gone, so dictation cannot record. WhisperKey keeps running and picks it up again when it returns.", device)
	}
	return Message{Kind: KindMicLost, Summary: "Microphone lost", Body: body, Urgent: true}
}

// MicrophoneBack says the input device returned.
func MicrophoneBack(device string) Message {
	body := "The microphone is back; dictation works again."
	if device != "" {
		body = fmt.Sprintf("%q is back; dictation works again.", device)
	}
	return Message{Kind: KindMicBack, Summary: "Microphone back", Body: body}
}

// MicrophoneChanged says dictation now records from another microphone: the system's
// default input moved, or the configured one is gone and the default stands in.
func MicrophoneChanged(device, why string) Message {
	body := fmt.Sprintf("Dictation now records from %q.", device)
	if why != "" {
		body = fmt.Sprintf("Dictation now records from %q: %s.", device, why)
	}
	return Message{Kind: KindMicChanged, Summary: "Microphone changed", Body: body}
}

// HotkeyProblem says a hotkey cannot be used; detail names it and the fix.
func HotkeyProblem(detail string) Message {
	return Message{Kind: KindHotkey, Summary: "Hotkey not available", Body: detail, Urgent: true}
}

// NotRunning says a key binding's `whisperkey ptt` found no app to drive:
// a binding has no terminal to print that on.
func NotRunning(detail string) Message {
	return Message{Kind: KindNotRunning, Summary: "WhisperKey is not running", Body: detail, Urgent: true}
}

// ModelDownloaded says a model finished downloading and is ready.
func ModelDownloaded(model string) Message {
	return Message{Kind: KindModelDownloaded, Summary: "Model downloaded", Body: fmt.Sprintf("The %s model is downloaded and ready.", model)}
}

// GPUNotUsed says transcription runs on the CPU, why, and where the guide is.
func GPUNotUsed(reason, guideURL string) Message {
	body := "Transcription runs on the CPU: " + reason + "."
	if guideURL != "" {
		body += " How to fix it: " + guideURL
	}
	return Message{Kind: KindGPUNotUsed, Summary: "GPU not used", Body: body}
}

// EngineCrashed says the transcription engine stopped and was started again.
func EngineCrashed(detail string) Message {
	body := "The transcription engine stopped unexpectedly and was restarted; the dictation in progress was sent to it again."
	if detail != "" {
		body += " (" + detail + ")"
	}
	return Message{Kind: KindEngineRestarted, Summary: "Engine restarted", Body: body}
}

// RecordingCut says a recording hit the maximum length and was stopped there.
func RecordingCut(maxLen time.Duration) Message {
	return Message{Kind: KindRecordingCut, Summary: "Recording cut",
		Body: fmt.Sprintf("The recording reached the maximum length (%s) and was stopped there; raise audio.max_duration to record longer.", maxLen)}
}

// NoModel says no speech model could be loaded; detail says why and how to fix it.
func NoModel(detail string) Message {
	return Message{Kind: KindNoModel, Summary: "WhisperKey has no speech model", Body: detail}
}

// RemoteFallback says the remote engine failed and dictation went to the local one.
func RemoteFallback(detail string) Message {
	return Message{Kind: KindRemoteFallback, Summary: "Dictating on this computer", Body: detail}
}

// CleanupFallback says the AI cleanup's answer was not used and the text
// went out as heard; why is a few words ("Cleanup timed out").
func CleanupFallback(why string) Message {
	return Message{Kind: KindCleanupFallback, Summary: "Pasted as heard, without AI cleanup",
		Body: why + ". Your words were pasted as you said them; check the cleanup server and cleanup.timeout."}
}

// VocabularyTooLong says which vocabulary terms the model's prompt has no
// room for (detail: dictation.VocabularyLeftOut).
func VocabularyTooLong(detail string) Message {
	return Message{Kind: KindVocabulary, Summary: "Part of your vocabulary is not used", Body: detail}
}

// Recording says dictation records now: the recording indicator where the
// desktop has no place for it (GNOME on Wayland).
func Recording() Message {
	return Message{Kind: KindRecording, Summary: "Recording",
		Body: "Speak now; release the shortcut (or press it again) to stop.", Transient: true}
}

// NothingHeard says a recording held no speech, so nothing was pasted.
func NothingHeard() Message {
	return Message{Kind: KindNothingHeard, Summary: "Nothing heard", Body: "The recording held no speech; nothing was pasted.", Transient: true}
}

// ConfigProblem says the config file has problems: detail lists them, each
// naming the line and key; rejected says the file is not in use at all.
func ConfigProblem(detail string, rejected bool) Message {
	if rejected {
		return Message{Kind: KindConfig, Summary: "Config file not applied",
			Body: detail + "\nWhisperKey keeps the last good settings until the file is fixed and saved."}
	}
	return Message{Kind: KindConfig, Summary: "Config file has an unknown key",
		Body: detail + "\nThe rest of the file is in use; fix the key and save the file."}
}

// TextNotPasted says the target never read the clipboard, so the text waits there.
func TextNotPasted() Message {
	return Message{Kind: KindNotPasted, Summary: "Text not pasted",
		Body: "The window did not take the text. It is on the clipboard: paste it with Ctrl+V.", Urgent: true}
}

// NotUndone says why the last dictation was left in its window; why is the
// reason as the output package words it.
func NotUndone(why string) Message {
	return Message{Kind: KindCommand, Summary: "Not undone", Body: why + ". Nothing was changed."}
}

// NotRewritten says why the selection was left as it was; why is the reason
// as the desk words it.
func NotRewritten(why string) Message {
	return Message{Kind: KindCommand, Summary: "Not rewritten", Body: why + ". The text was left as it was."}
}

// NothingToPasteAgain says paste again found no dictation to paste.
func NothingToPasteAgain() Message {
	return Message{Kind: KindCommand, Summary: "Nothing to paste again", Body: "Dictate something first; paste again puts the last dictation in once more."}
}

// Config configures a Notifier. Zero fields take the defaults.
type Config struct {
	AppName  string        // default "WhisperKey"
	Interval time.Duration // minimum time between two messages of one kind; default 30s
	Timeout  time.Duration // how long a call to the desktop may take; default 2s
}

func (c Config) withDefaults() Config {
	if c.AppName == "" {
		c.AppName = "WhisperKey"
	}
	if c.Interval <= 0 {
		c.Interval = 30 * time.Second
	}
	if c.Timeout <= 0 {
		c.Timeout = 2 * time.Second
	}
	return c
}

// Notifier sends Messages to the desktop. Its methods are safe for concurrent use.
type Notifier struct {
	cfg Config
	log *slog.Logger
	os  *osNotifier

	mu     sync.Mutex
	last   map[Kind]time.Time
	closed bool
}

// New connects to the desktop's notification service (Linux: the session D-Bus;
// Windows: a notification-area icon of its own that shows balloons as toasts).
func New(cfg Config, log *slog.Logger) (*Notifier, error) {
	cfg = cfg.withDefaults()
	log = log.With("pkg", "notify")
	o, err := newOSNotifier(cfg, log)
	if err != nil {
		return nil, fmt.Errorf("notifications: %w", err)
	}
	return &Notifier{cfg: cfg, log: log, os: o, last: map[Kind]time.Time{}}, nil
}

// Notify shows m unless a message of its kind was shown less than Interval ago.
// It reports whether m was shown. A failure is logged, not returned: a missing
// notification must never stop dictation.
func (n *Notifier) Notify(m Message) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return false
	}
	now := time.Now()
	if t, ok := n.last[m.Kind]; ok && now.Sub(t) < n.cfg.Interval && !m.Unthrottled {
		n.log.Debug("notification rate-limited", "kind", m.Kind)
		return false
	}
	if err := n.os.show(m); err != nil {
		n.log.Warn("cannot show a notification", "kind", m.Kind, "err", err)
		return false
	}
	n.last[m.Kind] = now
	return true
}

// Close disconnects from the notification service. Idempotent.
func (n *Notifier) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	return n.os.close()
}
