package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// SampleRate is the rate Whisper expects and the rate of every clip the
// recorder returns.
const SampleRate = 16000

// Errors callers can branch on; the messages built around them say what to do.
var (
	// ErrNotWAV means the input is not a RIFF/WAVE file at all.
	ErrNotWAV = errors.New("not a WAV file")
	// ErrUnsupportedWAV means a valid WAV file in an encoding this package does not read.
	ErrUnsupportedWAV = errors.New("unsupported WAV encoding")
	// ErrCorruptWAV means a WAV file whose structure is broken (no fmt or data chunk, bad fields).
	ErrCorruptWAV = errors.New("corrupt WAV file")
)

// kindError carries a complete user-facing message and the sentinel it is,
// so the message reads as one sentence instead of ending in ": <sentinel>".
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func kindErr(kind error, format string, args ...any) error {
	return &kindError{msg: fmt.Sprintf(format, args...), kind: kind}
}

// Clip is decoded audio.
type Clip struct {
	Samples  []float32 // interleaved frames, each channel in [-1, 1]
	Rate     int       // frames per second
	Channels int
}

// Frames is the number of sample frames (samples per channel).
func (c *Clip) Frames() int {
	if c.Channels <= 0 {
		return 0
	}
	return len(c.Samples) / c.Channels
}

// Mono averages the channels into one; a mono clip's samples are returned as is.
func (c *Clip) Mono() []float32 {
	if c.Channels <= 1 {
		return c.Samples
	}
	out := make([]float32, c.Frames())
	scale := 1 / float32(c.Channels)
	for i := range out {
		var s float32
		for _, v := range c.Samples[i*c.Channels : (i+1)*c.Channels] {
			s += v
		}
		out[i] = s * scale
	}
	return out
}

// DecodeWAV reads a RIFF/WAVE stream: PCM with 8, 16, 24 or 32-bit integer
// samples or 32/64-bit IEEE float, plain or WAVE_FORMAT_EXTENSIBLE. Chunks
// other than fmt and data are skipped. A data chunk cut short (an
// interrupted recording) yields the complete frames present, as players do.
func DecodeWAV(r io.Reader) (*Clip, error) {
	var c clipSink
	if err := decodeWAV(r, "input", &c); err != nil {
		return nil, err
	}
	return &c.clip, nil
}

// Format codes from the WAVE specification.
const (
	wavPCM        = 0x0001
	wavFloat      = 0x0003
	wavALaw       = 0x0006
	wavMuLaw      = 0x0007
	wavExtensible = 0xFFFE
)

// wavFormat is the content of a fmt chunk that decoding needs.
type wavFormat struct {
	code       int // after resolving WAVE_FORMAT_EXTENSIBLE
	channels   int
	rate       int
	blockAlign int
	bits       int // container bits per sample
}

// decodeWAV reads a RIFF/WAVE stream into out as it goes.
func decodeWAV(r io.Reader, name string, out pcmSink) error {
	var hdr [12]byte
	n, err := io.ReadFull(r, hdr[:])
	switch {
	case n == 0 && (err == io.EOF || err == nil):
		return kindErr(ErrNotWAV, "%s is empty (0 bytes)", name)
	case err != nil && err != io.ErrUnexpectedEOF:
		return fmt.Errorf("read %s: %w", name, err)
	}
	if n < 12 || (string(hdr[0:4]) != "RIFF" && string(hdr[0:4]) != "RF64") || string(hdr[8:12]) != "WAVE" {
		return kindErr(ErrNotWAV, "%s is %s; convert it with: ffmpeg -i %s -ar 16000 -ac 1 out.wav",
			name, describeNonWAV(hdr[:n]), name)
	}

	var (
		format  *wavFormat
		pending []byte // a data chunk met before fmt (rare, but legal)
	)
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			return fmt.Errorf("read %s: %w", name, err)
		}
		id := string(ch[0:4])
		size := int64(binary.LittleEndian.Uint32(ch[4:8]))
		switch id {
		case "fmt ":
			if format != nil {
				return kindErr(ErrCorruptWAV, "%s has two fmt chunks", name)
			}
			if size < 16 || size > 1<<16 {
				return kindErr(ErrCorruptWAV, "%s has a fmt chunk of %d bytes (want 16 to 65536)", name, size)
			}
			buf := make([]byte, size+size&1)
			if n, _ := io.ReadFull(r, buf); int64(n) < size {
				return kindErr(ErrCorruptWAV, "%s ends inside its fmt chunk (the file is cut short)", name)
			}
			if format, err = parseFmt(buf[:size], name); err != nil {
				return err
			}
			if pending != nil {
				return format.decode(bytes.NewReader(pending), int64(len(pending)), name, out)
			}
		case "data":
			// Streaming writers (ffmpeg to a pipe, RF64) leave the size unknown.
			if size == 0xFFFFFFFF {
				size = math.MaxInt64
			}
			if format != nil {
				return format.decode(r, size, name, out)
			}
			var err error
			if pending, err = io.ReadAll(io.LimitReader(r, size)); err != nil {
				return fmt.Errorf("read %s: %w", name, err)
			}
			if int64(len(pending)) < size {
				return kindErr(ErrCorruptWAV, "%s has no fmt chunk (the file is cut short)", name)
			}
			if size&1 == 1 {
				_, _ = io.CopyN(io.Discard, r, 1)
			}
		default:
			// LIST, fact, cue, bext, JUNK, …: not needed. Chunks are padded to even sizes.
			// A cut-short chunk ends the file: the next header read sees EOF.
			if _, err := io.CopyN(io.Discard, r, size+size&1); err != nil && err != io.EOF {
				return fmt.Errorf("read %s: %w", name, err)
			}
		}
	}
	if format == nil {
		return kindErr(ErrCorruptWAV, "%s has no fmt chunk (the WAV header is incomplete); convert it with: ffmpeg -i %s -ar 16000 -ac 1 out.wav", name, name)
	}
	return kindErr(ErrCorruptWAV, "%s has a WAV header but no audio (no data chunk); re-export or re-record it", name)
}

// describeNonWAV names what a file that is not a WAV seems to be.
func describeNonWAV(head []byte) string {
	kinds := []struct {
		off   int
		magic string
		kind  string
	}{
		{0, "ID3", "MP3 audio"},
		{0, "\xff\xfb", "MP3 audio"},
		{0, "\xff\xf3", "MP3 audio"},
		{0, "fLaC", "FLAC audio"},
		{0, "OggS", "Ogg audio"},
		{4, "ftyp", "MP4/M4A audio"},
		{0, "\x1a\x45\xdf\xa3", "WebM/Matroska audio"},
		{8, "AIFF", "AIFF audio"},
		{8, "AVI ", "AVI video"},
		{0, "RIFX", "a big-endian RIFF file"},
	}
	for _, k := range kinds {
		if len(head) >= k.off+len(k.magic) && string(head[k.off:k.off+len(k.magic)]) == k.magic {
			return "not a WAV file (it looks like " + k.kind + ")"
		}
	}
	if len(head) < 12 {
		return fmt.Sprintf("not a WAV file (only %d bytes: %q)", len(head), head)
	}
	// A few bytes name the file's kind; more would echo an upload back.
	return fmt.Sprintf("not a WAV file (starts with %q)", head[:min(len(head), 16)])
}

func parseFmt(b []byte, name string) (*wavFormat, error) {
	f := &wavFormat{
		code:       int(binary.LittleEndian.Uint16(b[0:2])),
		channels:   int(binary.LittleEndian.Uint16(b[2:4])),
		rate:       int(binary.LittleEndian.Uint32(b[4:8])),
		blockAlign: int(binary.LittleEndian.Uint16(b[12:14])),
		bits:       int(binary.LittleEndian.Uint16(b[14:16])),
	}
	if f.code == wavExtensible {
		// cbSize(2) validBits(2) channelMask(4) then the sub-format GUID, whose
		// first two bytes are the real format code.
		if len(b) < 40 {
			return nil, kindErr(ErrCorruptWAV, "%s has a WAVE_FORMAT_EXTENSIBLE header of %d bytes (want 40)", name, len(b))
		}
		f.code = int(binary.LittleEndian.Uint16(b[24:26]))
	}
	convert := fmt.Sprintf("convert it with: ffmpeg -i %s -ar 16000 -ac 1 out.wav", name)
	switch f.code {
	case wavPCM, wavFloat:
	case wavALaw, wavMuLaw:
		return nil, kindErr(ErrUnsupportedWAV, "%s is G.711 %s encoded; %s", name, map[int]string{wavALaw: "A-law", wavMuLaw: "µ-law"}[f.code], convert)
	default:
		return nil, kindErr(ErrUnsupportedWAV, "%s uses WAV format code 0x%04X (only PCM and IEEE float are read); %s", name, f.code, convert)
	}
	if f.channels < 1 {
		return nil, kindErr(ErrCorruptWAV, "%s declares %d channels", name, f.channels)
	}
	if f.rate < 1000 || f.rate > 1_000_000 {
		return nil, kindErr(ErrCorruptWAV, "%s declares a sample rate of %d Hz (want 1000 to 1000000)", name, f.rate)
	}
	// Samples sit in containers of blockAlign/channels bytes; writers disagree
	// on whether bits counts the container or the valid bits, so trust
	// blockAlign. One that is no whole number of bytes per channel (0, say)
	// is a damaged header, refused rather than guessed at.
	if f.blockAlign < f.channels || f.blockAlign%f.channels != 0 {
		return nil, kindErr(ErrCorruptWAV, "%s declares a block align (bytes per frame) of %d for %d-bit samples in %d channel(s), where %d belongs; its header is damaged, so %s",
			name, f.blockAlign, f.bits, f.channels, f.channels*max(1, (f.bits+7)/8), convert)
	}
	// Valid bits sit left-justified in the container (12 in 16, 7 in 8),
	// so decoding the container is right, unless it cannot hold them.
	if container := 8 * f.blockAlign / f.channels; f.bits > container {
		return nil, kindErr(ErrCorruptWAV, "%s declares %d-bit samples in %d-byte frames, which cannot hold them; %s", name, f.bits, f.blockAlign, convert)
	}
	f.bits = 8 * f.blockAlign / f.channels
	ok := (f.code == wavPCM && (f.bits == 8 || f.bits == 16 || f.bits == 24 || f.bits == 32)) ||
		(f.code == wavFloat && (f.bits == 32 || f.bits == 64))
	if !ok {
		kind := map[int]string{wavPCM: "integer PCM", wavFloat: "float"}[f.code]
		return nil, kindErr(ErrUnsupportedWAV, "%s has %d-bit %s samples (readable: 8/16/24/32-bit integer, 32/64-bit float); %s", name, f.bits, kind, convert)
	}
	return f, nil
}

// decode reads up to size bytes of sample frames from r into out, a block at a time.
func (f *wavFormat) decode(r io.Reader, size int64, name string, out pcmSink) error {
	if err := out.begin(f.rate, f.channels); err != nil {
		return err
	}
	buf := make([]byte, max(f.blockAlign, (64<<10)/f.blockAlign*f.blockAlign))
	var samples []float32
	var have int    // bytes in buf carried over (an incomplete frame)
	var total int64 // samples decoded
	remaining := size
	for remaining > 0 {
		want := int64(len(buf) - have)
		if remaining < want {
			want = remaining
		}
		n, err := io.ReadFull(r, buf[have:have+int(want)])
		remaining -= int64(n)
		have += n
		whole := have - have%f.blockAlign
		samples = f.convert(samples[:0], buf[:whole])
		have = copy(buf, buf[whole:have])
		if f.code == wavFloat {
			if err := checkFinite(samples, total, name); err != nil {
				return err
			}
		}
		total += int64(len(samples))
		if werr := out.write(samples); werr != nil {
			return werr
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break // truncated: keep the complete frames
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
	}
	if total == 0 && size > 0 {
		return kindErr(ErrCorruptWAV, "%s is cut short: its data chunk holds no complete sample frame", name)
	}
	return nil
}

// checkFinite rejects float samples that are NaN or infinite: no audio
// device or editor makes them, and the decoder would turn them into noise.
func checkFinite(samples []float32, offset int64, name string) error {
	for i, v := range samples {
		what := ""
		switch {
		case v != v:
			what = "not a number (NaN)"
		case math.IsInf(float64(v), 0):
			what = "infinite"
		default:
			continue
		}
		return kindErr(ErrCorruptWAV, "%s has float samples that are %s (the first at sample %d); the file is damaged — re-export or re-record it", name, what, offset+int64(i))
	}
	return nil
}

// convert appends the samples in b (whole frames) as float32 in [-1, 1].
func (f *wavFormat) convert(dst []float32, b []byte) []float32 {
	switch {
	case f.code == wavFloat && f.bits == 32:
		for i := 0; i+4 <= len(b); i += 4 {
			dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
		}
	case f.code == wavFloat && f.bits == 64:
		for i := 0; i+8 <= len(b); i += 8 {
			dst = append(dst, float32(math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))))
		}
	case f.bits == 8: // unsigned, centred on 128
		for _, v := range b {
			dst = append(dst, float32(int(v)-128)/128)
		}
	case f.bits == 16:
		for i := 0; i+2 <= len(b); i += 2 {
			dst = append(dst, float32(int16(binary.LittleEndian.Uint16(b[i:])))/(1<<15))
		}
	case f.bits == 24:
		for i := 0; i+3 <= len(b); i += 3 {
			v := int32(uint32(b[i])<<8|uint32(b[i+1])<<16|uint32(b[i+2])<<24) >> 8
			dst = append(dst, float32(v)/(1<<23))
		}
	case f.bits == 32:
		for i := 0; i+4 <= len(b); i += 4 {
			dst = append(dst, float32(float64(int32(binary.LittleEndian.Uint32(b[i:])))/(1<<31)))
		}
	}
	return dst
}

// WAVFormat is how EncodeWAV stores samples.
type WAVFormat int

const (
	// PCM16 is 16-bit integers, clipped at full scale: what every reader takes.
	PCM16 WAVFormat = iota
	// Float32 is the samples exactly, in twice the bytes: whoever decodes the
	// file hears what the app heard (the remote engine sends it).
	Float32
)

// EncodeWAV writes samples (interleaved frames) as a WAV file in format f.
func EncodeWAV(w io.Writer, samples []float32, rate, channels int, f WAVFormat) error {
	if f == Float32 {
		return encodeWAV(w, samples, rate, channels, wavFloat, 4, func(b []byte, v float32) []byte {
			return binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		})
	}
	return encodeWAV(w, samples, rate, channels, wavPCM, 2, func(b []byte, v float32) []byte {
		return binary.LittleEndian.AppendUint16(b, uint16(pcm16(v)))
	})
}

// encodeWAV writes the header of a WAV file of format code with bps bytes
// per sample, then each sample as put appends it.
func encodeWAV(w io.Writer, samples []float32, rate, channels int, code uint16, bps int, put func([]byte, float32) []byte) error {
	if rate <= 0 || channels <= 0 || channels > 0xFFFF {
		return fmt.Errorf("encode WAV: invalid format (%d Hz, %d channels)", rate, channels)
	}
	if len(samples)%channels != 0 {
		return fmt.Errorf("encode WAV: %d samples is not a whole number of %d-channel frames", len(samples), channels)
	}
	// A format other than PCM has a cbSize field and a fact chunk (the frame
	// count): the WAV rules, which sox and others check.
	fmtSize, extra := 16, 0
	if code != wavPCM {
		fmtSize, extra = 18, 12
	}
	dataSize := len(samples) * bps
	riffSize := 4 + 8 + fmtSize + extra + 8 + dataSize
	if int64(riffSize) > math.MaxUint32 {
		return fmt.Errorf("encode WAV: %d samples exceed the 4 GiB WAV limit", len(samples))
	}
	h := make([]byte, 0, 58)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(riffSize))
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, uint32(fmtSize))
	h = binary.LittleEndian.AppendUint16(h, code)
	h = binary.LittleEndian.AppendUint16(h, uint16(channels))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate*channels*bps))
	h = binary.LittleEndian.AppendUint16(h, uint16(channels*bps))
	h = binary.LittleEndian.AppendUint16(h, uint16(8*bps))
	if code != wavPCM {
		h = binary.LittleEndian.AppendUint16(h, 0) // cbSize
		h = append(h, "fact"...)
		h = binary.LittleEndian.AppendUint32(h, 4)
		h = binary.LittleEndian.AppendUint32(h, uint32(len(samples)/channels))
	}
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(dataSize))
	if _, err := w.Write(h); err != nil {
		return fmt.Errorf("write WAV header: %w", err)
	}
	buf := make([]byte, 0, 32<<10)
	for i, v := range samples {
		buf = put(buf, v)
		if len(buf)+bps > cap(buf) || i == len(samples)-1 {
			if _, err := w.Write(buf); err != nil {
				return fmt.Errorf("write WAV data: %w", err)
			}
			buf = buf[:0]
		}
	}
	return nil
}

// pcm16 rounds v to a 16-bit sample, clipping at full scale.
func pcm16(v float32) int16 {
	x := math.Round(float64(v) * (1 << 15))
	switch {
	case x > math.MaxInt16:
		return math.MaxInt16
	case x < math.MinInt16:
		return math.MinInt16
	case x != x: // NaN
		return 0
	}
	return int16(x)
}
