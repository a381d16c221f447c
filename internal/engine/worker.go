package engine

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
	"unsafe"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// Serve runs the worker side of the protocol until quit or EOF. It is what
// the hidden `whisperkey engine-worker` command runs, in its own process, so
// that a crash or a GPU teardown never takes the app down.
func Serve(in io.Reader, out io.Writer, log *slog.Logger) error {
	w := &server{log: log}
	r := bufio.NewReaderSize(in, 1<<20)
	bw := bufio.NewWriter(out)
	for {
		f, err := readFrame(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var req request
		if err := json.Unmarshal(f.header, &req); err != nil {
			return fmt.Errorf("decode request: %w", err)
		}
		if req.Op == "quit" {
			w.close()
			return nil
		}
		resp := w.handle(req, f.payload)
		if err := writeFrame(bw, resp, resp.Result); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

type server struct {
	log     *slog.Logger
	device  string
	n       *native
	engine  uintptr
	encID   uint64
	encoded uintptr
}

func (s *server) handle(req request, payload []byte) response {
	var (
		out []byte
		err error
	)
	switch req.Op {
	case "open":
		var ready *Ready
		if ready, err = s.open(req.Spec); err == nil {
			out, err = json.Marshal(ready)
		}
	case "detect", "generate", "align":
		out, err = s.infer(req, payload)
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if err != nil {
		return response{Err: err.Error()}
	}
	return response{Result: out}
}

func (s *server) open(spec *Spec) (*Ready, error) {
	if spec == nil {
		return nil, errors.New("open without a spec")
	}
	if s.engine != 0 {
		return nil, errors.New("a model is already open in this worker")
	}
	start := time.Now()
	n, err := loadNative(spec.LibDir, spec.ExtraLibDirs)
	if err != nil {
		return nil, err
	}
	s.n = n
	ct := spec.ComputeType
	if ct == "" {
		ct = choice.ComputeDefault
	}
	inter := max(spec.InterThreads, 1)
	e, err := n.callHandle(func() uintptr {
		return n.open(spec.ModelDir, spec.Device, int32(spec.DeviceIndex), string(ct), int32(spec.IntraThreads), int32(inter))
	})
	if err != nil {
		return nil, fmt.Errorf("load model %s on %s: %w", spec.ModelDir, spec.Device, err)
	}
	s.engine, s.device = e, spec.Device
	ready := &Ready{PID: os.Getpid(), CanAlign: n.align != nil}
	if err := n.callJSON(&ready.Model, func() *byte { return n.info(e) }); err != nil {
		return nil, err
	}
	if err := n.callJSON(&ready.Devices, n.devices); err != nil {
		return nil, err
	}
	ready.LoadMillis = time.Since(start).Milliseconds()
	s.log.Info("model loaded", "model", spec.ModelDir, "device", spec.Device, "compute_type", ct, "ms", ready.LoadMillis)
	return ready, nil
}

// close frees a CPU model before the worker exits. A GPU model is left to
// the OS: tearing one down can crash or hang (CTranslate2 #1782), and the
// exit frees it anyway.
func (s *server) close() {
	if s.engine == 0 {
		return
	}
	if s.device != "cpu" {
		s.log.Info("model left to the OS at exit", "device", s.device)
		return
	}
	if s.encoded != 0 {
		s.n.encodedFree(s.encoded)
		s.encoded = 0
	}
	s.n.close(s.engine)
	s.engine = 0
	s.log.Info("model closed")
}

// infer answers detect, generate and align with the library's JSON as it is.
func (s *server) infer(req request, payload []byte) ([]byte, error) {
	if s.engine == 0 {
		return nil, errors.New("no model open")
	}
	if err := s.ensureEncoded(req, payload); err != nil {
		return nil, err
	}
	if req.Op == "detect" {
		out, err := s.n.call(func() *byte { return s.n.detect(s.engine, s.encoded) })
		if err != nil {
			return nil, fmt.Errorf("detect language: %w", err)
		}
		return out, nil
	}
	if req.Op == "align" {
		return s.align(req.Align)
	}
	if req.Generate == nil {
		return nil, errors.New("generate without options")
	}
	return s.onWindow("generate", req.Generate, s.n.generate)
}

func (s *server) align(req *AlignRequest) ([]byte, error) {
	if req == nil {
		return nil, errors.New("align without a request")
	}
	if s.n.align == nil {
		return nil, errors.New("the engine library has no align op (built before word timestamps); rebuild it")
	}
	return s.onWindow("align", req, s.n.align)
}

// onWindow runs a library op that takes the encoded window and a JSON
// request, as generate and align do; op names it in the error.
func (s *server) onWindow(op string, req any, fn func(e, x uintptr, request string) *byte) ([]byte, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	out, err := s.n.call(func() *byte { return fn(s.engine, s.encoded, string(body)) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return out, nil
}

// ensureEncoded runs the encoder on the features sent, or, when none are,
// uses the cached output of the window the request names (the client sends
// a window's features once).
func (s *server) ensureEncoded(req request, payload []byte) error {
	if len(payload) == 0 && s.encoded != 0 && s.encID == req.Window && req.Window != 0 {
		return nil
	}
	feats := floats(payload)
	if len(feats) == 0 || len(feats) != req.NMels*req.Frames {
		return fmt.Errorf("features: got %d values, want %d×%d", len(feats), req.NMels, req.Frames)
	}
	if s.encoded != 0 {
		s.n.encodedFree(s.encoded)
		s.encoded = 0
	}
	x, err := s.n.callHandle(func() uintptr {
		return s.n.encode(s.engine, unsafe.Pointer(&feats[0]), 1, uintptr(req.NMels), uintptr(req.Frames))
	})
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	s.encoded, s.encID = x, req.Window
	return nil
}
