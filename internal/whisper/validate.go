package whisper

import "fmt"

// MaxBeamSize bounds the beam: wider beams cost time in proportion and gain
// nothing measurable for Whisper (faster-whisper's default is 5).
const MaxBeamSize = 16

// ValidateBeamSize checks a user-given beam size.
func ValidateBeamSize(n int) error {
	if n < 1 || n > MaxBeamSize {
		return fmt.Errorf("beam size %d is out of range: use 1 to %d (1 = greedy, default 5)", n, MaxBeamSize)
	}
	return nil
}
