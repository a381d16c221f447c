package backend

import (
	"fmt"
	"slices"
	"strings"
)

// Devices are the values a device choice may take.
var Devices = []string{"auto", "cpu", "cuda", "rocm"}

// ValidateDevice checks a user-given device choice.
func ValidateDevice(s string) error {
	if !slices.Contains(Devices, s) {
		return fmt.Errorf("device %q is not one of %s", s, strings.Join(Devices, ", "))
	}
	return nil
}

// ValidateThreads checks a user-given CPU thread count.
func ValidateThreads(n int) error {
	if n < 0 {
		return fmt.Errorf("threads %d is negative: use 0 (all cores, up to 4) or a positive count", n)
	}
	return nil
}

// UnmetRequest is the sentence to show when the user asked for a GPU device
// explicitly (cuda or rocm) and the model runs on the CPU instead; "" when
// the request was met or nothing was requested.
func UnmetRequest(requested string, l *Loaded) string {
	if (requested != "cuda" && requested != "rocm") || l.Spec.Device != "cpu" {
		return ""
	}
	return fmt.Sprintf("device %s was requested but cannot be used: %s", requested, l.Message)
}
