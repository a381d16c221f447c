package audio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"

	"github.com/hajimehoshi/go-mp3"
	"github.com/jfreymuth/oggvorbis"
	"github.com/mewkiz/flac"
)

// Errors of Decode besides the WAV ones; the messages built around them say what to do.
var (
	// ErrUnsupportedFormat means audio that only ffmpeg reads, and ffmpeg is not installed,
	// or input that neither WhisperKey nor ffmpeg recognises as audio.
	ErrUnsupportedFormat = errors.New("unsupported audio format")
	// ErrCorruptAudio means a FLAC, MP3 or Ogg file that does not decode, or holds no audio.
	ErrCorruptAudio = errors.New("corrupt audio file")
)

// Format names as Decode sniffs them.
const (
	FormatWAV    = "WAV"
	FormatFLAC   = "FLAC"
	FormatMP3    = "MP3"
	FormatVorbis = "Ogg Vorbis"
	FormatOther  = "" // anything else: handed to ffmpeg
)

// Decode reads audio from r and returns it as mono 16 kHz samples, the input
// Whisper expects. WAV, FLAC, MP3 and Ogg Vorbis are decoded in Go; the format
// is told by the content, never a file name. Other formats go through ffmpeg
// when it is on the PATH.
func Decode(r io.Reader) ([]float32, error) {
	return decode(r, "input", "")
}

// DecodeNamed is Decode with name (an upload's file name, say) in its error messages.
func DecodeNamed(r io.Reader, name string) ([]float32, error) {
	return decode(r, name, "")
}

// DecodeFile is Decode for the file at path.
func DecodeFile(path string) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open audio file: %w", err)
	}
	defer f.Close()
	return decode(f, path, path)
}

// Sniff names the format of audio that starts with head ("" for one only ffmpeg may read).
func Sniff(head []byte) string {
	switch {
	case len(head) >= 12 && (string(head[0:4]) == "RIFF" || string(head[0:4]) == "RF64") && string(head[8:12]) == "WAVE":
		return FormatWAV
	case bytes.HasPrefix(head, []byte("fLaC")):
		return FormatFLAC
	case bytes.HasPrefix(head, []byte("OggS")):
		// The first page holds the codec's identification header.
		if bytes.Contains(head[:min(len(head), 512)], []byte("\x01vorbis")) {
			return FormatVorbis
		}
		return FormatOther // Opus, FLAC-in-Ogg, Speex: ffmpeg
	case bytes.HasPrefix(head, []byte("ID3")):
		return FormatMP3 // an ID3v2 tag is how most MP3 files start
	case isMP3Frame(head):
		return FormatMP3
	}
	return FormatOther
}

// isMP3Frame reports an MPEG audio Layer III frame header: 11 sync bits, a
// version other than "reserved", layer bits 01, a usable bitrate and sample rate.
func isMP3Frame(h []byte) bool {
	if len(h) < 4 || h[0] != 0xFF || h[1]&0xE0 != 0xE0 {
		return false
	}
	version, layer := (h[1]>>3)&3, (h[1]>>1)&3
	bitrate, rate := h[2]>>4, (h[2]>>2)&3
	return version != 1 && layer == 1 && bitrate != 0 && bitrate != 15 && rate != 3
}

// decode sniffs r and decodes it; path is set when r is that file, so ffmpeg
// can read it directly (some containers need to seek).
func decode(r io.Reader, name, path string) (samples []float32, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4096)
	head = bytes.Clone(head)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(head) == 0 {
		return nil, kindErr(ErrNotWAV, "%s is empty (0 bytes)", name)
	}
	var clip *Clip
	// The Go decoders index into what the file says; a damaged file can make
	// them panic, and an upload must not take the process down.
	defer func() {
		if p := recover(); p != nil {
			samples, err = nil, kindErr(ErrCorruptAudio, "%s is a damaged %s file (the decoder failed: %v); export it again, or repair it with: ffmpeg -i %s -ar 16000 -ac 1 out.wav",
				name, Sniff(head), p, name)
		}
	}()
	switch format := Sniff(head); format {
	case FormatWAV:
		clip, err = decodeWAV(br, name)
	case FormatFLAC:
		clip, err = decodeFLAC(br)
	case FormatMP3:
		var data []byte
		if data, err = io.ReadAll(br); err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		clip, err = decodeMP3(bytes.NewReader(data))
		if errors.Is(err, errMP3Rate) { // ffmpeg decodes these right
			return decodeFFmpeg(bytes.NewReader(data), name, "", head, err.Error())
		}
	case FormatVorbis:
		clip, err = decodeVorbis(br)
	default:
		return decodeFFmpeg(br, name, path, head, "")
	}
	if err != nil {
		var ke *kindError
		if errors.As(err, &ke) {
			return nil, err
		}
		return nil, kindErr(ErrCorruptAudio, "%s is a damaged %s file (%s); export it again, or repair it with: ffmpeg -i %s -ar 16000 -ac 1 out.wav",
			name, Sniff(head), oneLine(err.Error()), name)
	}
	if clip.Frames() == 0 || clip.Rate <= 0 {
		return nil, kindErr(ErrCorruptAudio, "%s holds no audio (a %s file without samples)", name, Sniff(head))
	}
	return Resample(clip.Mono(), clip.Rate, SampleRate), nil
}

func decodeFLAC(r io.Reader) (*Clip, error) {
	s, err := flac.New(r)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	channels, bits := int(s.Info.NChannels), int(s.Info.BitsPerSample)
	if channels < 1 || bits < 4 || bits > 32 {
		return nil, fmt.Errorf("stream info says %d channels of %d bits", channels, bits)
	}
	scale := float32(1 / math.Exp2(float64(bits-1)))
	clip := &Clip{Rate: int(s.Info.SampleRate), Channels: channels}
	for {
		f, err := s.ParseNext()
		if err == io.EOF {
			return clip, nil
		}
		if err != nil {
			return nil, err
		}
		if len(f.Subframes) != channels {
			return nil, fmt.Errorf("a frame has %d channels, the stream %d", len(f.Subframes), channels)
		}
		for i := range int(f.BlockSize) {
			for _, sf := range f.Subframes {
				if i >= len(sf.Samples) {
					return nil, errors.New("a frame is shorter than its block size")
				}
				clip.Samples = append(clip.Samples, float32(sf.Samples[i])*scale)
			}
		}
	}
}

// errMP3Rate marks an MP3 whose sample rate go-mp3 decodes into garbled
// sound without an error: measured for 22050 Hz (MPEG-2), and not checked for
// MPEG-2.5 (8000 to 12000 Hz). 16000 and 24000 Hz and all MPEG-1 rates decode
// to within 2% of ffmpeg's waveform.
var errMP3Rate = errors.New("MP3 at a sample rate the built-in decoder does not read correctly")

func decodeMP3(r io.Reader) (*Clip, error) {
	d, err := mp3.NewDecoder(r)
	if err != nil {
		return nil, err
	}
	switch d.SampleRate() {
	case 16000, 24000, 32000, 44100, 48000:
	default:
		return nil, fmt.Errorf("%w (%d Hz)", errMP3Rate, d.SampleRate())
	}
	// go-mp3 always writes 16-bit little-endian stereo.
	pcm, err := io.ReadAll(d)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) { // a cut-off last frame: keep what decoded
		return nil, err
	}
	clip := &Clip{Rate: d.SampleRate(), Channels: 2, Samples: make([]float32, len(pcm)/2)}
	for i := range clip.Samples {
		clip.Samples[i] = float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
	}
	clip.Samples = clip.Samples[:len(clip.Samples)/2*2]
	return clip, nil
}

func decodeVorbis(r io.Reader) (*Clip, error) {
	samples, f, err := oggvorbis.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if f.Channels < 1 {
		return nil, errors.New("no channels")
	}
	return &Clip{Samples: samples[:len(samples)/f.Channels*f.Channels], Rate: f.SampleRate, Channels: f.Channels}, nil
}

// decodeFFmpeg converts what the Go decoders do not read with ffmpeg.
// why, when set, says why a format the Go decoders know needs ffmpeg.
func decodeFFmpeg(r io.Reader, name, path string, head []byte, why string) ([]float32, error) {
	what := describeNonWAV(head)
	bin, err := exec.LookPath("ffmpeg")
	if err != nil && why != "" {
		return nil, kindErr(ErrUnsupportedFormat, "%s is an %s, which needs ffmpeg, and ffmpeg is not on the PATH; install it (apt install ffmpeg, brew install ffmpeg, winget install ffmpeg) or convert the file to WAV or FLAC",
			name, why)
	}
	if err != nil {
		return nil, kindErr(ErrUnsupportedFormat, "%s is %s, which needs ffmpeg, and ffmpeg is not on the PATH; install it (apt install ffmpeg, brew install ffmpeg, winget install ffmpeg) or give a WAV, FLAC, MP3 or Ogg Vorbis file",
			name, strings.Replace(what, "not a WAV file", "not WAV, FLAC, MP3 or Ogg Vorbis audio", 1))
	}
	input := "pipe:0"
	if path != "" {
		input = path
	}
	// A float WAV at 16 kHz with the channels kept: Clip.Mono then averages
	// them as for every other format (ffmpeg's own downmix is 3 dB louder).
	cmd := exec.Command(bin, "-nostdin", "-hide_banner", "-loglevel", "error", "-i", input,
		"-map", "0:a:0", "-ar", fmt.Sprint(SampleRate), "-c:a", "pcm_f32le", "-f", "wav", "pipe:1")
	if path == "" {
		cmd.Args = append(cmd.Args[:1], cmd.Args[2:]...) // -nostdin would close the pipe
		cmd.Stdin = r
	}
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	hideWindow(cmd)
	if err := cmd.Run(); err != nil || out.Len() < 44 {
		reason := lastLine(stderr.String())
		if reason == "" && err != nil {
			reason = err.Error()
		}
		if reason == "" {
			reason = "no audio stream"
		}
		return nil, kindErr(ErrUnsupportedFormat, "%s is not audio that WhisperKey or ffmpeg can read (%s; ffmpeg: %s); give a WAV, FLAC, MP3 or Ogg Vorbis file",
			name, strings.TrimSuffix(strings.TrimPrefix(what, "not a WAV file ("), ")"), reason)
	}
	clip, err := decodeWAV(&out, name)
	if err != nil || clip.Frames() == 0 {
		return nil, kindErr(ErrUnsupportedFormat, "%s: ffmpeg found no audio in it; give a WAV, FLAC, MP3 or Ogg Vorbis file", name)
	}
	return Resample(clip.Mono(), clip.Rate, SampleRate), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// oneLine keeps a decoder's message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
