package output

// elevation is what we could learn about the focused window's process.
type elevation int

const (
	elevUnknown elevation = iota // no focused window, or it could not be looked at
	elevNo                       // runs with normal rights
	elevYes                      // runs elevated (as administrator)
	elevDenied                   // refused to tell us: elevated or protected, either way out of reach
)

// pasteBlocked decides whether to skip the keystroke. Windows drops input that a
// process sends to one with a higher integrity level (UIPI) without any error, so a
// paste into an elevated window would vanish. A target that refuses to tell is treated
// the same: leaving the text on the clipboard and saying so is the safe failure.
func pasteBlocked(selfElevated bool, target elevation) bool {
	if selfElevated {
		return false
	}
	return target == elevYes || target == elevDenied
}
