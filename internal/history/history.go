package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/whisperkey/whisperkey/internal/paths"
)

// FileName is the history file inside the state directory.
const FileName = "history.json"

// DefaultMax is how many dictations are kept unless Config.Max says otherwise.
const DefaultMax = 20

// LabelLength is how many characters of a dictation a menu label shows.
const LabelLength = 40

// MaxTextBytes bounds an entry's text, and its text as heard, as kept here:
// more than Whisper writes for the longest recording audio.max_duration
// allows (an hour: 120 windows of at most 224 tokens, about 110 KB). A
// longer one is kept cut, ending in "…"; what was pasted is not changed.
const MaxTextBytes = 128 << 10

// MaxFileBytes bounds the history file. DefaultMax entries of MaxTextBytes
// twice over (text and as heard) are 5 MiB; write keeps the file under the
// cap by leaving out the oldest entries that do not fit, so a larger file
// is not WhisperKey's and Read refuses it.
const MaxFileBytes = 8 << 20

// Entry is one dictation.
type Entry struct {
	ID   string    `json:"id"` // unique within the history; what the Recent menu sends back
	Text string    `json:"text"`
	At   time.Time `json:"at"`
	// Raw is the text as heard when an AI cleanup rewrote it into Text.
	Raw string `json:"raw,omitempty"`
	// Profile and Cleanup are the dictation's profile and cleanup mode ("": none).
	Profile string `json:"profile,omitempty"`
	Cleanup string `json:"cleanup,omitempty"`
	// Undone: the dictation was taken back out of its window (undo).
	Undone bool `json:"undone,omitempty"`
	// Language is the language code it was transcribed in ("": not known).
	Language string `json:"language,omitempty"`
	// Model is the model that transcribed it ("": not known).
	Model string `json:"model,omitempty"`
	// Audio names the take's recording among the kept takes
	// (history.keep_audio_days); "" when none is kept.
	Audio string `json:"audio,omitempty"`
	// Cancelled: the take was cancelled before the release, so Text is ""
	// until it is retried from Recent (with its Audio).
	Cancelled bool `json:"cancelled,omitempty"`
	// Again holds the take transcribed again from Recent, oldest first; Text
	// stays the first transcription.
	Again []Again `json:"again,omitempty"`
}

// Again is one more transcription of a kept take, with the model and
// language it was made with.
type Again struct {
	Text     string `json:"text"`
	Model    string `json:"model,omitempty"`
	Language string `json:"language,omitempty"`
}

// MaxAgain bounds an entry's transcriptions again: each keeps the newest.
const MaxAgain = 4

// AgainSuffix and a number (0 the oldest) mark the ID of one of an entry's
// transcriptions again in the Recent menu.
const AgainSuffix = ":again:"

// RawSuffix marks the ID of an entry's text as heard in the Recent menu.
const RawSuffix = ":raw"

// UndoneMark starts the label of an undone entry.
const UndoneMark = "(undone) "

// Label is the entry's text for a menu: one line, at most LabelLength
// characters, starting with UndoneMark when it was undone.
func (e Entry) Label() string {
	if e.Undone {
		return Label(UndoneMark+e.Text, LabelLength)
	}
	return Label(e.Text, LabelLength)
}

// Label shortens text to n characters on one line, ending in "…" when cut.
func Label(text string, n int) string {
	s := strings.Join(strings.FieldsFunc(text, unicode.IsSpace), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimRightFunc(string(r[:n-1]), unicode.IsSpace) + "…"
}

// Config configures a History.
type Config struct {
	Max int // entries kept; default DefaultMax
	// File, when set, keeps the entries in this file (0600) across restarts; empty
	// keeps them in memory only. Path gives the usual location.
	File string
}

// Path is the history file in stateDir.
func Path(stateDir string) string { return filepath.Join(stateDir, FileName) }

// History is the list of recent dictations, newest first. Safe for concurrent use.
type History struct {
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	entries []Entry // newest first
	seq     uint64  // the last ID handed out
}

// New returns a History; with cfg.File set it starts with what the file holds. A
// missing file is an empty history; an unreadable one is an error naming it.
func New(cfg Config, log *slog.Logger) (*History, error) {
	if cfg.Max <= 0 {
		cfg.Max = DefaultMax
	}
	h := &History{cfg: cfg, log: log.With("pkg", "history")}
	if cfg.File == "" {
		return h, nil
	}
	entries, err := read(cfg.File, cfg.Max)
	if err != nil {
		return nil, err
	}
	h.entries = entries
	for _, e := range entries {
		if n, err := strconv.ParseUint(e.ID, 10, 64); err == nil && n > h.seq {
			h.seq = n
		}
	}
	return h, nil
}

// Forget deletes the history file at path, if any: what turning keep_on_disk off
// promises. A missing file is not an error.
func Forget(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete the dictation history %s: %w", path, err)
	}
	return nil
}

// Add records a dictation as the newest entry and returns it; blank text is ignored.
// With a file configured the file is rewritten; a write error is returned but the
// entry stays in memory.
func (h *History) Add(text string, at time.Time) (Entry, error) {
	return h.AddEntry(Entry{Text: text, At: at})
}

// AddEntry is Add for an entry with its text as heard, profile and cleanup
// mode; its ID is given here.
func (h *History) AddEntry(e Entry) (Entry, error) {
	if strings.TrimSpace(e.Text) == "" && !(e.Cancelled && e.Audio != "") {
		return Entry{}, nil
	}
	e.Text, e.Raw = cut(e.Text, MaxTextBytes), cut(e.Raw, MaxTextBytes)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	e.ID = strconv.FormatUint(h.seq, 10)
	h.entries = append([]Entry{e}, h.entries...)
	if len(h.entries) > h.cfg.Max {
		h.entries = h.entries[:h.cfg.Max]
	}
	if h.cfg.File == "" {
		return e, nil
	}
	return e, write(h.cfg.File, h.entries)
}

// Entries returns the kept dictations, newest first.
func (h *History) Entries() []Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Entry(nil), h.entries...)
}

// Get returns the entry with id, as the Recent menu sends it back.
// An ID ending in RawSuffix returns the entry with its text as heard as
// Text; one with AgainSuffix and a number, with that transcription again.
func (h *History) Get(id string) (Entry, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	base, raw := strings.CutSuffix(id, RawSuffix)
	base, again, isAgain := strings.Cut(base, AgainSuffix)
	for _, e := range h.entries {
		if e.ID != base {
			continue
		}
		switch n, err := strconv.Atoi(again); {
		case raw && e.Raw == "":
			return Entry{}, false
		case raw:
			e.Text = e.Raw
		case isAgain && (err != nil || n < 0 || n >= len(e.Again)):
			return Entry{}, false
		case isAgain:
			e.Text, e.Model, e.Language = e.Again[n].Text, e.Again[n].Model, e.Again[n].Language
		}
		return e, true
	}
	return Entry{}, false
}

// SetText gives a cancelled entry the text its retry found, or keeps the
// text of a transcription again beside the entry's own (the newest
// MaxAgain). An entry no longer kept is reported by ok; a file that cannot be
// written is an error (the change stays in memory).
func (h *History) SetText(id string, a Again) (e Entry, ok bool, err error) {
	a.Text = cut(a.Text, MaxTextBytes)
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range h.entries {
		if h.entries[i].ID != id {
			continue
		}
		e := &h.entries[i]
		if e.Cancelled {
			e.Cancelled, e.Text, e.Model, e.Language = false, a.Text, a.Model, a.Language
		} else {
			e.Again = append(e.Again, a)
			if len(e.Again) > MaxAgain {
				e.Again = e.Again[len(e.Again)-MaxAgain:]
			}
		}
		if h.cfg.File == "" {
			return *e, true, nil
		}
		return *e, true, write(h.cfg.File, h.entries)
	}
	return Entry{}, false, nil
}

// MarkUndone marks the entry with id as undone. An entry no longer kept is
// not an error; a file that cannot be written is (the mark stays in memory).
func (h *History) MarkUndone(id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range h.entries {
		if h.entries[i].ID == id {
			h.entries[i].Undone = true
			if h.cfg.File == "" {
				return nil
			}
			return write(h.cfg.File, h.entries)
		}
	}
	return nil
}

// cut shortens s to at most n bytes at a character's start, ending in "…"
// when it was cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	end := n - len("…")
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

// Read returns the entries the app keeps from the file at path: the newest
// DefaultMax, newest first. A missing file holds none. It reads a regular
// file (or a link to one) of at most MaxFileBytes only: a FIFO would block,
// a device or a huge file would never end or fill the memory.
func Read(path string) ([]Entry, error) { return read(path, DefaultMax) }

// read is Read keeping the newest max entries.
func read(path string, max int) ([]Entry, error) {
	// O_NONBLOCK: opening a FIFO with no writer returns at once, to be refused.
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the dictation history: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("read the dictation history: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read the dictation history %s: it is not a regular file (%s), and WhisperKey keeps it as one; "+
			"move it away to start a new history", path, paths.Kind(st.Mode()))
	}
	tooBig := func() error {
		return fmt.Errorf("read the dictation history %s: it is larger than %d MiB, which WhisperKey never writes "+
			"(it keeps %d dictations of at most %d KiB); move it away to start a new history", path, MaxFileBytes>>20, DefaultMax, MaxTextBytes>>10)
	}
	if st.Size() > MaxFileBytes {
		return nil, tooBig()
	}
	b, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the dictation history %s: %w", path, err)
	}
	if len(b) > MaxFileBytes { // it grew while read
		return nil, tooBig()
	}
	f := struct {
		Entries newest `json:"entries"`
	}{Entries: newest{max: max}}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("read the dictation history %s: %v; delete the file to start afresh", path, err)
	}
	return f.Entries.list, nil
}

// newest decodes the file's list of entries, newest first, keeping the
// first max: the others cost no memory beyond the file's bytes.
type newest struct {
	max  int
	list []Entry
}

func (n *newest) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil || tok == nil { // null: no entries
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("entries is %v, not a list", tok)
	}
	for dec.More() {
		if len(n.list) == n.max {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		var e Entry
		if err := dec.Decode(&e); err != nil {
			return err
		}
		n.list = append(n.list, e)
	}
	_, err = dec.Token()
	return err
}

// encode is the file's form of entries (newest first): {"version": 1,
// "entries": [...]} as json.MarshalIndent lays it out, with the newest entries that fit in
// MaxFileBytes. Only text that JSON escapes six times over (such as "<")
// makes DefaultMax entries too long; the oldest are then left out, so that
// Read takes the file.
func encode(entries []Entry) ([]byte, error) {
	const head, tail = "{\n  \"version\": 1,\n  \"entries\": [", "\n  ]\n}\n"
	var b bytes.Buffer
	b.WriteString(head)
	for i, e := range entries {
		eb, err := json.MarshalIndent(e, "    ", "  ")
		if err != nil {
			return nil, fmt.Errorf("encode the dictation history: %w", err)
		}
		if b.Len()+len(",\n    ")+len(eb)+len(tail) > MaxFileBytes {
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		b.Write(eb)
	}
	if b.Len() == len(head) {
		b.WriteString("]\n}\n")
	} else {
		b.WriteString(tail)
	}
	return b.Bytes(), nil
}

// write replaces the file atomically, readable by the user only: dictations are private.
func write(path string, entries []Entry) error {
	b, err := encode(entries)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create the folder for the dictation history: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".history-*.tmp") // CreateTemp makes it 0600
	if err != nil {
		return fmt.Errorf("write the dictation history: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write the dictation history: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the dictation history: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("write the dictation history: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write the dictation history: %w", err)
	}
	return nil
}
