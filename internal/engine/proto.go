package engine

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"unsafe"
)

// The pipe protocol: each message is a frame
//
//	u32 header length | u32 payload length | JSON header | payload
//
// little-endian. A request's payload is float32 features, sent raw to avoid
// encoding 1 MB of numbers per window; a response's is the library's JSON
// result as it wrote it, so the worker decodes and re-encodes nothing.
const maxFrame = 64 << 20

type request struct {
	Op       string           `json:"op"` // open, detect, generate, align, quit
	Spec     *Spec            `json:"spec,omitempty"`
	Window   uint64           `json:"window,omitempty"`
	NMels    int              `json:"n_mels,omitempty"`
	Frames   int              `json:"frames,omitempty"`
	Generate *GenerateRequest `json:"generate,omitempty"`
	Align    *AlignRequest    `json:"align,omitempty"`
}

type response struct {
	Err    string `json:"error,omitempty"`
	Result []byte `json:"-"` // the frame's payload
}

type frame struct {
	header  []byte
	payload []byte
}

func writeFrame(w io.Writer, header any, raw []byte) error {
	h, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("encode frame header: %w", err)
	}
	if len(h)+len(raw) > maxFrame {
		return fmt.Errorf("frame of %d bytes exceeds the %d-byte limit", len(h)+len(raw), maxFrame)
	}
	var pre [8]byte
	binary.LittleEndian.PutUint32(pre[0:], uint32(len(h)))
	binary.LittleEndian.PutUint32(pre[4:], uint32(len(raw)))
	for _, b := range [][]byte{pre[:], h, raw} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func readFrame(r io.Reader) (frame, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return frame{}, err
	}
	hl, pl := binary.LittleEndian.Uint32(pre[0:]), binary.LittleEndian.Uint32(pre[4:])
	if uint64(hl)+uint64(pl) > maxFrame {
		return frame{}, fmt.Errorf("bad frame (header %d, payload %d bytes)", hl, pl)
	}
	buf := make([]byte, hl+pl)
	if _, err := io.ReadFull(r, buf); err != nil {
		return frame{}, fmt.Errorf("read frame: %w", err)
	}
	return frame{header: buf[:hl], payload: buf[hl:]}, nil
}

// floatBytes views features as the bytes a frame carries (every supported
// target is little-endian).
func floatBytes(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*4)
}

// floats copies a payload into float32s; it is nil when the payload is not
// whole float32s.
func floats(b []byte) []float32 {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil
	}
	out := make([]float32, len(b)/4)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(b)), b)
	return out
}
