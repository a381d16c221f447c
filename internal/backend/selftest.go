package backend

import (
	"bytes"
	_ "embed"

	"github.com/whisperkey/whisperkey/internal/audio"
)

// selfTestWAV is our own recording (espeak-ng) of SelfTestText, used by
// doctor and to check a GPU against the CPU.
//
//go:embed selftest.wav
var selfTestWAV []byte

// SelfTestText is what selftest.wav says.
const SelfTestText = "Remember to buy milk, bread and eggs on the way home. Please call me back when you get this message."

// SelfTestSample returns the self-test speech as 16 kHz mono samples.
func SelfTestSample() ([]float32, error) {
	clip, err := audio.DecodeWAV(bytes.NewReader(selfTestWAV))
	if err != nil {
		return nil, err
	}
	return clip.Samples, nil
}
