package cleanup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config says which server and model rewrite the text.
type Config struct {
	// URL is the server: http://host:port, …/v1, or the full
	// …/v1/chat/completions address.
	URL string
	// Model is the model name sent with each request.
	Model string
	// APIKey is sent as a bearer token; "" sends none. Never logged.
	APIKey string
	// Timeout bounds one rewrite, from the request to the last byte of the
	// answer. Default 3s.
	Timeout time.Duration
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = 3 * time.Second
	}
	return c
}

// Why the text as heard was kept, or the selection left as it was (Edit);
// Result.Err matches one (errors.Is).
var (
	ErrTimeout    = errors.New("the chat server did not answer in time")
	ErrServer     = errors.New("the chat server failed")
	ErrRefused    = errors.New("the model refused")
	ErrNotRewrite = errors.New("the answer was not a rewrite of the text")
)

// Result is what to paste and how it came about.
type Result struct {
	// Text is the rewrite, or the text as heard when Err is set.
	Text string
	// Err says why the text as heard was kept; nil when Text is the rewrite.
	Err error
	// Took is the time spent waiting for the server.
	Took time.Duration
}

// Notice is Err in a few words for the indicator and notification, "" when
// the rewrite was used.
func (r Result) Notice() string {
	switch {
	case r.Err == nil:
		return ""
	case errors.Is(r.Err, ErrTimeout):
		return "Cleanup timed out, pasted as heard"
	case errors.Is(r.Err, ErrRefused):
		return "Cleanup refused, pasted as heard"
	case errors.Is(r.Err, ErrNotRewrite):
		return "Cleanup unusable, pasted as heard"
	}
	return "Cleanup failed, pasted as heard"
}

// Client talks to one chat endpoint. It is safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string
	http     *http.Client
	log      *slog.Logger
}

// New makes a client for cfg.URL; it does not touch the network.
func New(cfg Config, log *slog.Logger) (*Client, error) {
	cfg = cfg.withDefaults()
	endpoint, err := Endpoint(cfg.URL)
	if err != nil {
		return nil, err
	}
	return &Client{cfg: cfg, endpoint: endpoint, log: log.With("pkg", "cleanup"),
		http: &http.Client{
			// A key must not follow a redirect to another host; a chat
			// endpoint has no reason to redirect at all.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}}, nil
}

// Endpoint is the chat-completions address for a server URL.
func Endpoint(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("cleanup URL %q: write it as http://HOST:PORT", raw)
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
	case strings.HasSuffix(p, "/v1"):
		p += "/chat/completions"
	default:
		p += "/v1/chat/completions"
	}
	u.Path = p
	return u.String(), nil
}

// The worked example sent before each dictation: a rewrite that fits every
// built-in mode (no fillers, punctuated, nothing to enumerate).
const (
	exampleDictation = "uh so we need to um fix the login page"
	exampleRewrite   = "We need to fix the login page."
)

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens"`
	Stop        []string      `json:"stop,omitempty"`
	Stream      bool          `json:"stream"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// Rewrite asks the model to rewrite text as instruction says. It never
// fails: on any problem Result.Text is text itself and Result.Err says why.
// It returns within the timeout (plus the time to tear the request down).
func (c *Client) Rewrite(ctx context.Context, instruction, text string) Result {
	start := time.Now()
	answer, err := c.ask(ctx, instruction, text)
	res := Result{Text: text, Took: time.Since(start)}
	if err == nil {
		answer, err = Check(text, instruction, answer)
	}
	if err != nil {
		res.Err = err
		// The reason only: neither the text nor the key goes to the log.
		c.log.Info("cleanup not used; pasting the text as heard", "reason", err.Error(), "took", res.Took)
		return res
	}
	res.Text = answer
	c.log.Debug("cleanup done", "took", res.Took, "chars_in", len(text), "chars_out", len(answer))
	return res
}

func (c *Client) ask(ctx context.Context, instruction, text string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	body, err := json.Marshal(chatRequest{
		Model: c.cfg.Model,
		// One worked example before the dictation: without it small models
		// answer the dictation ("Sure, Tuesday works!") instead of rewriting it.
		Messages: []chatMessage{
			{Role: "system", Content: instruction},
			{Role: "user", Content: exampleDictation},
			{Role: "assistant", Content: exampleRewrite},
			{Role: "user", Content: text},
		},
		// Enough for a rewrite that is somewhat longer; a reply that runs
		// on is cut short and then rejected as too long.
		MaxTokens: 64 + len(text)/2,
		// A dictation without a blank line is rewritten without one; small
		// models go on after the rewrite with comments of their own.
		Stop: stopAtBlankLine(text),
	})
	if err != nil {
		return "", fmt.Errorf("%w: encode the request: %v", ErrServer, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrServer, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", c.transportError(ctx, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%w: HTTP %d from %s", ErrServer, resp.StatusCode, redacted(c.endpoint))
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil || len(cr.Choices) == 0 {
		return "", fmt.Errorf("%w: the answer is not a chat completion", ErrServer)
	}
	ch := cr.Choices[0]
	if ch.Message.Refusal != "" || ch.FinishReason == "content_filter" {
		return "", ErrRefused
	}
	return ch.Message.Content, nil
}

func stopAtBlankLine(text string) []string {
	if strings.Contains(text, "\n\n") {
		return nil
	}
	return []string{"\n\n"}
}

func (c *Client) transportError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w (%s)", ErrTimeout, c.cfg.Timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // url.Error repeats the address
	}
	return fmt.Errorf("%w: %s: %v", ErrServer, redacted(c.endpoint), err)
}

func redacted(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "the server"
	}
	return u.Redacted()
}
