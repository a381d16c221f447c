package audiotest

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BadRateFLAC returns the 66-byte FLAC of issue 27: its STREAMINFO says 1 Hz.
func BadRateFLAC() []byte {
	b, err := hex.DecodeString(badRateFLAC)
	if err != nil {
		panic(err) // a constant: cannot happen
	}
	return b
}

const badRateFLAC = "664c614380000022ffffffff000000000000000010700001fffe00000000000000000000000000000000fff8700200fffea500002616fff8700201fffece0000590a"

// SilentFLAC is a valid mono 8-bit FLAC of seconds of silence at rate Hz,
// in frames of 65535 constant samples: about 12 bytes per frame, so an hour
// at 1 kHz is under 1 KB.
func SilentFLAC(rate, seconds int) []byte {
	const block = 65535
	total := int64(rate) * int64(seconds)
	var b bytes.Buffer
	b.WriteString("fLaC")
	b.Write([]byte{0x80, 0, 0, 34}) // last metadata block: STREAMINFO, 34 bytes
	info := make([]byte, 34)
	binary.BigEndian.PutUint16(info[0:], block)
	binary.BigEndian.PutUint16(info[2:], block)
	// rate (20 bits), channels-1 (3), bits-1 (5), total samples (36)
	v := uint64(rate)<<44 | uint64(0)<<41 | uint64(7)<<36 | uint64(total)
	binary.BigEndian.PutUint64(info[10:], v)
	b.Write(info)
	for n, left := uint64(0), total; left > 0; n++ {
		size := min(left, block)
		left -= size
		h := []byte{0xFF, 0xF8, 0x70, 0x02}
		h = append(h, utf8Num(n)...)
		h = binary.BigEndian.AppendUint16(h, uint16(size-1))
		h = append(h, crc8(h))
		h = append(h, 0x00, 0x00) // CONSTANT subframe, value 0
		h = binary.BigEndian.AppendUint16(h, crc16(h))
		b.Write(h)
	}
	return b.Bytes()
}

// utf8Num is FLAC's UTF-8-like coding of a frame number.
func utf8Num(n uint64) []byte {
	if n < 0x80 {
		return []byte{byte(n)}
	}
	var tail []byte
	lead, room := byte(0x80), uint64(0x3F)
	for n > room {
		tail = append([]byte{0x80 | byte(n&0x3F)}, tail...)
		n >>= 6
		lead = lead>>1 | 0x80
		room >>= 1
	}
	return append([]byte{lead | byte(n)}, tail...)
}

func crc8(b []byte) byte { return crcMSB(b, byte(0x07)) }

func crc16(b []byte) uint16 { return crcMSB(b, uint16(0x8005)) }

// FFmpeg makes a file with ffmpeg from its arguments (output last, written
// in a temporary directory as name) and returns its bytes.
func FFmpeg(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("ffmpeg", append(append([]string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y"}, args...), out)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// VorbisAtRate is a short Ogg Vorbis file made by ffmpeg whose
// identification header is then patched to say rate Hz.
func VorbisAtRate(t testing.TB, rate uint32) []byte {
	t.Helper()
	b := FFmpeg(t, "tone.ogg", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000:duration=1", "-c:a", "libvorbis", "-ac", "1")
	return PatchVorbisRate(t, b, rate)
}

// PatchVorbisRate returns a copy of an Ogg Vorbis file whose identification
// header says rate Hz, with the first page's checksum fixed so the patched
// header is read: the audio then lasts as much longer as the rate is lower.
func PatchVorbisRate(t testing.TB, ogg []byte, rate uint32) []byte {
	t.Helper()
	b := bytes.Clone(ogg)
	i := bytes.Index(b, []byte("\x01vorbis"))
	if i < 0 || !bytes.HasPrefix(b, []byte("OggS")) {
		t.Fatal("no Ogg Vorbis identification header")
	}
	binary.LittleEndian.PutUint32(b[i+12:], rate)
	segs := int(b[26])
	size := 27 + segs
	for _, s := range b[27 : 27+segs] {
		size += int(s)
	}
	binary.LittleEndian.PutUint32(b[22:], 0)
	binary.LittleEndian.PutUint32(b[22:], oggCRC(b[:size]))
	return b
}

func oggCRC(b []byte) uint32 { return crcMSB(b, uint32(0x04C11DB7)) }

// HideLength returns a copy of a SilentFLAC file whose STREAMINFO says its
// length is unknown (0), as a streaming encoder writes it: a decoder then
// has only the frames to count.
func HideLength(flac []byte) []byte { return DeclareLength(flac, 0) }

// DeclareLength returns a copy of a FLAC file whose STREAMINFO says it holds
// frames samples per channel (at most 2^36-1), whatever its frames hold.
func DeclareLength(flac []byte, frames uint64) []byte {
	b := bytes.Clone(flac)
	v := binary.BigEndian.Uint64(b[18:])
	binary.BigEndian.PutUint64(b[18:], v&^(1<<36-1)|frames&(1<<36-1))
	return b
}

// FloatWAV is samples (interleaved frames) as a 32-bit IEEE float WAV file,
// which keeps every value exactly, NaN and infinity included; the app itself
// writes only 16-bit PCM.
func FloatWAV(samples []float32, rate, channels int) []byte {
	le := binary.LittleEndian
	data := 4 * len(samples)
	b := []byte("RIFF")
	b = le.AppendUint32(b, uint32(4+8+18+12+8+data))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 18) // a non-PCM fmt chunk carries cbSize
	b = le.AppendUint16(b, 3)  // WAVE_FORMAT_IEEE_FLOAT
	b = le.AppendUint16(b, uint16(channels))
	b = le.AppendUint32(b, uint32(rate))
	b = le.AppendUint32(b, uint32(4*rate*channels))
	b = le.AppendUint16(b, uint16(4*channels))
	b = le.AppendUint16(b, 32)
	b = le.AppendUint16(b, 0) // cbSize
	b = append(b, "fact"...)  // non-PCM formats also carry a fact chunk: the frame count
	b = le.AppendUint32(b, 4)
	b = le.AppendUint32(b, uint32(len(samples)/channels))
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(data))
	for _, v := range samples {
		b = le.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// SevenBitWAV is mono samples as 7-bit PCM, left-justified in bytes as the
// WAVE format puts them, under a header whose block align is 0: 7 bits / 8,
// rounded down, as a writer that counts bits rather than bytes computes it.
func SevenBitWAV(samples []float32, rate int) []byte {
	le := binary.LittleEndian
	data := make([]byte, len(samples))
	for i, v := range samples {
		q := int(max(-64, min(63, v*64)))
		data[i] = byte(q+64) << 1
	}
	b := []byte("RIFF")
	b = le.AppendUint32(b, uint32(4+8+16+8+len(data)))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, 1) // PCM
	b = le.AppendUint16(b, 1)
	b = le.AppendUint32(b, uint32(rate))
	b = le.AppendUint32(b, uint32(rate*7/8))
	b = le.AppendUint16(b, 0) // block align
	b = le.AppendUint16(b, 7)
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

// crcMSB is the plain most-significant-bit-first CRC, initial value 0, no
// final XOR, of the width of T: FLAC's CRC-8 and CRC-16 and Ogg's CRC-32.
func crcMSB[T uint8 | uint16 | uint32](b []byte, poly T) T {
	width := 0
	for x := ^T(0); x != 0; x >>= 1 {
		width++
	}
	top := T(1) << (width - 1)
	var c T
	for _, x := range b {
		c ^= T(x) << (width - 8)
		for range 8 {
			if c&top != 0 {
				c = c<<1 ^ poly
			} else {
				c <<= 1
			}
		}
	}
	return c
}
