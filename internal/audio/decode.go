package audio

import (
	"bufio"
	"errors"
	"io"
)

// ErrUnsupportedFormat means audio in a container this build cannot decode yet.
var ErrUnsupportedFormat = errors.New("unsupported audio format")

// Decode reads an audio file of any format this package understands,
// recognised by its first bytes, not by its name. It is the one entry point
// for uploaded or opened files, so a new format is added here once. name
// appears in error messages.
func Decode(r io.Reader, name string) (*Clip, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(12)
	switch kind := sniff(head); kind {
	case "wav", "":
		// WAV, or something unknown that decodeWAV describes precisely.
		return decodeWAV(br, name)
	default:
		return nil, kindErr(ErrUnsupportedFormat, "%s is %s, which this build cannot decode yet; send WAV, or convert it with: ffmpeg -i %s -ar 16000 -ac 1 out.wav",
			name, kind, name)
	}
}

// sniff names the container format from a file's first bytes ("" when unknown).
func sniff(head []byte) string {
	has := func(off int, magic string) bool {
		return len(head) >= off+len(magic) && string(head[off:off+len(magic)]) == magic
	}
	switch {
	case (has(0, "RIFF") || has(0, "RF64")) && has(8, "WAVE"):
		return "wav"
	case has(0, "fLaC"):
		return "FLAC audio"
	case has(0, "OggS"):
		return "Ogg audio"
	case has(0, "ID3"), len(head) >= 2 && head[0] == 0xFF && head[1]&0xE0 == 0xE0:
		return "MP3 audio"
	}
	return ""
}

// Decode16k decodes like Decode and returns mono 16 kHz samples, the input
// Whisper expects; audio with no samples is an error.
func Decode16k(r io.Reader, name string) ([]float32, error) {
	clip, err := Decode(r, name)
	if err != nil {
		return nil, err
	}
	if clip.Frames() == 0 {
		return nil, kindErr(ErrCorruptWAV, "%s holds no audio", name)
	}
	return Resample(clip.Mono(), clip.Rate, SampleRate), nil
}
