package server

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/choice"
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
	// Languages are the codes the model decodes in (backend.Loaded's
	// Languages); a request for another gets 400 before its upload is
	// decoded. Nil stands for every Whisper language, and the engine decides.
	Languages []string
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
	// BeamSize for decoding; default choice.DefaultBeamSize.
	BeamSize int
	// Language is the language of a request that names none: a Whisper code
	// (one of Languages) or "auto"; default auto, the language detected.
	Language string
	// AllowedOrigins are the browser origins (scheme://host[:port]) whose
	// pages may call the server; a request with any other Origin gets 403,
	// so a web page the user visits cannot use a server it can reach.
	// AnyOrigin allows every page, and only on a server with an APIKey.
	AllowedOrigins []string
	// AllowedHosts are Host header names accepted besides loopback names and
	// the listen address's host, which stops DNS rebinding.
	AllowedHosts []string
	// UploadIdleTimeout ends an upload that sends nothing for this long with
	// 408; default 10 s.
	UploadIdleTimeout time.Duration
	// MinUploadRate, in bytes per second, ends with 408 an upload that is
	// slower on average after its first UploadIdleTimeout; default 4 KiB/s.
	MinUploadRate int64
	// FFmpegTimeout bounds converting an upload with ffmpeg; default 60 s.
	FFmpegTimeout time.Duration
	// UploadMemory bounds the bytes all uploads hold together while they are
	// read and wait to be decoded; default DefaultUploadMemory, or
	// MaxUploadBytes when that is larger. It must be at least MaxUploadBytes.
	UploadMemory int64
	// UploadWait is how long a request waits for UploadMemory to have room
	// for its upload before it gets 503; default 5 s.
	UploadWait time.Duration
}

// DefaultUploadMemory is four uploads of OpenAI's 25 MiB limit.
const DefaultUploadMemory = 100 << 20

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
		c.BeamSize = choice.DefaultBeamSize
	}
	if c.UploadIdleTimeout <= 0 {
		c.UploadIdleTimeout = 10 * time.Second
	}
	if c.MinUploadRate <= 0 {
		c.MinUploadRate = 4 << 10
	}
	if c.FFmpegTimeout <= 0 {
		c.FFmpegTimeout = time.Minute
	}
	if c.UploadMemory <= 0 {
		c.UploadMemory = max(DefaultUploadMemory, c.MaxUploadBytes)
	}
	if c.UploadWait <= 0 {
		c.UploadWait = 5 * time.Second
	}
	return c
}

// decodeSlots is how many uploads are decoded at once: each may hold up to
// MaxAudio of 16 kHz samples while decoding, so this bounds the memory
// that uploads cost together.
const decodeSlots = 2

// Caps on what an answer or a log line repeats of a request.
const (
	maxEcho      = 200 // bytes of a path or value quoted back
	maxFieldSize = 64 << 10
)

// ErrNoAuth means a non-loopback address was asked for without an API key.
var ErrNoAuth = errors.New("refusing to listen on a non-loopback address without an API key")

// CheckListen refuses an address other machines can reach unless requests
// need a key or the user explicitly gave up on one.
func CheckListen(addr, apiKey string, insecureNoAuth bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w; use HOST:PORT such as %s", addr, err, DefaultAddr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("listen address %q: port %q is not a number from 0 to 65535; use HOST:PORT such as %s", addr, port, DefaultAddr)
	}
	if apiKey != "" || insecureNoAuth || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("%w: %s can be reached from other machines; pass --api-key KEY (clients send it as a bearer token), or --insecure-no-auth to serve anyone who can connect, or listen on %s",
		ErrNoAuth, addr, DefaultAddr)
}

// CheckAPIKey trims the whitespace around a key and refuses one that is
// empty after that or holds whitespace or control characters inside: HTTP
// trims header values, so no client could ever send such a key.
func CheckAPIKey(key string) (string, error) {
	trimmed := strings.TrimSpace(key)
	switch {
	case key != "" && trimmed == "":
		return "", errors.New("the API key is only whitespace; give a key of visible characters, or none on a loopback address")
	case strings.IndexFunc(trimmed, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0:
		return "", errors.New("the API key holds whitespace or control characters, which clients cannot send in a header; use letters, digits and punctuation only")
	}
	return trimmed, nil
}

// AnyOrigin as an allowed origin lets every web page call the server. It
// needs an API key, so a page must still send the key, as pages calling
// OpenAI's API do; without one, every page the user visits could use the
// engine, and a server on loopback is reachable from every page.
const AnyOrigin = "*"

// CheckOrigins refuses allowed origins that no browser sends, which would
// never match, and AnyOrigin on a server without a key.
func CheckOrigins(origins []string, apiKey string) error {
	for _, o := range origins {
		if o == AnyOrigin {
			if apiKey == "" {
				return errors.New(`--allow-origin '*' would let every web page you visit use this server; it is allowed only with --api-key, so that pages must still send the key. Without a key, name each page's origin, such as --allow-origin https://notes.example`)
			}
			continue
		}
		if o == "null" {
			return errors.New(`--allow-origin null: "null" is the origin of local files and sandboxed frames, which any web page can open, so it cannot be allowed; serve the page from an http:// or https:// origin and allow that`)
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
			return fmt.Errorf("--allow-origin %q is not an origin, which browsers send as SCHEME://HOST[:PORT] with no path; give it as https://notes.example", clip(o))
		}
	}
	return nil
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
	decode chan struct{} // held while decoding an upload

	uploads *byteBudget // the bytes uploads hold until they are decoded

	mu      sync.Mutex
	avgTook time.Duration // moving average of a transcription, for Retry-After
	running time.Time     // when the transcription in progress started; zero when none

	stopping atomic.Bool // Serve is letting the requests in flight finish
}

// New checks cfg and makes a server over eng; Serve runs it.
func New(cfg Config, log *slog.Logger, eng Transcriber) (*Server, error) {
	cfg = cfg.withDefaults()
	key, err := CheckAPIKey(cfg.APIKey)
	if err != nil {
		return nil, err
	}
	cfg.APIKey = key
	if err := CheckListen(cfg.Addr, cfg.APIKey, cfg.InsecureNoAuth); err != nil {
		return nil, err
	}
	if err := CheckOrigins(cfg.AllowedOrigins, cfg.APIKey); err != nil {
		return nil, err
	}
	lang, err := whisper.ResolveLanguage(cfg.Language, cfg.Model, cfg.Languages)
	if err != nil {
		return nil, fmt.Errorf("the language for requests that name none: %w", err)
	}
	cfg.Language = lang
	if cfg.UploadMemory < cfg.MaxUploadBytes {
		return nil, fmt.Errorf("the memory for uploads (%d MiB) is less than one upload may take (%d MiB); raise --upload-memory-mb or lower --max-upload-mb", cfg.UploadMemory>>20, cfg.MaxUploadBytes>>20)
	}
	return &Server{
		cfg: cfg, log: log.With("pkg", "server"), eng: eng,
		slots: make(chan struct{}, cfg.Queue+1), engine: make(chan struct{}, 1),
		decode:  make(chan struct{}, decodeSlots),
		uploads: newByteBudget(cfg.UploadMemory),
		avgTook: 2 * time.Second,
	}, nil
}

// Handler is the API's routes, for tests and for embedding.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/audio/transcriptions", s.transcriptions)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("GET /v1/models/{id}", s.model)
	mux.HandleFunc("GET /health", s.health)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "", fmt.Sprintf("no route %s %s; this server answers POST /v1/audio/transcriptions, GET /v1/models and GET /health", clip(r.Method), clip(r.URL.Path)), "")
	})
	return s.logged(s.guarded(s.authed(mux)))
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
	s.stopping.Store(true)
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

// health answers a load balancer: 200 while the server takes requests, 503
// once it is stopping (the requests in flight still finish), so it sends
// new ones elsewhere.
func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	if s.stopping.Load() {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "stopping"})
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Status string `json:"status"`
		Queued int    `json:"queued"` // requests admitted and not yet answered
	}{"ok", len(s.slots)})
}

// statusWriter remembers the status for the access log.
type statusWriter struct {
	http.ResponseWriter
	code int
}

// Unwrap lets http.ResponseController reach the connection (read deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

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
		s.log.Info("request", "method", clip(r.Method), "path", clip(r.URL.Path), "status", sw.code,
			"took", time.Since(start).Round(time.Millisecond), "remote", r.RemoteAddr)
	})
}

func (s *Server) authed(next http.Handler) http.Handler {
	if s.cfg.APIKey == "" {
		return next
	}
	want := []byte(s.cfg.APIKey)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			// A load balancer asks without a key; the answer holds nothing secret.
			next.ServeHTTP(w, r)
			return
		}
		header := r.Header.Get("Authorization")
		// The scheme is case-insensitive (RFC 7235); the key is not.
		var got []byte
		if scheme, key, ok := strings.Cut(header, " "); ok && strings.EqualFold(scheme, "Bearer") {
			got = []byte(strings.TrimLeft(key, " "))
		}
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="whisperkey"`)
			msg := "missing API key: send the header Authorization: Bearer KEY"
			if header != "" {
				msg = "incorrect API key: send the key the server was started with (--api-key)"
			}
			writeError(w, http.StatusUnauthorized, "invalid_request_error", "", msg, "invalid_api_key")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// guarded refuses what a browser page, rather than a program, would send:
// a cross-origin request (a page may POST a form to any server it can
// reach, without a preflight) and a Host that is not this server's (DNS
// rebinding turns a page's own origin into this address).
func (s *Server) guarded(next http.Handler) http.Handler {
	listenHost, _, _ := net.SplitHostPort(s.cfg.Addr)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" {
			// Browsers send the scheme and host in lower case.
			anyOrigin := slices.Contains(s.cfg.AllowedOrigins, AnyOrigin)
			if !anyOrigin && !slices.ContainsFunc(s.cfg.AllowedOrigins, func(a string) bool { return strings.EqualFold(a, origin) }) {
				writeError(w, http.StatusForbidden, "invalid_request_error", "",
					fmt.Sprintf("requests from web pages are refused (Origin %q); start serve with --allow-origin %s to let that page call it", clip(origin), clip(origin)), "origin_not_allowed")
				return
			}
			if anyOrigin {
				w.Header().Set("Access-Control-Allow-Origin", "*") // not the Origin itself: nothing of the request is echoed
			} else {
				w.Header().Set("Access-Control-Allow-Origin", origin)
				w.Header().Set("Vary", "Origin")
			}
			if r.Method == http.MethodOptions {
				w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
				w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if !s.hostAllowed(r.Host, listenHost) {
			writeError(w, http.StatusForbidden, "invalid_request_error", "",
				fmt.Sprintf("Host %q is not this server's name; connect to %s, or start serve with --allow-host NAME", clip(r.Host), s.cfg.Addr), "host_not_allowed")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed: loopback names, the listen host and the configured names;
// any name when the server needs a key, which a rebound page does not have.
func (s *Server) hostAllowed(hostport, listenHost string) bool {
	if s.cfg.APIKey != "" {
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if isLoopback(host) || strings.EqualFold(host, listenHost) {
		return true
	}
	if ip := net.ParseIP(listenHost); ip != nil && ip.IsUnspecified() && s.cfg.InsecureNoAuth {
		if hip := net.ParseIP(host); hip != nil {
			return true // an open server reached by address; names still need --allow-host
		}
	}
	return slices.ContainsFunc(s.cfg.AllowedHosts, func(a string) bool { return strings.EqualFold(a, host) })
}

// clip is how every answer and log line quotes what a client sent (a path,
// a header, a form field, a file name): at most maxEcho bytes of it, cut at
// a character boundary, so a request cannot make an answer long.
func clip(v string) string {
	if len(v) <= maxEcho {
		return v
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "…"
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
	writeError(w, http.StatusNotFound, "invalid_request_error", "model", fmt.Sprintf("model %q does not exist; GET /v1/models lists them", clip(id)), "model_not_found")
}

// request is a parsed transcription request.
type request struct {
	upload     []byte // the file field, read in full before decoding
	uploadName string
	samples    []float32
	model      string
	language   string
	prompt     string
	// A WhisperKey client sends the vocabulary and the style prompt apart
	// too (remote.Client.form); they then replace prompt, which holds both.
	vocabulary    []string
	initialPrompt *string
	format        string
	temperature   float64
	hasTemp       bool
	words         bool // timestamp_granularities[] holds word
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
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	if r.ContentLength > s.cfg.MaxUploadBytes {
		// Declared too big: say so before receiving a byte of it.
		s.fail(w, readError("file", &http.MaxBytesError{Limit: s.cfg.MaxUploadBytes}))
		return
	}
	// The upload takes its share of the memory all uploads share before a
	// byte of it is read, and holds it until it is decoded: its declared
	// length, or the most an upload may be when it declares none. All or
	// nothing, so that uploads never wait for each other halfway.
	share := r.ContentLength
	if share < 0 {
		share = s.cfg.MaxUploadBytes
	}
	if !s.takeUploadMemory(ctx, share) {
		// A window of the pace rule: about when a holder that has stopped
		// sending is cut off; one still sending is likely done by then.
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(s.cfg.UploadIdleTimeout.Seconds()))))
		w.Header().Set("Connection", "close") // its body is never read
		writeError(w, http.StatusServiceUnavailable, "server_error", "",
			fmt.Sprintf("the server is receiving other uploads up to its limit of %d MiB for all uploads together; retry after the Retry-After seconds", s.cfg.UploadMemory>>20), "uploads_busy")
		return
	}
	release := sync.OnceFunc(func() { s.uploads.give(share) })
	defer release()
	// The upload is read in full, at a minimum pace and within the
	// deadline, before it takes any slot: a slow or stalled client holds
	// only its own connection and its share, and not for long.
	req, err := s.parse(ctx, w, r, share)
	if err != nil {
		s.fail(w, err)
		return
	}
	if !s.acquire(ctx, w, s.decode) {
		return
	}
	req.samples, err = s.decodeUpload(req.upload, req.uploadName)
	<-s.decode
	req.upload = nil
	release()
	if len(req.samples) >= largeRequest || errors.Is(err, audio.ErrTooLong) {
		// The decoder's blocks, as much as the samples again, are garbage
		// now: returned before the features take their memory, the peak is
		// lower; the rest goes once the request is answered.
		debug.FreeOSMemory()
		defer s.giveBack(req)
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	// Admission: a full queue answers at once.
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	default:
		w.Header().Set("Retry-After", strconv.Itoa(s.retryAfter()))
		writeError(w, http.StatusTooManyRequests, "rate_limit_error", "",
			fmt.Sprintf("the server is busy (%d requests queued); retry after the Retry-After seconds", s.cfg.Queue), "queue_full")
		return
	}
	if !s.acquire(ctx, w, s.engine) {
		return
	}
	start := time.Now()
	s.mu.Lock()
	s.running = start
	s.mu.Unlock()
	res, err := s.eng.Transcribe(ctx, req.samples, s.options(req))
	s.mu.Lock()
	s.running = time.Time{}
	s.mu.Unlock()
	<-s.engine
	if err != nil {
		s.fail(w, err)
		return
	}
	s.took(time.Since(start))
	s.write(w, req, res)
}

// largeRequest is the audio, in samples, past which a request's memory is
// returned to the system once it is answered (5 minutes: 19 MiB of samples,
// and about three times that while decoded and transcribed). Go's collector
// would keep it for minutes on an idle server, and so the RSS too.
const largeRequest = 5 * 60 * audio.SampleRate

// giveBack drops req's audio and returns the memory that no request holds
// any more to the system; others in flight keep theirs.
func (s *Server) giveBack(req *request) {
	req.samples = nil
	debug.FreeOSMemory()
	s.log.Debug("returned a large request's memory")
}

// acquire waits for a place in sem, the decoders' or the engine's; when the
// request ends first it answers with why and reports false.
func (s *Server) acquire(ctx context.Context, w http.ResponseWriter, sem chan struct{}) bool {
	select {
	case sem <- struct{}{}:
		return true
	case <-ctx.Done():
		s.fail(w, ctx.Err())
		return false
	}
}

// takeUploadMemory waits up to UploadWait, within the request's deadline,
// for n bytes of the memory all uploads share. Waiting costs nothing but the
// connection, as nothing is read from it meanwhile, and it lets a burst of
// large uploads on a fast network through one after another instead of
// turning most of them away.
func (s *Server) takeUploadMemory(ctx context.Context, n int64) bool {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.UploadWait)
	defer cancel()
	return s.uploads.take(ctx, n)
}

// parse reads the multipart form, the file into memory: into a buffer of
// share bytes, the memory the upload took.
func (s *Server) parse(ctx context.Context, w http.ResponseWriter, r *http.Request, share int64) (*request, error) {
	deadline, _ := ctx.Deadline()
	paced := newPacedBody(r.Body, w, s.cfg.UploadIdleTimeout, s.cfg.MinUploadRate, deadline)
	r.Body = http.MaxBytesReader(w, readCloser{paced, r.Body}, s.cfg.MaxUploadBytes)
	req, err := s.parseForm(r, share)
	switch {
	case errors.Is(paced.err, errUploadTimeout):
		paced.stop(w)
		return nil, &apiError{status: http.StatusRequestTimeout, typ: "invalid_request_error", param: "file",
			msg: fmt.Sprintf("the upload was still arriving after %s, this server's limit for a whole request (--timeout); send a smaller file, or over a faster connection", s.cfg.RequestTimeout), code: "upload_timeout"}
	case paced.err != nil:
		paced.stop(w)
		return nil, &apiError{status: http.StatusRequestTimeout, typ: "invalid_request_error", param: "file",
			msg: fmt.Sprintf("the upload stalled or was slower than %d KiB/s; send it again over a faster connection", s.cfg.MinUploadRate>>10), code: "upload_timeout"}
	case err == nil:
		_ = paced.rc.SetReadDeadline(time.Time{})
	}
	return req, err
}

// readCloser reads through r and closes c.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (rc readCloser) Close() error { return rc.c.Close() }

func (s *Server) parseForm(r *http.Request, share int64) (*request, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, badRequest("", "the request must be multipart/form-data with the audio in a field named file (%s)", clip(err.Error()))
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
			req.uploadName = p.FileName()
			if req.upload, err = readInto(p, make([]byte, 0, share)); err != nil {
				return nil, readError("file", err)
			}
			continue
		}
		v, err := io.ReadAll(io.LimitReader(p, maxFieldSize+1))
		if err != nil {
			return nil, readError(clip(name), err)
		}
		if len(v) > maxFieldSize {
			return nil, badRequest(clip(name), "the form field %q is longer than %d KiB; send a shorter value", clip(name), maxFieldSize>>10)
		}
		if err := req.set(name, strings.TrimSpace(string(v))); err != nil {
			return nil, err
		}
	}
	if !haveFile {
		return nil, badRequest("file", "the form has no file field; send the audio as multipart field file (WAV, FLAC, MP3 or OGG)")
	}
	if strings.TrimSpace(req.language) == "" {
		req.language = s.cfg.Language // resolved by New
	}
	if req.language, err = whisper.ResolveLanguage(clip(req.language), s.cfg.Model, s.cfg.Languages); err != nil {
		return nil, languageError(err)
	}
	if req.words && req.format != "verbose_json" {
		// OpenAI refuses this too: only verbose_json has a place for words.
		return nil, badRequest("timestamp_granularities", "timestamp_granularities[]=word needs response_format=verbose_json (got %s), the only format that carries words", req.format)
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
		req.language = v // checked against the model's languages once the form is read
	case "prompt":
		req.prompt = v
	case "vocabulary":
		if err := json.Unmarshal([]byte(v), &req.vocabulary); err != nil {
			return badRequest("vocabulary", "vocabulary must be a JSON list of words and phrases, such as [\"Siobhan\", \"Kubernetes\"] (%s)", clip(err.Error()))
		}
	case "initial_prompt":
		req.initialPrompt = &v
	case "response_format":
		if !slices.Contains(formats, v) {
			return badRequest("response_format", "response_format %q is not supported; use one of %s", clip(v), strings.Join(formats, ", "))
		}
		req.format = v
	case "temperature":
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || t < 0 || t > 1 || math.IsNaN(t) {
			return badRequest("temperature", "temperature %q must be a number from 0 to 1", clip(v))
		}
		req.temperature, req.hasTemp = t, true
	case "timestamp_granularities[]", "timestamp_granularities":
		switch v {
		case "word":
			req.words = true
		case "segment": // verbose_json always has segments
		default:
			return badRequest("timestamp_granularities", "timestamp_granularities[] %q is not supported; use word or segment", clip(v))
		}
	}
	// Other fields (stream, …) are accepted and ignored, as OpenAI-compatible servers do.
	return nil
}

// decodeUpload turns the uploaded file into 16 kHz mono samples within the
// limits: decoding stops at MaxAudio, so a small file declaring hours costs
// no more than MaxAudio of samples.
func (s *Server) decodeUpload(data []byte, name string) ([]float32, error) {
	if name == "" {
		name = "the uploaded file"
	}
	name = strconv.Quote(clip(name))
	samples, err := audio.DecodeNamed(bytes.NewReader(data), name, audio.Limits{MaxAudio: s.cfg.MaxAudio, FFmpegTimeout: s.cfg.FFmpegTimeout})
	switch {
	case errors.Is(err, audio.ErrTooLong):
		return nil, &apiError{status: http.StatusRequestEntityTooLarge, typ: "invalid_request_error", param: "file",
			msg: fmt.Sprintf("the audio is longer than %s; this server takes at most %s per request (split it, or start serve with a larger --max-audio)", s.cfg.MaxAudio, s.cfg.MaxAudio)}
	case errors.Is(err, audio.ErrNotWAV) || errors.Is(err, audio.ErrCorruptWAV) ||
		errors.Is(err, audio.ErrUnsupportedWAV) || errors.Is(err, audio.ErrUnsupportedFormat) ||
		errors.Is(err, audio.ErrCorruptAudio):
		return nil, badRequest("file", "%s", err.Error())
	case err != nil:
		return nil, readError("file", err)
	case len(samples) == 0:
		return nil, badRequest("file", "%s holds no audio", name)
	}
	return samples, nil
}

// languageError is 400 for a language the model does not know: a client's
// mistake, which OpenAI's clients must not retry as they retry a 5xx.
func languageError(err error) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "language", msg: err.Error(), code: "unsupported_language"}
}

// readError reports a failed upload: over the size limit is 413.
func readError(param string, err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &apiError{status: http.StatusRequestEntityTooLarge, typ: "invalid_request_error", param: param,
			msg: fmt.Sprintf("the upload is larger than this server's limit of %d MiB; send a shorter or compressed file, or start serve with a larger --max-upload-mb", mbe.Limit>>20)}
	}
	return badRequest(param, "could not read the upload: %s", clip(err.Error()))
}

func (s *Server) options(req *request) whisper.Options {
	o := whisper.DefaultOptions()
	o.BeamSize = s.cfg.BeamSize
	o.Language = req.language
	o.InitialPrompt = req.prompt
	if req.vocabulary != nil || req.initialPrompt != nil {
		o.Vocabulary = req.vocabulary
		o.InitialPrompt = ""
		if req.initialPrompt != nil {
			o.InitialPrompt = *req.initialPrompt
		}
	}
	// OpenAI: 0 (the default) lets the model raise the temperature when
	// decoding fails; a positive value samples at that temperature only.
	if req.hasTemp && req.temperature > 0 {
		o.Temperatures = []float32{float32(req.temperature)}
	}
	o.WordTimestamps = req.words
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
	case errors.Is(err, whisper.ErrNoWordTimestamps):
		writeError(w, http.StatusBadRequest, "invalid_request_error", "timestamp_granularities", err.Error(), "word_timestamps_unavailable")
	case errors.Is(err, whisper.ErrUnknownLanguage):
		// A server without Config.Languages learns it from the engine.
		s.fail(w, languageError(err))
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

// retryAfter estimates, in whole seconds, when the queue will have room: when
// the transcription in progress ends. Its length is taken as the recent
// average, or as long as it has already run when that is longer, so a long
// job is not answered with a retry in one second.
func (s *Server) retryAfter() int {
	s.mu.Lock()
	avg, running := s.avgTook, s.running
	s.mu.Unlock()
	wait := avg
	if !running.IsZero() {
		ran := time.Since(running)
		wait = max(avg-ran, ran)
	}
	return max(1, int(math.Ceil(wait.Seconds())))
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
