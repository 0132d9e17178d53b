package embed

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Config is the embedder configuration, read from `git config
// konteks.embed.*`:
//
//	konteks.embed.provider    local (default), openai, ollama, or none
//	konteks.embed.model       model name (openai: text-embedding-3-small, ollama: nomic-embed-text)
//	konteks.embed.url         endpoint base (openai: https://api.openai.com/v1, ollama: http://127.0.0.1:11434)
//	konteks.embed.dimensions  requested dimension (OpenAI-compatible providers that support it)
//	konteks.embed.apiKeyEnv   environment variable holding the API key (default OPENAI_API_KEY for openai)
//	konteks.embed.batch       texts per request (default 64)
//	konteks.embed.timeout     per-request timeout, e.g. 30s (default 60s)
//
// The key itself is never read from git config: config files get shared
// and committed; an environment variable does not.
type Config struct {
	Provider   string
	Model      string
	URL        string
	Dimensions int
	APIKeyEnv  string
	Batch      int
	Timeout    time.Duration
}

// ConfigFrom makes the Config of the konteks.embed.* values of git config
// (keys in lower case, as gitstore.Repo.ConfigValues reads them: every
// level and include, as git resolves them). With nothing set it is the
// zero Config (the local embedder).
func ConfigFrom(vals map[string]string) (Config, error) {
	var c Config
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first error is the same every time
	for _, k := range keys {
		name, ok := strings.CutPrefix(k, "konteks.embed.")
		if !ok {
			continue
		}
		if err := c.set(name, strings.TrimSpace(vals[k])); err != nil {
			return c, err
		}
	}
	return c, nil
}

func (c *Config) set(k, v string) error {
	var err error
	switch k {
	case "provider":
		c.Provider = strings.ToLower(v)
	case "model":
		c.Model = v
	case "url":
		c.URL = v
	case "dimensions":
		c.Dimensions, err = strconv.Atoi(v)
	case "apikeyenv":
		c.APIKeyEnv = v
	case "batch":
		c.Batch, err = strconv.Atoi(v)
	case "timeout":
		c.Timeout, err = time.ParseDuration(v)
	}
	if err != nil {
		return fmt.Errorf("konteks.embed.%s = %q: %w", k, v, err)
	}
	return nil
}

// providerDefaults are what an HTTP provider's configuration leaves out:
// the model, the server, the endpoint's path (added to a URL that lacks
// it) and the batch size (0: HTTP's own default).
var providerDefaults = map[string]struct {
	model, url, path string
	batch            int
}{
	"ollama": {"nomic-embed-text", "http://127.0.0.1:11434", "/api/embed", 32},
	"openai": {"text-embedding-3-small", "https://api.openai.com/v1", "/embeddings", 0},
}

// New builds the embedder a Config names; nil (and no error) for provider
// "none", which turns vectors off.
func New(c Config) (Embedder, error) {
	switch c.Provider {
	case "", "local", "builtin", "built-in":
		return Builtin(), nil
	case "hashing":
		return NewLocal(), nil
	case "none", "off", "false":
		return nil, nil
	case "openai", "ollama":
	default:
		return nil, fmt.Errorf("konteks.embed.provider %q: want local, hashing, openai, ollama or none", c.Provider)
	}
	h := &HTTP{Provider: c.Provider, Name: c.Model, Dimensions: c.Dimensions, BatchSize: c.Batch}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	h.Client = &http.Client{Timeout: timeout}
	d := providerDefaults[c.Provider]
	if h.Name == "" {
		h.Name = d.model
	}
	base := strings.TrimRight(c.URL, "/")
	if base == "" {
		base = d.url
	}
	if !strings.HasSuffix(base, d.path) {
		base += d.path
	}
	if h.BatchSize <= 0 {
		h.BatchSize = d.batch
	}
	if c.Provider == "openai" {
		env := c.APIKeyEnv
		if env == "" {
			env = "OPENAI_API_KEY"
		}
		h.APIKey = os.Getenv(env)
	}
	h.URL = base
	return h, nil
}

// Configured returns the embedder the konteks.embed.* values of git
// config choose (ConfigFrom): the local embedder when nothing is set, nil
// when turned off.
func Configured(vals map[string]string) (Embedder, error) {
	c, err := ConfigFrom(vals)
	if err != nil {
		return nil, err
	}
	return New(c)
}
