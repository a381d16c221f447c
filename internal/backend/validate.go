package backend

import (
	"fmt"
)

// UnmetRequest is the sentence to show when the user asked for a GPU device
// explicitly (cuda or rocm) and the model runs on the CPU instead; "" when
// the request was met or nothing was requested.
func UnmetRequest(requested string, l *Loaded) string {
	if (requested != "cuda" && requested != "rocm") || l.Spec.Device != "cpu" {
		return ""
	}
	return fmt.Sprintf("device %s was requested but cannot be used: %s", requested, l.Message)
}
