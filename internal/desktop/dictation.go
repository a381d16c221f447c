package desktop

import (
	"github.com/whisperkey/whisperkey/internal/dictation"
)

// SpeechDetector is what dictation asks of the speech detector
// (dictation.Detector; vad.Detector adapted by Detector).
type SpeechDetector = dictation.Detector
