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
// little-endian; the payload is float32 features, sent raw to avoid encoding
// 1 MB of numbers per window.
const maxFrame = 64 << 20

type request struct {
	Op       string           `json:"op"` // open, detect, generate, quit
	Spec     *Spec            `json:"spec,omitempty"`
	Window   uint64           `json:"window,omitempty"`
	NMels    int              `json:"n_mels,omitempty"`
	Frames   int              `json:"frames,omitempty"`
	Generate *GenerateRequest `json:"generate,omitempty"`
}

type response struct {
	Err    string          `json:"error,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

type frame struct {
	header  []byte
	payload []byte
}

func writeFrame(w io.Writer, header any, payload []float32) error {
	h, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("encode frame header: %w", err)
	}
	var raw []byte
	if len(payload) > 0 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(&payload[0])), len(payload)*4)
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
	if uint64(hl)+uint64(pl) > maxFrame || pl%4 != 0 {
		return frame{}, fmt.Errorf("bad frame (header %d, payload %d bytes)", hl, pl)
	}
	buf := make([]byte, hl+pl)
	if _, err := io.ReadFull(r, buf); err != nil {
		return frame{}, fmt.Errorf("read frame: %w", err)
	}
	return frame{header: buf[:hl], payload: buf[hl:]}, nil
}

// floats views a payload as float32s (every supported target is little-endian).
func floats(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	out := make([]float32, len(b)/4)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(b)), b)
	return out
}
