package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// FileName is the history file inside the state directory.
const FileName = "history.json"

// DefaultMax is how many dictations are kept unless Config.Max says otherwise.
const DefaultMax = 20

// LabelLength is how many characters of a dictation a menu label shows.
const LabelLength = 40

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
}

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

// file is the on-disk form.
type file struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
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
	entries, err := Read(cfg.File)
	if err != nil {
		return nil, err
	}
	if len(entries) > cfg.Max {
		entries = entries[:cfg.Max]
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
	if strings.TrimSpace(e.Text) == "" {
		return Entry{}, nil
	}
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
// An ID ending in RawSuffix returns the entry with its text as heard as Text.
func (h *History) Get(id string) (Entry, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	base, raw := strings.CutSuffix(id, RawSuffix)
	for _, e := range h.entries {
		if e.ID == base {
			if raw {
				if e.Raw == "" {
					return Entry{}, false
				}
				e.Text = e.Raw
			}
			return e, true
		}
	}
	return Entry{}, false
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

// Read returns the entries kept in the file at path, newest first; a missing file holds none.
func Read(path string) ([]Entry, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the dictation history: %w", err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("read the dictation history %s: %v; delete the file to start afresh", path, err)
	}
	return f.Entries, nil
}

// write replaces the file atomically, readable by the user only: dictations are private.
func write(path string, entries []Entry) error {
	b, err := json.MarshalIndent(file{Version: 1, Entries: entries}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the dictation history: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create the folder for the dictation history: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".history-*.tmp") // CreateTemp makes it 0600
	if err != nil {
		return fmt.Errorf("write the dictation history: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(append(b, '\n')); err != nil {
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
