package session

// readableInputs: Windows has no evdev.
func readableInputs(string) int { return 0 }
