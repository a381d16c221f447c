package dictation

import (
	"slices"
	"sync"
)

// recentKept is how many distinct languages of the last dictations are
// kept as the prior of short clips (whisper.Options.Recent).
const recentKept = 5

// recentLanguages are the languages of the last dictations, newest first,
// once each: language codes only, never text.
type recentLanguages struct {
	mu    sync.Mutex
	codes []string
}

// add notes code ("" is ignored) as the newest.
func (r *recentLanguages) add(code string) {
	if code == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.codes = slices.DeleteFunc(r.codes, func(c string) bool { return c == code })
	r.codes = append([]string{code}, r.codes[:min(len(r.codes), recentKept-1)]...)
}

// list is a copy of the codes, newest first.
func (r *recentLanguages) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.codes)
}
