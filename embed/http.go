package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HTTP is an embedder served over HTTP: an OpenAI-compatible
// /v1/embeddings endpoint or Ollama's /api/embed. Texts are sent in
// batches; a failed batch is retried with exponential backoff, and a 429
// or 503 answer's Retry-After is honoured. When every retry fails the
// error wraps ErrUnavailable.
type HTTP struct {
	Provider   string // "openai" or "ollama"
	Name       string // model name at the provider
	URL        string // endpoint URL (full, e.g. http://host/v1/embeddings)
	APIKey     string // bearer token, when the provider needs one
	Dimensions int    // requested dimension (OpenAI "dimensions"), 0: the model's own
	BatchSize  int    // texts per request (default 64)
	Retries    int    // attempts after the first (default 4)
	Backoff    time.Duration
	MaxWait    time.Duration // cap on one wait, Retry-After included (default 30s)
	Client     *http.Client

	mu  sync.Mutex
	dim int // learned from the first answer when Dimensions is 0
}

// Model implements Embedder: provider, model name and requested dimension.
func (h *HTTP) Model() string {
	m := h.Provider + ":" + h.Name
	if h.Dimensions > 0 {
		m += "@" + strconv.Itoa(h.Dimensions)
	}
	return m
}

// Dim implements Embedder; for a model whose dimension was not configured
// it is 0 until the first answer.
func (h *HTTP) Dim() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.Dimensions > 0 {
		return h.Dimensions
	}
	return h.dim
}

// Embed implements Embedder.
func (h *HTTP) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	bs := h.BatchSize
	if bs <= 0 {
		bs = 64
	}
	out := make([][]float32, 0, len(texts))
	for i := 0; i < len(texts); i += bs {
		batch := texts[i:min(i+bs, len(texts))]
		vs, err := h.batch(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// httpError is a failed request: retryable or not, with the wait the
// server asked for.
type httpError struct {
	status     int
	msg        string
	retryable  bool
	retryAfter time.Duration
	down       bool // nothing answered (connection refused, DNS): retried once only
}

func (e *httpError) Error() string {
	if e.status == 0 {
		return e.msg
	}
	return fmt.Sprintf("HTTP %d: %s", e.status, e.msg)
}

func (h *HTTP) batch(ctx context.Context, texts []string) ([][]float32, error) {
	retries := h.Retries
	if retries <= 0 {
		retries = 4
	}
	backoff := h.Backoff
	if backoff <= 0 {
		backoff = 500 * time.Millisecond
	}
	maxWait := h.MaxWait
	if maxWait <= 0 {
		maxWait = 30 * time.Second
	}
	var last error
	for attempt := 0; ; attempt++ {
		vs, err := h.request(ctx, texts)
		if err == nil {
			return vs, nil
		}
		last = err
		var he *httpError
		if !errors.As(err, &he) || !he.retryable || attempt >= retries || he.down && attempt >= 1 {
			break
		}
		wait := backoff << attempt
		if he.retryAfter > 0 {
			wait = he.retryAfter
		}
		if wait > maxWait {
			wait = maxWait
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("%w: %s %s at %s: %v", ErrUnavailable, h.Provider, h.Name, h.URL, last)
}

func (h *HTTP) request(ctx context.Context, texts []string) ([][]float32, error) {
	var body any
	switch h.Provider {
	case "ollama":
		body = map[string]any{"model": h.Name, "input": texts}
	default:
		req := map[string]any{"model": h.Name, "input": texts, "encoding_format": "float"}
		if h.Dimensions > 0 {
			req["dimensions"] = h.Dimensions
		}
		body = req
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if h.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+h.APIKey)
	}
	client := h.Client
	if client == nil {
		client = &http.Client{Timeout: 60 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var op *net.OpError
		return nil, &httpError{msg: err.Error(), retryable: true, down: errors.As(err, &op) && op.Op == "dial"}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, &httpError{status: resp.StatusCode, msg: err.Error(), retryable: true}
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(data))
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return nil, &httpError{
			status:     resp.StatusCode,
			msg:        msg,
			retryable:  resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 || resp.StatusCode == http.StatusRequestTimeout,
			retryAfter: parseRetryAfter(resp.Header.Get("Retry-After")),
		}
	}
	var vs [][]float32
	switch h.Provider {
	case "ollama":
		var r struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, &httpError{status: resp.StatusCode, msg: "bad response: " + err.Error()}
		}
		vs = r.Embeddings
	default:
		var r struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, &httpError{status: resp.StatusCode, msg: "bad response: " + err.Error()}
		}
		vs = make([][]float32, len(r.Data))
		for i, d := range r.Data {
			j := d.Index
			if j < 0 || j >= len(vs) || vs[j] != nil {
				j = i
			}
			vs[j] = d.Embedding
		}
	}
	if len(vs) != len(texts) {
		return nil, &httpError{status: resp.StatusCode, msg: fmt.Sprintf("bad response: %d vectors for %d texts", len(vs), len(texts))}
	}
	dim := h.Dim()
	for _, v := range vs {
		if len(v) == 0 || len(v) > MaxShardDim || dim > 0 && len(v) != dim {
			return nil, &httpError{status: resp.StatusCode, msg: fmt.Sprintf("bad response: vector of dimension %d (want %d)", len(v), dim)}
		}
		dim = len(v)
	}
	h.mu.Lock()
	if h.dim == 0 {
		h.dim = dim
	}
	h.mu.Unlock()
	return vs, nil
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}
