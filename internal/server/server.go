package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime/multipart"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Transcriber is the engine the server shares (backend.Loaded or backend.Service).
type Transcriber interface {
	Transcribe(ctx context.Context, samples []float32, opt whisper.Options) (*whisper.Result, error)
}

// Config says where to listen, who may call and how much work to accept.
type Config struct {
	// Addr is host:port; default DefaultAddr.
	Addr string
	// APIKey, when set, is the bearer token every request must carry.
	APIKey string
	// InsecureNoAuth allows a non-loopback Addr without an APIKey.
	InsecureNoAuth bool
	// Model is the id GET /v1/models lists first; default "whisper-1".
	// Requests may name any model: there is one engine, and clients hard-code names.
	Model string
	// MaxUploadBytes caps a request body; default 25 MiB (OpenAI's limit).
	MaxUploadBytes int64
	// MaxAudio caps the audio's playing time; default 15 minutes.
	MaxAudio time.Duration
	// Queue is how many requests may wait while one is transcribed; default 8.
	// More get 429.
	Queue int
	// RequestTimeout bounds one request from arrival to answer; default 5 minutes.
	RequestTimeout time.Duration
	// ShutdownTimeout is how long requests in flight may finish once Serve's
	// ctx ends; default RequestTimeout.
	ShutdownTimeout time.Duration
	// BeamSize for decoding; default 5.
	BeamSize int
}

// DefaultAddr is loopback only: other machines need an explicit --listen.
const DefaultAddr = "127.0.0.1:8765"

func (c Config) withDefaults() Config {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.Model == "" {
		c.Model = "whisper-1"
	}
	if c.MaxUploadBytes <= 0 {
		c.MaxUploadBytes = 25 << 20
	}
	if c.MaxAudio <= 0 {
		c.MaxAudio = 15 * time.Minute
	}
	if c.Queue <= 0 {
		c.Queue = 8
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = 5 * time.Minute
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = c.RequestTimeout
	}
	if c.BeamSize <= 0 {
		c.BeamSize = 5
	}
	return c
}

// ErrNoAuth means a non-loopback address was asked for without an API key.
var ErrNoAuth = errors.New("refusing to listen on a non-loopback address without an API key")

// CheckListen refuses an address other machines can reach unless requests
// need a key or the user explicitly gave up on one.
func CheckListen(addr, apiKey string, insecureNoAuth bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w; use HOST:PORT such as %s", addr, err, DefaultAddr)
	}
	if apiKey != "" || insecureNoAuth || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("%w: %s can be reached from other machines; pass --api-key KEY (clients send it as a bearer token), or --insecure-no-auth to serve anyone who can connect, or listen on %s",
		ErrNoAuth, addr, DefaultAddr)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Server is the HTTP API over one engine. Requests wait in a bounded queue
// and are transcribed one at a time, as the engine works.
type Server struct {
	cfg Config
	log *slog.Logger
	eng Transcriber

	slots  chan struct{} // admitted requests: the one transcribing plus the queue
	engine chan struct{} // held while transcribing

	mu      sync.Mutex
	avgTook time.Duration // moving average of a transcription, for Retry-After
}

// New checks cfg and makes a server over eng; Serve runs it.
func New(cfg Config, log *slog.Logger, eng Transcriber) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := CheckListen(cfg.Addr, cfg.APIKey, cfg.InsecureNoAuth); err != nil {
		return nil, err
	}
	return &Server{
		cfg: cfg, log: log.With("pkg", "server"), eng: eng,
		slots: make(chan struct{}, cfg.Queue+1), engine: make(chan struct{}, 1),
		avgTook: 2 * time.Second,
	}, nil
}

// Handler is the API's routes, for tests and for embedding.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/audio/transcriptions", s.transcriptions)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("GET /v1/models/{id}", s.model)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "", fmt.Sprintf("no route %s %s; this server answers POST /v1/audio/transcriptions and GET /v1/models", r.Method, r.URL.Path), "")
	})
	return s.logged(s.authed(mux))
}

// Listen opens the configured address.
func (s *Server) Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", s.cfg.Addr, err)
	}
	return ln, nil
}

// Serve answers requests on ln until ctx ends, then stops taking new ones,
// lets those in flight finish (up to ShutdownTimeout) and returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// Uploading the body and waiting in the queue both count.
		ReadTimeout:  s.cfg.RequestTimeout,
		WriteTimeout: s.cfg.RequestTimeout + 10*time.Second,
		IdleTimeout:  2 * time.Minute,
		ErrorLog:     slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.log.Info("serving", "addr", ln.Addr().String(), "auth", s.cfg.APIKey != "")
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("stopping: finishing requests in flight")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	<-errc
	if err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	s.log.Info("stopped")
	return nil
}

// statusWriter remembers the status for the access log.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// logged writes one access line per request: never the audio, the prompt or the text.
func (s *Server) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(sw, r)
		s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", sw.code,
			"took", time.Since(start).Round(time.Millisecond), "remote", r.RemoteAddr)
	})
}

func (s *Server) authed(next http.Handler) http.Handler {
	if s.cfg.APIKey == "" {
		return next
	}
	want := []byte("Bearer " + s.cfg.APIKey)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="whisperkey"`)
			msg := "missing API key: send the header Authorization: Bearer KEY"
			if len(got) > 0 {
				msg = "incorrect API key: send the key the server was started with (--api-key)"
			}
			writeError(w, http.StatusUnauthorized, "invalid_request_error", "", msg, "invalid_api_key")
			return
		}
		next.ServeHTTP(w, r)
	})
}

type modelObject struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func (s *Server) modelList() []modelObject {
	ids := []string{s.cfg.Model}
	if s.cfg.Model != "whisper-1" {
		ids = append(ids, "whisper-1") // the name most clients send
	}
	out := make([]modelObject, len(ids))
	for i, id := range ids {
		out[i] = modelObject{ID: id, Object: "model", Created: 0, OwnedBy: "whisperkey"}
	}
	return out
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Object string        `json:"object"`
		Data   []modelObject `json:"data"`
	}{"list", s.modelList()})
}

func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	for _, m := range s.modelList() {
		if m.ID == id {
			writeJSON(w, http.StatusOK, m)
			return
		}
	}
	writeError(w, http.StatusNotFound, "invalid_request_error", "model", fmt.Sprintf("model %q does not exist; GET /v1/models lists them", id), "model_not_found")
}

// request is a parsed transcription request.
type request struct {
	samples     []float32
	model       string
	language    string
	prompt      string
	format      string
	temperature float64
	hasTemp     bool
}

// apiError is a 4xx/5xx answer in OpenAI's error shape.
type apiError struct {
	status int
	typ    string
	param  string
	code   string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(param, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param, msg: fmt.Sprintf(format, args...)}
}

var formats = []string{"json", "text", "verbose_json", "srt", "vtt"}

func (s *Server) transcriptions(w http.ResponseWriter, r *http.Request) {
	// Admission first: a full queue answers at once, before reading the upload.
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	default:
		w.Header().Set("Retry-After", strconv.Itoa(s.retryAfter()))
		writeError(w, http.StatusTooManyRequests, "rate_limit_error", "",
			fmt.Sprintf("the server is busy (%d requests queued); retry after the Retry-After seconds", s.cfg.Queue), "queue_full")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()

	req, err := s.parse(w, r)
	if err != nil {
		s.fail(w, err)
		return
	}
	select {
	case s.engine <- struct{}{}:
	case <-ctx.Done():
		s.fail(w, ctx.Err())
		return
	}
	start := time.Now()
	res, err := s.eng.Transcribe(ctx, req.samples, s.options(req))
	<-s.engine
	if err != nil {
		s.fail(w, err)
		return
	}
	s.took(time.Since(start))
	s.write(w, req, res)
}

// parse reads the multipart form as a stream, holding at most one upload in memory.
func (s *Server) parse(w http.ResponseWriter, r *http.Request) (*request, error) {
	if r.ContentLength > s.cfg.MaxUploadBytes {
		// Declared too big: say so before receiving a byte of it.
		return nil, readError("file", &http.MaxBytesError{Limit: s.cfg.MaxUploadBytes})
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxUploadBytes)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, badRequest("", "the request must be multipart/form-data with the audio in a field named file (%v)", err)
	}
	req := &request{format: "json"}
	var haveFile bool
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readError("", err)
		}
		name := p.FormName()
		if name == "file" {
			if haveFile {
				return nil, badRequest("file", "the form has two file fields; send one audio file")
			}
			haveFile = true
			if req.samples, err = s.decode(p); err != nil {
				return nil, err
			}
			continue
		}
		v, err := io.ReadAll(io.LimitReader(p, 64<<10))
		if err != nil {
			return nil, readError(name, err)
		}
		if err := req.set(name, strings.TrimSpace(string(v))); err != nil {
			return nil, err
		}
	}
	if !haveFile {
		return nil, badRequest("file", "the form has no file field; send the audio as multipart field file (WAV, FLAC, MP3 or OGG)")
	}
	return req, nil
}

func (req *request) set(name, v string) error {
	switch name {
	case "model":
		req.model = v
	case "language":
		if v == "" || v == "auto" {
			return nil
		}
		code, ok := languageCode(strings.ToLower(v))
		if !ok {
			return badRequest("language", "language %q is not a Whisper language; send an ISO-639-1 code such as en, de or fr, or leave it out to detect it", v)
		}
		req.language = code
	case "prompt":
		req.prompt = v
	case "response_format":
		if !slices.Contains(formats, v) {
			return badRequest("response_format", "response_format %q is not supported; use one of %s", v, strings.Join(formats, ", "))
		}
		req.format = v
	case "temperature":
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || t < 0 || t > 1 || math.IsNaN(t) {
			return badRequest("temperature", "temperature %q must be a number from 0 to 1", v)
		}
		req.temperature, req.hasTemp = t, true
	}
	// Other fields (timestamp_granularities[], stream, …) are accepted and ignored, as OpenAI-compatible servers do.
	return nil
}

// decode turns the uploaded file into 16 kHz mono samples within the limits.
func (s *Server) decode(p *multipart.Part) ([]float32, error) {
	name := p.FileName()
	if name == "" {
		name = "the uploaded file"
	}
	rec := &errRecorder{r: p}
	clip, err := audio.Decode(rec, name)
	// A decoder reads a cut-off stream as a truncated file; an upload stopped
	// by the size limit or a broken connection must not pass for one.
	if rec.err != nil {
		return nil, readError("file", rec.err)
	}
	if err != nil {
		if errors.Is(err, audio.ErrNotWAV) || errors.Is(err, audio.ErrCorruptWAV) ||
			errors.Is(err, audio.ErrUnsupportedWAV) || errors.Is(err, audio.ErrUnsupportedFormat) {
			return nil, badRequest("file", "%s", err.Error())
		}
		return nil, readError("file", err)
	}
	if d := clip.Duration(); d > s.cfg.MaxAudio {
		return nil, &apiError{status: http.StatusRequestEntityTooLarge, typ: "invalid_request_error", param: "file",
			msg: fmt.Sprintf("the audio is %s long; this server takes at most %s per request (split it, or start serve with a larger --max-audio)",
				d.Round(time.Second), s.cfg.MaxAudio)}
	}
	if clip.Frames() == 0 {
		return nil, badRequest("file", "%s holds no audio", name)
	}
	return audio.Resample(clip.Mono(), clip.Rate, audio.SampleRate), nil
}

// errRecorder keeps the first read error other than EOF.
type errRecorder struct {
	r   io.Reader
	err error
}

func (e *errRecorder) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// readError reports a failed upload: over the size limit is 413.
func readError(param string, err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &apiError{status: http.StatusRequestEntityTooLarge, typ: "invalid_request_error", param: param,
			msg: fmt.Sprintf("the upload is larger than this server's limit of %d MiB; send a shorter or compressed file, or start serve with a larger --max-upload-mb", mbe.Limit>>20)}
	}
	return badRequest(param, "could not read the upload: %v", err)
}

func (s *Server) options(req *request) whisper.Options {
	o := whisper.DefaultOptions()
	o.BeamSize = s.cfg.BeamSize
	o.Language = req.language
	o.InitialPrompt = req.prompt
	// OpenAI: 0 (the default) lets the model raise the temperature when
	// decoding fails; a positive value samples at that temperature only.
	if req.hasTemp && req.temperature > 0 {
		o.Temperatures = []float32{float32(req.temperature)}
	}
	return o
}

func (s *Server) fail(w http.ResponseWriter, err error) {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		writeError(w, ae.status, ae.typ, ae.param, ae.msg, ae.code)
	case errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusGatewayTimeout, "timeout_error", "", fmt.Sprintf("the transcription did not finish within %s; send shorter audio or retry later", s.cfg.RequestTimeout), "timeout")
	case errors.Is(err, context.Canceled):
		// The client went away; nobody reads this.
		writeError(w, 499, "request_cancelled", "", "the request was cancelled", "")
	case errors.Is(err, whisper.ErrNoAudio):
		writeError(w, http.StatusBadRequest, "invalid_request_error", "file", "the uploaded file holds no audio", "")
	default:
		s.log.Error("transcription failed", "err", err)
		writeError(w, http.StatusInternalServerError, "server_error", "", "the engine failed: "+firstLine(err.Error()), "")
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func (s *Server) took(d time.Duration) {
	s.mu.Lock()
	s.avgTook = (s.avgTook*3 + d) / 4
	s.mu.Unlock()
}

// retryAfter estimates, in whole seconds, when the queue will have room.
func (s *Server) retryAfter() int {
	s.mu.Lock()
	avg := s.avgTook
	s.mu.Unlock()
	return max(1, int(math.Ceil(avg.Seconds())))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers in OpenAI's error shape: {"error":{"message","type","param","code"}}.
func writeError(w http.ResponseWriter, status int, typ, param, msg, code string) {
	type body struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	b := body{Message: msg, Type: typ}
	if param != "" {
		b.Param = &param
	}
	if code != "" {
		b.Code = &code
	}
	writeJSON(w, status, struct {
		Error body `json:"error"`
	}{b})
}
