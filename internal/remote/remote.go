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
	// APIKey is sent as a bearer token; "" sends none.
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

// New makes a client for cfg.URL.
func New(cfg Config, log *slog.Logger) (*Client, error) {
	cfg = cfg.withDefaults()
	u, err := CheckURL(cfg.URL)
	if err != nil {
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
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: read the answer: %v", ErrRemote, c.Host(), err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s answered %s: %s", ErrRemote, c.Host(), textproc.Sanitize(resp.Status), serverMessage(raw))
	}
	var v struct {
		Text     string  `json:"text"`
		Language string  `json:"language"`
		Duration float64 `json:"duration"`
		Segments []struct {
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
	// The server's words are only text: no escape sequence, Enter or bidi
	// override of its reaches a terminal, a paste or a caller's JSON.
	res := &whisper.Result{Text: strings.TrimSpace(textproc.Sanitize(v.Text)), Language: textproc.Sanitize(v.Language), Duration: v.Duration}
	if res.Duration == 0 {
		res.Duration = float64(len(samples)) / audio.SampleRate
	}
	for _, s := range v.Segments {
		res.Segments = append(res.Segments, whisper.Segment{Start: s.Start, End: s.End, Text: textproc.Sanitize(s.Text),
			AvgLogProb: s.AvgLogProb, NoSpeechProb: s.NoSpeechProb})
	}
	res.Timings.Engine = time.Since(start)
	res.Timings.Total = res.Timings.Engine
	c.log.Debug("remote transcription", "status", resp.StatusCode, "audio_s", res.Duration, "took", res.Timings.Total)
	return res, nil
}

// form builds the multipart body: the audio as 16-bit WAV (half the bytes
// of float, and every server reads it) and the API's fields.
func (c *Client) form(samples []float32, opt whisper.Options) ([]byte, string, error) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile("file", "dictation.wav")
	if err != nil {
		return nil, "", err
	}
	if err := audio.EncodeWAV(fw, samples, audio.SampleRate, 1); err != nil {
		return nil, "", err
	}
	fields := [][2]string{{"model", c.cfg.Model}, {"response_format", "verbose_json"}}
	if opt.Language != "" && opt.Language != "auto" {
		fields = append(fields, [2]string{"language", opt.Language})
	}
	if p := strings.TrimSpace(opt.InitialPrompt + " " + opt.Hotwords); p != "" {
		fields = append(fields, [2]string{"prompt", p})
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
