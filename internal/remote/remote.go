package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/textproc"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Config says which server to use.
type Config struct {
	// URL is the server's base, such as http://gpu-box:8765 or
	// https://api.openai.com/v1; "/v1" is added when the path has none.
	URL string
	// APIKey is sent as a bearer token; "" sends none. Whitespace around it
	// (the newline a file or $(cat …) leaves) is trimmed, as the server does.
	APIKey string
	// Model is the form's model field; default "whisper-1".
	Model string
	// Timeout bounds one transcription, upload included. Default: 15 s plus
	// twice the audio's length, so a hung server gives way to the local
	// engine soon after a dictation, while a long file still has time.
	Timeout time.Duration
}

func (c Config) withDefaults() Config {
	if c.Model == "" {
		c.Model = "whisper-1"
	}
	return c
}

// ErrRemote matches every failure to get text from the server, so callers
// can fall back to a local engine.
var ErrRemote = errors.New("remote transcription failed")

// Client transcribes through an OpenAI-compatible server.
type Client struct {
	cfg      Config
	endpoint *url.URL
	http     *http.Client
	log      *slog.Logger
}

// CheckURL says what is wrong with a server URL, in words for the user.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("remote URL %q cannot be parsed: %v; write it as http://HOST:PORT", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("remote URL %q must start with http:// or https://", u.Redacted())
	}
	if u.Host == "" {
		return nil, fmt.Errorf("remote URL %q has no host; write it as http://HOST:PORT", u.Redacted())
	}
	return u, nil
}

// CheckAPIKey trims the whitespace around a key and refuses one with
// whitespace or control characters inside, which no header can carry:
// Go's client refused "KEY\n" outright, and the server trims its own key.
func CheckAPIKey(key string) (string, error) {
	trimmed := strings.TrimSpace(key)
	if strings.IndexFunc(trimmed, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return "", errors.New("the remote API key holds whitespace or control characters inside, which cannot be sent in a header; use the key exactly as the server was given it")
	}
	return trimmed, nil
}

// New makes a client for cfg.URL.
func New(cfg Config, log *slog.Logger) (*Client, error) {
	cfg = cfg.withDefaults()
	u, err := CheckURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.APIKey, err = CheckAPIKey(cfg.APIKey); err != nil {
		return nil, err
	}
	base := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	ep := *u
	ep.Path = base + "/audio/transcriptions"
	ep.RawQuery, ep.Fragment = "", ""
	c := &Client{cfg: cfg, endpoint: &ep, log: log.With("pkg", "remote", "host", u.Host)}
	c.http = &http.Client{CheckRedirect: c.checkRedirect}
	return c, nil
}

// Host is the server's host:port, for the tray ("Remote: HOST").
func (c *Client) Host() string { return c.endpoint.Host }

// checkRedirect follows at most 5 redirects and sends the key only to the
// host it was given for: a server that redirects elsewhere must not learn
// it (Go's own rule forwards it to subdomains, and across ports).
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	orig := via[0].URL
	if req.URL.Host != orig.Host || (orig.Scheme == "https" && req.URL.Scheme != "https") {
		req.Header.Del("Authorization")
	}
	return nil
}

// Transcribe sends 16 kHz samples as a WAV file and returns the server's
// text, language, duration and segments. Decoding options the API has
// (language, prompt) are sent; the rest are the server's business.
func (c *Client) Transcribe(ctx context.Context, samples []float32, opt whisper.Options) (*whisper.Result, error) {
	start := time.Now()
	if len(samples) == 0 {
		return nil, whisper.ErrNoAudio
	}
	if opt.WordTimestamps {
		// The form asks for segments only; words would silently be missing.
		return nil, fmt.Errorf("%w: the engine is a remote server; ask that server for words itself (response_format=verbose_json, timestamp_granularities[]=word)", whisper.ErrNoWordTimestamps)
	}
	body, ctype, err := c.form(samples, opt)
	if err != nil {
		return nil, err
	}
	limit := c.cfg.Timeout
	if limit <= 0 {
		limit = 15*time.Second + 2*time.Duration(len(samples))*time.Second/audio.SampleRate
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	raw, err := c.post(ctx, body, ctype)
	if err != nil {
		return nil, err
	}
	var v struct {
		Text     string  `json:"text"`
		Language string  `json:"language"`
		Duration float64 `json:"duration"`
		// A WhisperKey server's own fields, beside OpenAI's.
		LanguageProb float32 `json:"language_probability"`
		Path         string  `json:"path"`
		Segments     []struct {
			Start        float64 `json:"start"`
			End          float64 `json:"end"`
			Text         string  `json:"text"`
			AvgLogProb   float64 `json:"avg_logprob"`
			NoSpeechProb float64 `json:"no_speech_prob"`
		} `json:"segments"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%w: %s answered something other than a transcription (%v)", ErrRemote, c.Host(), err)
	}
	// OpenAI writes the language's name ("english"); the local engine, and
	// everything after it, its code. The server's words are only text: no
	// escape sequence, Enter or bidi override of its reaches a terminal, a
	// paste or a caller's JSON.
	lang, ok := whisper.LanguageCode(v.Language)
	if !ok {
		lang = textproc.Sanitize(v.Language)
	}
	res := &whisper.Result{Text: strings.TrimSpace(textproc.Sanitize(v.Text)), Language: lang, LanguageProb: v.LanguageProb,
		Path: textproc.Sanitize(v.Path), Duration: v.Duration}
	if res.Duration == 0 {
		res.Duration = float64(len(samples)) / audio.SampleRate
	}
	for _, s := range v.Segments {
		res.Segments = append(res.Segments, whisper.Segment{Start: s.Start, End: s.End, Text: textproc.Sanitize(s.Text),
			AvgLogProb: s.AvgLogProb, NoSpeechProb: s.NoSpeechProb})
	}
	res.Segments = whisper.WithinAudio(res.Segments, res.Duration)
	res.Timings.Engine = time.Since(start)
	res.Timings.Total = res.Timings.Engine
	c.log.Debug("remote transcription", "audio_s", res.Duration, "took", res.Timings.Total)
	return res, nil
}

// maxRetryAfter is the longest wait a busy server's Retry-After is honoured
// for; a longer one fails at once, so a dictation goes to the local engine
// instead of waiting.
const maxRetryAfter = 10 * time.Second

// post sends the form and returns the answer's body. A server that is busy
// (429) or unavailable for now (503) and says when to come back
// (Retry-After) is asked again then, up to three times, while ctx allows.
func (c *Client) post(ctx context.Context, body []byte, ctype string) ([]byte, error) {
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint.String(), bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrRemote, err)
		}
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Accept", "application/json")
		if c.cfg.APIKey != "" {
			req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrRemote, c.Host(), cleanErr(err, c.endpoint))
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		_ = resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: read the answer: %v", ErrRemote, c.Host(), err)
		}
		if resp.StatusCode == http.StatusOK {
			return raw, nil
		}
		wait, ok := retryAfter(resp)
		deadline, hasDeadline := ctx.Deadline()
		if !ok || attempt == 3 || (hasDeadline && time.Until(deadline) < wait+time.Second) {
			return nil, fmt.Errorf("%w: %s answered %s: %s", ErrRemote, c.Host(), textproc.Sanitize(resp.Status), serverMessage(raw))
		}
		c.log.Info("remote server busy; asking again", "status", resp.StatusCode, "after", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w: %s: %v", ErrRemote, c.Host(), ctx.Err())
		case <-t.C:
		}
	}
}

// retryAfter is how long a 429 or 503 answer asks to wait (Retry-After in
// seconds), when that is at most maxRetryAfter.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After")))
	if err != nil || n < 0 || time.Duration(n)*time.Second > maxRetryAfter {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// form builds the multipart body: the audio as a 32-bit float WAV, so the
// server decodes exactly the samples the local engine would (16-bit PCM
// rounds them, and Whisper's beam can turn on a rounding), and the API's fields.
//
// OpenAI's API has one prompt. It gets the vocabulary as the local engine
// writes it ("Siobhan, Kubernetes.") and then the style prompt, so any
// server sees the terms. A WhisperKey server also reads them apart
// (vocabulary, initial_prompt), and then decodes as the local engine does:
// same model and settings, same words.
func (c *Client) form(samples []float32, opt whisper.Options) ([]byte, string, error) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile("file", "dictation.wav")
	if err != nil {
		return nil, "", err
	}
	if err := audio.EncodeWAV(fw, samples, audio.SampleRate, 1, audio.Float32); err != nil {
		return nil, "", err
	}
	fields := [][2]string{{"model", c.cfg.Model}, {"response_format", "verbose_json"}}
	if opt.Language != "" && opt.Language != "auto" {
		fields = append(fields, [2]string{"language", opt.Language})
	}
	hot, initial := whisper.HotwordText(opt), strings.TrimSpace(opt.InitialPrompt)
	if p := strings.TrimSpace(hot + " " + initial); p != "" {
		fields = append(fields, [2]string{"prompt", p})
	}
	if terms := slices.DeleteFunc(slices.Clone(opt.Vocabulary), func(s string) bool { return strings.TrimSpace(s) == "" }); len(terms) > 0 {
		v, err := json.Marshal(terms)
		if err != nil {
			return nil, "", err
		}
		fields = append(fields, [2]string{"vocabulary", string(v)}, [2]string{"initial_prompt", initial})
	}
	if len(opt.Temperatures) == 1 {
		fields = append(fields, [2]string{"temperature", strconv.FormatFloat(float64(opt.Temperatures[0]), 'f', -1, 32)})
	}
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return nil, "", err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, "", err
	}
	return b.Bytes(), mw.FormDataContentType(), nil
}

// serverMessage is the message of an OpenAI-style error, or the start of
// the body, sanitized: it is printed and shown in notifications.
func serverMessage(raw []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	s := string(raw)
	if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
		s = e.Error.Message
	}
	s = strings.TrimSpace(textproc.Sanitize(s))
	if s == "" {
		return "(no message)"
	}
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// cleanErr removes the URL (which may carry user:password) from a transport error.
func cleanErr(err error, u *url.URL) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return strings.ReplaceAll(err.Error(), u.String(), u.Redacted())
}
