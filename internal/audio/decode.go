package audio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/hajimehoshi/go-mp3"
	"github.com/jfreymuth/oggvorbis"
	"github.com/mewkiz/flac"
)

// Errors of DecodeNamed and DecodeFile besides the WAV ones; the messages built around them say what to do.
var (
	// ErrUnsupportedFormat means audio that only ffmpeg reads, and ffmpeg is not installed,
	// or input that neither WhisperKey nor ffmpeg recognises as audio.
	ErrUnsupportedFormat = errors.New("unsupported audio format")
	// ErrCorruptAudio means a FLAC, MP3 or Ogg file that does not decode, or holds no audio,
	// or audio at a sample rate outside MinRate to MaxRate.
	ErrCorruptAudio = errors.New("corrupt audio file")
	// ErrTooLong means audio longer than Limits.MaxAudio; decoding stopped there.
	ErrTooLong = errors.New("audio too long")
)

// Format names as Sniff gives them.
const (
	FormatWAV    = "WAV"
	FormatFLAC   = "FLAC"
	FormatMP3    = "MP3"
	FormatVorbis = "Ogg Vorbis"
	FormatOther  = "" // anything else: handed to ffmpeg
)

// Limits bound what decoding one input may cost. The zero value bounds nothing
// but the sample rate, which every decoder checks.
type Limits struct {
	// MaxAudio stops decoding, with ErrTooLong, past this much playing time.
	MaxAudio time.Duration
	// FFmpegTimeout ends an ffmpeg conversion that runs longer.
	FFmpegTimeout time.Duration
	// Raise, when set, ends ErrTooLong's message with how the user allows
	// longer audio, such as "pass a larger --max-audio"; the message says
	// to split the file either way.
	Raise string
}

// tooLong is ErrTooLong for the input name; how says when it was noticed.
func (lim Limits) tooLong(name, how string) error {
	fix := "split it or allow longer audio"
	if lim.Raise != "" {
		fix = "split it, or " + lim.Raise
	}
	return kindErr(ErrTooLong, "%s is longer than %s, the most accepted%s; %s", name, lim.MaxAudio, how, fix)
}

// DecodeNamed reads audio from r and returns it as mono 16 kHz samples, the
// input Whisper expects. WAV, FLAC, MP3 and Ogg Vorbis are decoded in Go; the
// format is told by the content, never a file name. Other formats, and MP3s
// the Go decoder cannot read, go through ffmpeg when it is on the PATH. Error
// messages call the input name (an upload's file name, say); decoding stays
// within lim: memory grows with lim.MaxAudio, not with the input.
//
// ffmpeg needs to seek in some containers (an MP4 whose index comes after
// the audio, as ffmpeg and most phones write it), so when r can seek (a
// bytes.Reader, a file) what is left of it is copied to a temporary file for
// ffmpeg to read; a stream is piped, so ffmpeg's -t still bounds what it
// costs.
func DecodeNamed(r io.Reader, name string, lim Limits) ([]float32, error) {
	return decode(r, name, "", lim)
}

// DecodeFile is DecodeNamed for the file at path, which must be a regular
// file: a FIFO or a device could block forever or never end. ffmpeg, when
// needed, reads the file itself. Limits{} sets no limit.
func DecodeFile(path string, lim Limits) ([]float32, error) {
	// Checked before opening: opening a FIFO blocks until a writer comes.
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open audio file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, kindErr(ErrNotWAV, "%s is not a regular file (%s); give an audio file, or save the stream to one first", path, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open audio file: %w", err)
	}
	defer f.Close()
	return decode(f, path, path, lim)
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
func decode(r io.Reader, name, path string, lim Limits) (samples []float32, err error) {
	src := ffmpegSource{name: name, path: path, seekable: canSeek(r)}
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4096)
	head = bytes.Clone(head)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(head) == 0 {
		return nil, kindErr(ErrNotWAV, "%s is empty (0 bytes)", name)
	}
	src.r, src.head = br, head
	// The Go decoders index into what the file says; a damaged file can make
	// them panic, and an upload must not take the process down.
	defer func() {
		if p := recover(); p != nil {
			samples, err = nil, kindErr(ErrCorruptAudio, "%s is a damaged %s file (the decoder failed: %v); export it again, or repair it with: ffmpeg -i %s -ar 16000 -ac 1 out.wav",
				name, Sniff(head), p, name)
		}
	}()
	out := newMonoSink(name, lim)
	switch format := Sniff(head); format {
	case FormatWAV:
		err = decodeWAV(br, name, out)
	case FormatFLAC:
		err = decodeFLAC(br, out)
	case FormatMP3:
		whole, rerr := io.ReadAll(br)
		if rerr != nil {
			return nil, fmt.Errorf("read %s: %w", name, rerr)
		}
		var frames []byte
		if frames, err = skipID3(whole); err == nil {
			err = decodeMP3(bytes.NewReader(frames), out)
			if err == io.EOF {
				err = errors.New("it found no MP3 frame")
			}
			if err != nil && !isKind(err) {
				// go-mp3 reads no MPEG-2.5 (8 to 12 kHz, which LAME
				// writes) and garbles some rates; ffmpeg reads them.
				src.r, src.seekable, src.goErr = bytes.NewReader(whole), true, err
				return decodeFFmpeg(src, lim)
			}
		}
	case FormatVorbis:
		err = decodeVorbis(br, out)
	default:
		return decodeFFmpeg(src, lim)
	}
	if err != nil {
		if isKind(err) {
			return nil, err
		}
		return nil, kindErr(ErrCorruptAudio, "%s is a damaged %s file (%s); export it again, or repair it with: ffmpeg -i %s -ar 16000 -ac 1 out.wav",
			name, Sniff(head), oneLine(err.Error()), name)
	}
	if out.frames == 0 {
		return nil, kindErr(ErrCorruptAudio, "%s holds no audio (a %s file without samples)", name, Sniff(head))
	}
	return out.finish(), nil
}

// isKind reports an error whose message is already the user's (a kindError).
func isKind(err error) bool {
	var ke *kindError
	return errors.As(err, &ke)
}

// canSeek reports an input with an end: a file or bytes, not a pipe.
func canSeek(r io.Reader) bool {
	s, ok := r.(io.Seeker)
	if !ok {
		return false
	}
	_, err := s.Seek(0, io.SeekCurrent)
	return err == nil
}

func decodeFLAC(r io.Reader, out pcmSink) error {
	s, err := flac.New(r)
	if err != nil {
		return err
	}
	defer s.Close()
	channels, bits := int(s.Info.NChannels), int(s.Info.BitsPerSample)
	if channels < 1 || bits < 4 || bits > 32 {
		return fmt.Errorf("stream info says %d channels of %d bits", channels, bits)
	}
	if err := out.begin(int(s.Info.SampleRate), channels); err != nil {
		return err
	}
	scale := float32(1 / math.Exp2(float64(bits-1)))
	var buf []float32
	for {
		f, err := s.ParseNext()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if len(f.Subframes) != channels {
			return fmt.Errorf("a frame has %d channels, the stream %d", len(f.Subframes), channels)
		}
		buf = buf[:0]
		for i := range int(f.BlockSize) {
			for _, sf := range f.Subframes {
				if i >= len(sf.Samples) {
					return errors.New("a frame is shorter than its block size")
				}
				buf = append(buf, float32(sf.Samples[i])*scale)
			}
		}
		if err := out.write(buf); err != nil {
			return err
		}
	}
}

// skipID3 returns data after its leading ID3v2 tags. go-mp3 allocates
// whatever size a tag's header claims (up to 512 MiB for a 10-byte file), so
// the tags are skipped here, with each size checked against the file.
func skipID3(data []byte) ([]byte, error) {
	for len(data) >= 3 && string(data[:3]) == "ID3" {
		if len(data) < 10 {
			return nil, errors.New("the ID3 tag's header is cut off")
		}
		h := data[3:10] // version (2), flags (1), size (4 bytes of 7 bits)
		if h[3]|h[4]|h[5]|h[6] >= 0x80 {
			return nil, errors.New("the ID3 tag's size is not a valid synchsafe number")
		}
		size := 10 + (int(h[3])<<21 | int(h[4])<<14 | int(h[5])<<7 | int(h[6]))
		if h[2]&0x10 != 0 { // a footer repeats the header at the end
			size += 10
		}
		if size > len(data) {
			return nil, fmt.Errorf("the ID3 tag says %d bytes, but the file has %d", size, len(data))
		}
		data = data[size:]
	}
	return data, nil
}

// errMP3Rate marks an MP3 whose sample rate go-mp3 decodes into garbled
// sound without an error: measured for 22050 Hz (MPEG-2); go-mp3 refuses
// MPEG-2.5 (8000 to 12000 Hz) itself. 16000 and 24000 Hz and all MPEG-1
// rates decode to within 2% of ffmpeg's waveform.
var errMP3Rate = errors.New("a sample rate it garbles")

func decodeMP3(r io.Reader, out pcmSink) error {
	d, err := mp3.NewDecoder(r)
	if err != nil {
		return err
	}
	switch d.SampleRate() {
	case 16000, 24000, 32000, 44100, 48000:
	default:
		return fmt.Errorf("%d Hz, %w", d.SampleRate(), errMP3Rate)
	}
	// go-mp3 always writes 16-bit little-endian stereo.
	if err := out.begin(d.SampleRate(), 2); err != nil {
		return err
	}
	pcm := make([]byte, 64<<10)
	samples := make([]float32, 0, len(pcm)/2)
	var have int
	for {
		n, err := d.Read(pcm[have:])
		have += n
		whole := have / 4 * 4 // whole stereo frames
		samples = samples[:0]
		for i := 0; i < whole; i += 2 {
			samples = append(samples, float32(int16(binary.LittleEndian.Uint16(pcm[i:])))/32768)
		}
		if werr := out.write(samples); werr != nil {
			return werr
		}
		have = copy(pcm, pcm[whole:have])
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) { // a cut-off last frame: keep what decoded
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func decodeVorbis(r io.Reader, out pcmSink) error {
	d, err := oggvorbis.NewReader(r)
	if err != nil {
		return err
	}
	if d.Channels() < 1 {
		return errors.New("no channels")
	}
	if err := out.begin(d.SampleRate(), d.Channels()); err != nil {
		return err
	}
	buf := make([]float32, 4096*d.Channels())
	for {
		n, err := d.Read(buf)
		if werr := out.write(buf[:n/d.Channels()*d.Channels()]); werr != nil {
			return werr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// ffmpegOutputSlack is how much longer than MaxAudio ffmpeg may convert, so
// audio just past the limit is still reported as too long.
const ffmpegOutputSlack = 2 * time.Second

// ffmpegSource is an input for ffmpeg.
type ffmpegSource struct {
	name string
	path string    // the input's file, when it is one: ffmpeg reads it
	r    io.Reader // else the input, from where decoding stands
	// seekable says r has an end (it can seek): it is copied to a
	// temporary file, in which ffmpeg can seek. Other input is piped.
	seekable bool
	head     []byte // the input's first bytes, to say what it looks like
	// goErr, set when a format the Go decoders know goes to ffmpeg, is why.
	goErr error
}

// decodeFFmpeg converts what the Go decoders do not read with ffmpeg, whose
// output is decoded as it streams in; within lim, ffmpeg stops after
// MaxAudio (-t), its output is capped in bytes and it is killed after FFmpegTimeout.
func decodeFFmpeg(src ffmpegSource, lim Limits) ([]float32, error) {
	name, what := src.name, describeNonWAV(src.head)
	bin, err := exec.LookPath("ffmpeg")
	if err != nil && src.goErr != nil {
		return nil, kindErr(ErrUnsupportedFormat, "%s is an MP3 the built-in decoder cannot read (%s), which needs ffmpeg, and ffmpeg is not on the PATH; install it (apt install ffmpeg, brew install ffmpeg, winget install ffmpeg) or convert the file to WAV or FLAC",
			name, oneLine(src.goErr.Error()))
	}
	if err != nil {
		return nil, kindErr(ErrUnsupportedFormat, "%s is %s, which needs ffmpeg, and ffmpeg is not on the PATH; install it (apt install ffmpeg, brew install ffmpeg, winget install ffmpeg) or give a WAV, FLAC, MP3 or Ogg Vorbis file",
			name, strings.Replace(what, "not a WAV file", "not WAV, FLAC, MP3 or Ogg Vorbis audio", 1))
	}
	ctx := context.Background()
	if lim.FFmpegTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.FFmpegTimeout)
		defer cancel()
	}
	noTime := func() error {
		return kindErr(ErrUnsupportedFormat, "%s: ffmpeg had no time left to convert it (limit %s); give a WAV, FLAC, MP3 or Ogg Vorbis file", name, lim.FFmpegTimeout)
	}
	input, spooled := "pipe:0", ""
	switch {
	case src.path != "":
		input = src.path
	case src.seekable:
		if ctx.Err() != nil {
			return nil, noTime()
		}
		tmp, err := spool(src.r)
		if err != nil {
			return nil, fmt.Errorf("copy %s to a temporary file for ffmpeg: %w", name, err)
		}
		defer os.Remove(tmp)
		input, spooled = tmp, tmp
	}
	// A float WAV at 16 kHz with the channels kept: the sink then averages
	// them as for every other format (ffmpeg's own downmix is 3 dB louder).
	// At most 8 channels, so the output's size follows from its length.
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-i", input,
		"-map", "0:a:0", "-ar", fmt.Sprint(SampleRate), "-c:a", "pcm_f32le", "-f", "wav"}
	var capBytes int64 = math.MaxInt64
	if lim.MaxAudio > 0 {
		limit := lim.MaxAudio + ffmpegOutputSlack
		args = append(args, "-t", fmt.Sprintf("%.3f", limit.Seconds()))
		capBytes = int64(limit.Seconds()*SampleRate)*4*ffmpegMaxChannels + 1<<20
	}
	cmd := exec.CommandContext(ctx, bin, append(args, "-af", fmt.Sprintf("aformat=channel_layouts=%s", ffmpegLayouts), "pipe:1")...)
	if input == "pipe:0" {
		cmd.Args = append(cmd.Args[:1], cmd.Args[2:]...) // -nostdin would close the pipe
		cmd.Stdin = src.r
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("run ffmpeg: %w", err)
	}
	stderr := &cappedBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	hideWindow(cmd)
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return nil, noTime()
		}
		return nil, kindErr(ErrUnsupportedFormat, "%s needs ffmpeg, which could not start (%v); give a WAV, FLAC, MP3 or Ogg Vorbis file", name, err)
	}
	out := newMonoSink(name, lim)
	capped := &capReader{r: stdout, left: capBytes}
	derr := decodeWAV(capped, name, out)
	if derr != nil {
		_ = cmd.Process.Kill()
	}
	werr := cmd.Wait()
	switch {
	case errors.Is(derr, ErrTooLong):
		return nil, derr
	case ctx.Err() != nil:
		return nil, kindErr(ErrUnsupportedFormat, "%s: ffmpeg did not finish converting it within %s; give a WAV, FLAC, MP3 or Ogg Vorbis file", name, lim.FFmpegTimeout)
	case capped.over:
		return nil, lim.tooLong(name, ", once converted")
	}
	unreadable := werr != nil || (derr != nil && errors.Is(derr, ErrNotWAV))
	if !unreadable && derr == nil && out.frames > 0 {
		return out.finish(), nil
	}
	reason := "no audio in it"
	if unreadable {
		if reason = lastLine(stderr.String()); reason == "" && werr != nil {
			reason = werr.Error()
		}
		if reason == "" {
			reason = "no audio stream"
		}
		if spooled != "" { // the copy's path means nothing to whoever sent the audio
			reason = strings.ReplaceAll(reason, spooled, name)
		}
	}
	switch {
	case src.goErr != nil:
		return nil, kindErr(ErrCorruptAudio, "%s is a damaged MP3 file: neither the built-in decoder (%s) nor ffmpeg (%s) reads it; export it again",
			name, oneLine(src.goErr.Error()), reason)
	case unreadable:
		return nil, kindErr(ErrUnsupportedFormat, "%s is not audio that WhisperKey or ffmpeg can read (%s; ffmpeg: %s); give a WAV, FLAC, MP3 or Ogg Vorbis file",
			name, strings.TrimSuffix(strings.TrimPrefix(what, "not a WAV file ("), ")"), reason)
	}
	return nil, kindErr(ErrUnsupportedFormat, "%s: ffmpeg found no audio in it; give a WAV, FLAC, MP3 or Ogg Vorbis file", name)
}

// spool copies r to a new temporary file, readable by its owner only, and
// returns the file's path; the caller removes it.
func spool(r io.Reader) (string, error) {
	f, err := os.CreateTemp("", "whisperkey-audio-*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, r)
	// Closed at once: ffmpeg opens it by name, and Windows removes no open file.
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// ffmpegLayouts are the channel layouts ffmpeg may hand back (more channels are mixed down to 7.1).
const (
	ffmpegLayouts     = "mono|stereo|2.1|3.0|4.0|5.0|5.1|6.1|7.1"
	ffmpegMaxChannels = 8
)

// capReader fails once more than left bytes were read.
type capReader struct {
	r    io.Reader
	left int64
	over bool
}

var errFFmpegOutput = errors.New("ffmpeg's output is larger than the audio limit allows")

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		c.over = true
		return 0, errFFmpegOutput
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// cappedBuffer keeps the first max bytes written: ffmpeg's messages, not a flood.
type cappedBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *cappedBuffer) String() string { return b.buf.String() }

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// oneLine keeps a decoder's message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
