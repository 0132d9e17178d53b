package extract

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/konteks/git-konteks/extract/section/media"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

// vlmDescriber describes images with a vision model behind an
// OpenAI-compatible chat endpoint, configured with git config:
//
//	konteks.vlm.url          base URL, e.g. http://127.0.0.1:11434/v1 (required to enable)
//	konteks.vlm.model        model name (default gpt-4o-mini)
//	konteks.vlm.keyEnv       environment variable holding the API key (default OPENAI_API_KEY)
//	konteks.vlm.concurrency  requests in flight (default 4)
//	konteks.vlm.timeout      per request (default 120s)
//	konteks.vlm.maxBytes     largest image sent (default 4 MiB)
//	konteks.vlm.max          most images described in one run (default 200; the rest wait for the next run)
//
// A description is stored as a section of the image's record, so it is
// made once per blob: records are reused by blob id across runs, renames,
// branches and clones, and a rebuild takes descriptions from the memory
// it replaces. An image whose request fails keeps its metadata section and
// is tried again by a later run; failures are counted in the manifest.
type vlmDescriber struct {
	chat      *llmSummarizer // the same client, retries and backoff
	maxBytes  int64
	max       int
	described int
	failures  atomic.Int64
	tokens    atomic.Int64
	prevDescs map[string]*memory.Section // blob -> description in the previous memory
}

func newVLM(repo *gitstore.Repo) *vlmDescriber {
	c := newChat(repo, "konteks.vlm", 120*time.Second)
	if c == nil {
		return nil
	}
	v := &vlmDescriber{chat: c, maxBytes: 4 << 20, max: 200}
	if n, err := strconv.ParseInt(repo.ConfigValue("konteks.vlm.maxBytes"), 10, 64); err == nil && n > 0 {
		v.maxBytes = n
	}
	if n, err := strconv.Atoi(repo.ConfigValue("konteks.vlm.max")); err == nil && n >= 0 {
		v.max = n
	}
	return v
}

// parser names the description sections this describer writes.
func (v *vlmDescriber) parser() string { return "vlm:" + v.chat.model }

// vlmTypes are the image types vision endpoints accept, by extension.
var vlmTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
}

// accepts reports whether the image at p can be sent to the model (SVG is
// text and already searchable; other formats are not accepted by vision
// endpoints).
func (v *vlmDescriber) accepts(p string) bool { return vlmAccepts(p) }

func vlmAccepts(p string) bool {
	return media.Class(p) == "image" && vlmTypes[strings.ToLower(path.Ext(p))] != ""
}

type describeJob struct {
	path    string
	blob    string
	section *memory.Section // the description, when the model gave one
}

const vlmPrompt = `You describe one image from a software repository for an AI coding agent that searches the repository.
Say what it shows (architecture or sequence diagram, screenshot, chart, logo, photo, icon, ...), the words and labels visible in it, and what part of the software it documents.
Answer in at most four plain sentences, no Markdown.`

// describeAll describes the jobs' images, at most v.chat.concurrency at a
// time and at most v.max of them.
func (v *vlmDescriber) describeAll(r *run, jobs []*describeJob) {
	if len(jobs) > v.max {
		jobs = jobs[:v.max]
	}
	ctx := context.Background()
	var done atomic.Int64
	eachBounded(jobs, v.chat.concurrency, func(j *describeJob) {
		text, err := v.describe(ctx, r.repo, j)
		if err != nil {
			v.failures.Add(1)
			return
		}
		j.section = &memory.Section{
			Anchor: descAnchor, Kind: media.Kind, Symbol: descAnchor, Parser: v.parser(),
			Name: "Description", StartLine: 1, EndLine: 1, Content: text,
			Summary: firstSentence(text, MaxAbstract),
		}
		done.Add(1)
	})
	v.described += int(done.Load())
}

type visionMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

func (v *vlmDescriber) describe(ctx context.Context, repo *gitstore.Repo, j *describeJob) (string, error) {
	data, err := repo.BlobBytes(gitstore.ParseHash(j.blob), v.maxBytes)
	if err != nil {
		return "", err
	}
	url := "data:" + vlmTypes[strings.ToLower(path.Ext(j.path))] + ";base64," + base64.StdEncoding.EncodeToString(data)
	body, err := json.Marshal(map[string]any{
		"model": v.chat.model, "temperature": 0, "max_tokens": 300,
		"messages": []visionMessage{{Role: "user", Content: []any{
			map[string]string{"type": "text", "text": vlmPrompt + "\nFile: " + j.path},
			map[string]any{"type": "image_url", "image_url": map[string]string{"url": url}},
		}}},
	})
	if err != nil {
		return "", err
	}
	content, err := v.chat.complete(ctx, body, &v.tokens)
	if err != nil {
		return "", err
	}
	text := strings.Join(strings.Fields(content), " ")
	if text == "" {
		return "", errors.New("empty description")
	}
	return bounded(text, 2000), nil
}

// prevDescription returns a description the memory before this run held
// for the same blob, at any path (a renamed image gets a new record, and a
// rebuild starts from an empty tree: neither should pay the model again).
func (v *vlmDescriber) prevDescription(r *run, blob string) *memory.Section {
	if r.prev == nil {
		return nil
	}
	if v.prevDescs == nil {
		v.prevDescs = map[string]*memory.Section{}
		h, _, ok, err := r.repo.Lookup(r.prev.Tree, MediaPath)
		if err != nil || !ok {
			return nil
		}
		m, err := decodeMediaMap(r.repo, h, nil)
		if err != nil || m == nil {
			return nil
		}
		for p, mi := range m.Files {
			if mi.Described == "" {
				continue
			}
			rh, _, ok, err := r.repo.Lookup(r.prev.Tree, memory.FilePath(p))
			if err != nil || !ok {
				continue
			}
			if f, err := r.decodeRecord(rh, p); err == nil {
				if d := descriptionOf(f); d != nil {
					v.prevDescs[f.Blob] = d
				}
			}
		}
	}
	return v.prevDescs[blob]
}
