package embed

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func embedOne(t *testing.T, e Embedder, text string) []float32 {
	t.Helper()
	vs, err := e.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return vs[0]
}

// The local model's output is frozen: vectors are stored by text hash and
// reused by every clone. This pins a few components of one vector; if it
// fails, the model changed and needs a new id (LocalModel).
func TestLocalIsFrozen(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"func parseHTTPRequest(r io.Reader) (*Request, error)", -88149},
		{"Should the cache not be used when all of its entries are stale? Only one may say so.", 15110},
	} {
		v := embedOne(t, NewLocal(), c.text)
		q := Quantize(v)
		sum := 0
		for i, x := range q.Q {
			sum += (i + 1) * int(x)
		}
		if sum != c.want {
			t.Fatalf("local embedding of %q changed (checksum %d, want %d): give the model a new id", c.text, sum, c.want)
		}
	}
	v := embedOne(t, NewLocal(), "")
	if len(v) != LocalDim || NewLocal().Dim() != LocalDim || NewLocal().Model() != LocalModel {
		t.Fatal("dimension or model id")
	}
}

func TestLocalDeterministicAndParallelSafe(t *testing.T) {
	texts := make([]string, 200)
	for i := range texts {
		texts[i] = strings.Repeat("reading configuration files and parsing HTTP headers ", i%7+1) + string(rune('a'+i%26))
	}
	a, err := NewLocal().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewLocal().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("text %d differs between runs", i)
			}
		}
		if n := cos(a[i], a[i]); math.Abs(n-1) > 1e-5 {
			t.Fatalf("text %d: norm² %v, want 1", i, n)
		}
	}
}

// The built-in embedder must add meaning beyond exact words: identifier
// parts, morphology.
func TestLocalSeesIdentifierPartsAndMorphology(t *testing.T) {
	e := NewLocal()
	query := embedOne(t, e, "parse the HTTP request")
	related := embedOne(t, e, "func parseHTTPRequest(b []byte) (*Request, error)")
	unrelated := embedOne(t, e, "func renderTemplate(w io.Writer, page *Page) error")
	if cos(query, related) <= cos(query, unrelated)+0.2 {
		t.Fatalf("camelCase parts: related %.3f, unrelated %.3f", cos(query, related), cos(query, unrelated))
	}
	snake := embedOne(t, e, "def parse_http_request(data): pass")
	if cos(query, snake) <= cos(query, unrelated)+0.2 {
		t.Fatalf("snake_case parts: related %.3f, unrelated %.3f", cos(query, snake), cos(query, unrelated))
	}
	// Morphology: different forms of the same words, no word in common.
	q2 := embedOne(t, e, "embedding vectors")
	forms := embedOne(t, e, "embedded vector")
	other := embedOne(t, e, "network socket")
	if cos(q2, forms) <= cos(q2, other)+0.3 {
		t.Fatalf("morphology: %.3f vs %.3f", cos(q2, forms), cos(q2, other))
	}
	// Character n-grams relate a word to its abbreviation.
	cfg := embedOne(t, e, "configuration")
	if cos(embedOne(t, e, "config"), cfg) <= cos(embedOne(t, e, "socket"), cfg) {
		t.Fatal("config should be nearer configuration than socket is")
	}
}

func TestQuantizeKeepsCosine(t *testing.T) {
	e := NewLocal()
	a := embedOne(t, e, "retry the request with exponential backoff")
	b := embedOne(t, e, "backoff between retries of failed requests")
	exact := cos(a, b)
	got := float64(Cosine(Quantize(a), Quantize(b)))
	if math.Abs(exact-got) > 0.02 {
		t.Fatalf("quantized cosine %.4f, exact %.4f", got, exact)
	}
	if z := Quantize(make([]float32, 8)); z.Scale != 0 || len(z.Q) != 8 {
		t.Fatalf("zero vector: %+v", z)
	}
}

func TestShardRoundTripAndChecks(t *testing.T) {
	e := NewLocal()
	var es []Entry
	for i, s := range []string{"alpha", "beta", "gamma"} {
		k, _ := ParseKey(strings.Repeat(string("fedcba"[i]), 32))
		es = append(es, Entry{Key: k, Quantized: Quantize(embedOne(t, e, s))})
	}
	es = append(es, es[0]) // duplicate dropped
	b, err := EncodeShard(LocalDim, es)
	if err != nil {
		t.Fatal(err)
	}
	dim, got, err := DecodeShard(b)
	if err != nil || dim != LocalDim || len(got) != 3 {
		t.Fatalf("decode: dim %d, %d entries, %v", dim, len(got), err)
	}
	if got[0].Key.String() != strings.Repeat("d", 32) || got[2].Key.String() != strings.Repeat("f", 32) {
		t.Fatalf("not sorted: %s %s", got[0].Key, got[2].Key)
	}
	for _, g := range got {
		for _, w := range es {
			if g.Key == w.Key && (g.Scale != w.Scale || string(int8s(g.Q)) != string(int8s(w.Q))) {
				t.Fatalf("vector %s changed", g.Key)
			}
		}
	}
	// Damaged shards are refused, not trusted.
	for name, bad := range map[string][]byte{
		"garbage":   []byte("not zstd"),
		"truncated": b[:len(b)/2],
	} {
		if _, _, err := DecodeShard(bad); err == nil {
			t.Errorf("%s shard accepted", name)
		}
	}
	if _, err := EncodeShard(LocalDim, []Entry{{Quantized: Quantized{Q: make([]int8, 3)}}}); err == nil {
		t.Error("wrong dimension accepted")
	}
}

func int8s(q []int8) []byte {
	b := make([]byte, len(q))
	for i, x := range q {
		b[i] = byte(x)
	}
	return b
}

func TestModelDir(t *testing.T) {
	for in, want := range map[string]string{
		"konteks-local-v1":                  "konteks-local-v1",
		"openai:text-embedding-3-small@512": "openai_text-embedding-3-small_512",
		"ollama:nomic-embed-text":           "ollama_nomic-embed-text",
		"..":                                "_..",
		"a/b":                               "a_b",
	} {
		if got := ModelDir(in); got != want {
			t.Errorf("ModelDir(%q) = %q, want %q", in, got, want)
		}
	}
}

// provider is a fake embedding server on 127.0.0.1: it answers in the
// OpenAI or Ollama shape, and can be told to fail first.
type provider struct {
	t        *testing.T
	ollama   bool
	fail     atomic.Int32 // answer this many requests with failStatus
	status   int
	retry    string // Retry-After of failures
	requests atomic.Int32
	mu       sync.Mutex
	batches  []int
	auth     string
}

func (p *provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	if p.fail.Load() > 0 {
		p.fail.Add(-1)
		if p.retry != "" {
			w.Header().Set("Retry-After", p.retry)
		}
		http.Error(w, `{"error":"slow down"}`, p.status)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	p.mu.Lock()
	p.batches = append(p.batches, len(req.Input))
	p.auth = r.Header.Get("Authorization")
	p.mu.Unlock()
	vec := func(s string) []float32 { return []float32{float32(len(s)), 1, 0} }
	if p.ollama {
		if r.URL.Path != "/api/embed" {
			http.NotFound(w, r)
			return
		}
		out := map[string]any{"embeddings": [][]float32{}}
		var vs [][]float32
		for _, s := range req.Input {
			vs = append(vs, vec(s))
		}
		out["embeddings"] = vs
		json.NewEncoder(w).Encode(out)
		return
	}
	if r.URL.Path != "/v1/embeddings" {
		http.NotFound(w, r)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	// Answer out of order: the client must place vectors by index.
	for i := len(req.Input) - 1; i >= 0; i-- {
		data = append(data, item{Index: i, Embedding: vec(req.Input[i])})
	}
	json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func serve(t *testing.T, p *provider) string {
	t.Helper()
	srv := httptest.NewServer(p) // on 127.0.0.1
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestOpenAIProviderBatchesAndOrders(t *testing.T) {
	p := &provider{t: t}
	url := serve(t, p)
	t.Setenv("KONTEKS_TEST_KEY", "sk-test")
	e, err := New(Config{Provider: "openai", Model: "m", URL: url + "/v1", Batch: 2, APIKeyEnv: "KONTEKS_TEST_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.Embed(context.Background(), []string{"a", "bb", "ccc", "dddd", "eeeee"})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if v[0] != float32(i+1) {
			t.Fatalf("vector %d is %v: out of order", i, v)
		}
	}
	if len(p.batches) != 3 || p.batches[0] != 2 || p.batches[2] != 1 {
		t.Fatalf("batches %v, want [2 2 1]", p.batches)
	}
	if p.auth != "Bearer sk-test" {
		t.Fatalf("authorization %q", p.auth)
	}
	if e.Model() != "openai:m" || e.Dim() != 3 {
		t.Fatalf("model %q dim %d", e.Model(), e.Dim())
	}
}

func TestOllamaProvider(t *testing.T) {
	p := &provider{t: t, ollama: true}
	url := serve(t, p)
	e, err := New(Config{Provider: "ollama", Model: "nomic-embed-text", URL: url})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.Embed(context.Background(), []string{"xy", "xyz"})
	if err != nil || len(vs) != 2 || vs[1][0] != 3 {
		t.Fatalf("%v %v", vs, err)
	}
	if e.Model() != "ollama:nomic-embed-text" {
		t.Fatal(e.Model())
	}
}

func TestProviderHonoursRetryAfter(t *testing.T) {
	p := &provider{t: t, status: http.StatusTooManyRequests, retry: "1"}
	p.fail.Store(2)
	url := serve(t, p)
	e := &HTTP{Provider: "openai", Name: "m", URL: url + "/v1/embeddings", Backoff: time.Millisecond}
	t0 := time.Now()
	vs, err := e.Embed(context.Background(), []string{"a"})
	if err != nil || len(vs) != 1 {
		t.Fatal(err)
	}
	if took := time.Since(t0); took < 2*time.Second {
		t.Fatalf("two 429s with Retry-After: 1 took %v; the wait was not honoured", took)
	}
	if p.requests.Load() != 3 {
		t.Fatalf("%d requests, want 3", p.requests.Load())
	}
}

func TestProviderBacksOffThenGivesUp(t *testing.T) {
	p := &provider{t: t, status: http.StatusServiceUnavailable}
	p.fail.Store(100)
	url := serve(t, p)
	e := &HTTP{Provider: "openai", Name: "m", URL: url + "/v1/embeddings", Backoff: time.Millisecond, Retries: 3}
	_, err := e.Embed(context.Background(), []string{"a"})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("error %v, want ErrUnavailable", err)
	}
	if p.requests.Load() != 4 {
		t.Fatalf("%d requests, want 1 + 3 retries", p.requests.Load())
	}
	// A client error is not retried.
	p2 := &provider{t: t, status: http.StatusUnauthorized}
	p2.fail.Store(100)
	e2 := &HTTP{Provider: "openai", Name: "m", URL: serve(t, p2) + "/v1/embeddings", Backoff: time.Millisecond}
	if _, err := e2.Embed(context.Background(), []string{"a"}); !errors.Is(err, ErrUnavailable) || p2.requests.Load() != 1 {
		t.Fatalf("401: %v after %d requests", err, p2.requests.Load())
	}
	// Nothing listening: unavailable, quickly.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String()
	l.Close()
	e3 := &HTTP{Provider: "ollama", Name: "m", URL: dead + "/api/embed", Backoff: time.Second}
	t0 := time.Now()
	if _, err := e3.Embed(context.Background(), []string{"a"}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("dead server: %v", err)
	}
	if took := time.Since(t0); took > 1500*time.Millisecond {
		t.Fatalf("a server that is not there was retried for %v", took)
	}
}

func TestParseRetryAfter(t *testing.T) {
	if d := parseRetryAfter("3"); d != 3*time.Second {
		t.Fatal(d)
	}
	if d := parseRetryAfter(time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)); d < 3*time.Second || d > 6*time.Second {
		t.Fatal(d)
	}
	if d := parseRetryAfter("soon"); d != 0 {
		t.Fatal(d)
	}
}

func TestConfigProviders(t *testing.T) {
	if e, err := New(Config{}); err != nil || e.Model() != Builtin().Model() {
		t.Fatalf("default: %v %v", e, err)
	}
	if e, err := New(Config{Provider: "hashing"}); err != nil || e.Model() != LocalModel {
		t.Fatalf("hashing: %v %v", e, err)
	}
	if e, err := New(Config{Provider: "none"}); err != nil || e != nil {
		t.Fatalf("none: %v %v", e, err)
	}
	if _, err := New(Config{Provider: "magic"}); err == nil {
		t.Fatal("unknown provider accepted")
	}
	e, _ := New(Config{Provider: "openai", Dimensions: 256})
	if h := e.(*HTTP); h.URL != "https://api.openai.com/v1/embeddings" || e.Model() != "openai:text-embedding-3-small@256" || e.Dim() != 256 {
		t.Fatalf("openai defaults: %s %s", h.URL, e.Model())
	}
}

// BenchmarkLocalEmbed measures the built-in embedder's throughput on real
// source: the Go standard library's net/http, in 60-line chunks (the size
// of an embedding text).
func BenchmarkLocalEmbed(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	var texts []string
	var size int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(string(data), "\n")
		for i := 0; i < len(lines); i += 60 {
			t := strings.Join(lines[i:min(i+60, len(lines))], "\n")
			texts = append(texts, t)
			size += len(t)
		}
	}
	if len(texts) == 0 {
		b.Skip("no Go source tree")
	}
	e := NewLocal()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(len(texts))/sec, "texts/s")
	b.ReportMetric(float64(size)/sec/1e6, "MB/s")
}
