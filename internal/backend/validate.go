package backend

import (
	"fmt"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// UnmetRequest is the sentence to show when the user asked for a GPU device
// explicitly (cuda or rocm) and the model runs on the CPU instead; "" when
// the request was met or nothing was requested.
func UnmetRequest(requested choice.Device, l *Loaded) string {
	if (requested != choice.DeviceCUDA && requested != choice.DeviceROCm) || l.Spec.Device != "cpu" {
		return ""
	}
	return fmt.Sprintf("device %s was requested but cannot be used: %s", requested, l.Message)
}
