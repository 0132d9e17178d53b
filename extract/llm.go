package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

// llmSummarizer writes directory summaries with a chat model behind an
// OpenAI-compatible endpoint, configured with git config:
//
//	konteks.llm.url          base URL, e.g. http://127.0.0.1:11434/v1 (required to enable)
//	konteks.llm.model        model name (default gpt-4o-mini)
//	konteks.llm.keyEnv       environment variable holding the API key (default OPENAI_API_KEY);
//	                         the key itself never goes into git config
//	konteks.llm.concurrency  requests in flight (default 4)
//	konteks.llm.timeout      per request, e.g. 60s
//
// A directory whose request fails keeps the built-in summary; failures and
// tokens are counted in the manifest.
type llmSummarizer struct {
	url, model, key string
	concurrency     int
	client          *http.Client
	tokens          atomic.Int64
	failures        atomic.Int64
}

func newLLM(repo *gitstore.Repo) *llmSummarizer {
	return newChat(repo, "konteks.llm", 60*time.Second)
}

// newChat reads the settings of an OpenAI-compatible chat endpoint from
// the git config keys under section (url, model, keyEnv, concurrency,
// timeout); nil when no url is set.
func newChat(repo *gitstore.Repo, section string, timeout time.Duration) *llmSummarizer {
	url := strings.TrimRight(repo.ConfigValue(section+".url"), "/")
	if url == "" {
		return nil
	}
	l := &llmSummarizer{url: url, model: "gpt-4o-mini", concurrency: 4, client: &http.Client{Timeout: timeout}}
	if m := repo.ConfigValue(section + ".model"); m != "" {
		l.model = m
	}
	keyEnv := repo.ConfigValue(section + ".keyEnv")
	if keyEnv == "" {
		keyEnv = "OPENAI_API_KEY"
	}
	l.key = os.Getenv(keyEnv)
	if n, err := strconv.Atoi(repo.ConfigValue(section + ".concurrency")); err == nil && n > 0 && n <= 64 {
		l.concurrency = n
	}
	if d, err := time.ParseDuration(repo.ConfigValue(section + ".timeout")); err == nil && d > 0 {
		l.client.Timeout = d
	}
	return l
}

func (l *llmSummarizer) name() string {
	if l == nil {
		return fmt.Sprintf("builtin-v%d", SummaryVersion)
	}
	return "llm:" + l.model
}

// summarizeAll fills L0/L1 of jobs with the model, at most l.concurrency
// at a time; a job whose request fails keeps its built-in text.
func (l *llmSummarizer) summarizeAll(ctx context.Context, jobs []*dirJob) {
	eachBounded(jobs, l.concurrency, func(j *dirJob) {
		l0, overview, err := l.summarize(ctx, j.s)
		if err != nil {
			l.failures.Add(1)
			return
		}
		j.s.L0 = firstSentence(l0, MaxAbstract)
		j.s.L1 = dirOverviewWith(j.s, overview)
		j.s.Summarizer = l.name()
	})
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

const llmSystemPrompt = `You summarize one directory of a software repository for an AI coding agent.
You get the directory's path and a one-sentence abstract of each entry.
Answer with JSON only: {"l0": "<one sentence, at most 200 characters, saying what the directory is for>",
"l1": "<at most 600 characters: its purpose and how its parts fit together>"}.
Be concrete; do not list the entries again; do not invent what the abstracts do not say.`

func (l *llmSummarizer) summarize(ctx context.Context, s *memory.DirSummary) (l0, l1 string, err error) {
	var u strings.Builder
	name := s.Path
	if name == "" {
		name = "(repository root)"
	}
	fmt.Fprintf(&u, "Directory: %s\nEntries (%d of %d):\n", name, s.Freshness.Sampled, s.Freshness.Total)
	for _, c := range s.Children {
		n := c.Name
		if c.Dir {
			n += "/"
		}
		fmt.Fprintf(&u, "- %s: %s\n", n, c.L0)
	}
	body, _ := json.Marshal(chatRequest{Model: l.model, Temperature: 0, MaxTokens: 400, Messages: []chatMessage{
		{Role: "system", Content: llmSystemPrompt}, {Role: "user", Content: u.String()},
	}})
	content, err := l.complete(ctx, body, &l.tokens)
	if err != nil {
		return "", "", err
	}
	content = strings.TrimSpace(content)
	content = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(content, "```json"), "```"), "```")
	var out struct{ L0, L1 string }
	if json.Unmarshal([]byte(content), &out) != nil || strings.TrimSpace(out.L0) == "" {
		// Not JSON: first sentence for L0, the rest for L1.
		out.L0 = firstSentence(content, MaxAbstract)
		out.L1 = content
	}
	if len(out.L1) > 1200 {
		out.L1 = out.L1[:1200]
	}
	return out.L0, out.L1, nil
}

// complete sends a chat request and returns the first choice's text,
// adding the tokens the answer reports to tokens.
func (l *llmSummarizer) complete(ctx context.Context, body []byte, tokens *atomic.Int64) (string, error) {
	var resp struct {
		Choices []struct {
			Message chatMessage `json:"message"`
		} `json:"choices"`
		Usage struct {
			TotalTokens int64 `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := l.post(ctx, body, &resp); err != nil {
		return "", err
	}
	tokens.Add(resp.Usage.TotalTokens)
	if len(resp.Choices) == 0 {
		return "", errors.New("no choices in the answer")
	}
	return resp.Choices[0].Message.Content, nil
}

// post sends one request, retrying rate limits and server errors with
// backoff (honouring Retry-After).
func (l *llmSummarizer) post(ctx context.Context, body []byte, into any) error {
	delay := 500 * time.Millisecond
	var last error
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, "POST", l.url+"/chat/completions", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		if l.key != "" {
			req.Header.Set("Authorization", "Bearer "+l.key)
		}
		res, err := l.client.Do(req)
		if err != nil {
			last = err
		} else {
			b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
			res.Body.Close()
			switch {
			case res.StatusCode == 200:
				return json.Unmarshal(b, into)
			case res.StatusCode == 429 || res.StatusCode >= 500:
				last = fmt.Errorf("%s: %s", res.Status, strings.TrimSpace(string(b)))
				if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 && s <= 60 {
					delay = time.Duration(s) * time.Second
				}
			default:
				return fmt.Errorf("%s: %s", res.Status, strings.TrimSpace(string(b)))
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay *= 2
	}
	return last
}

// eachBounded calls fn for every job, at most n at a time (n < 1 is 1), and
// returns when all are done: the model requests of summaries and image
// descriptions, which a provider limits per client.
func eachBounded[T any](jobs []T, n int, fn func(T)) {
	sem := make(chan struct{}, max(n, 1))
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(j)
		}()
	}
	wg.Wait()
}
