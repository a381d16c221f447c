package portal

import "github.com/whisperkey/whisperkey/internal/hotkey"

// Hold turns a shortcut's Activated and Deactivated signals into key edges.
//
// The spec has Activated when the keys go down and Deactivated when they
// come up, which gives hold-to-talk. A desktop that only ever sends
// Activated must still work, as toggle. Until a Deactivated has been seen,
// Hold cannot tell the two apart, so each Activated is a toggle: in hold
// mode the first one presses the key and, if no Deactivated comes, the next
// one releases it; in toggle mode each is a tap. The first Deactivated
// releases the key and proves that the desktop reports releases: from then
// on Activated is a press and Deactivated a release, so hold mode holds and
// toggle mode toggles on each press. The one case this gets wrong is a
// desktop that repeats Activated while the keys are held before it ever
// sent a Deactivated: that first hold stops at the repeat.
//
// The zero Hold is ready. It is not safe for concurrent use.
type Hold struct {
	proven bool
}

// Signal is the record hotkey's edge for one signal (active: Activated).
func (h *Hold) Signal(active bool) hotkey.Command {
	switch {
	case !active:
		h.proven = true
		return hotkey.CommandRelease
	case h.proven:
		return hotkey.CommandPress
	}
	return hotkey.CommandToggle
}

// Proven reports whether the desktop has shown that it reports releases.
func (h *Hold) Proven() bool { return h.proven }
