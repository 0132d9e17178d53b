package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/mcp"
	"github.com/konteks/git-konteks/recall"
)

// Tests of the MCP server as agents' clients meet it: started anywhere,
// given bad arguments, waiting on a cold index, browsing resources,
// cancelling, and over streamable HTTP.

// startMCP starts `git-konteks ARGS` in dir (args end with "mcp ...") and
// connects the SDK client with opts and roots.
func startMCP(t *testing.T, dir string, args []string, opts *sdk.ClientOptions, roots ...*sdk.Root) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = testgit.Env()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	client := sdk.NewClient(&sdk.Implementation{Name: "konteks-test", Version: "1"}, opts)
	var so *sdk.ClientSessionOptions
	if len(roots) > 0 {
		client.AddRoots(roots...)
		// Roots are announced in the initialize handshake, which is what
		// clients speak today (the 2026-07-28 protocol deprecates them).
		so = &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, so)
	if err != nil {
		cancel()
		t.Fatalf("connect to git-konteks %v: %v\nstderr: %s", args, err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		if s := stderr.String(); s != "" {
			t.Logf("server stderr:\n%s", s)
		}
	})
	return cs
}

// TestMCPOutsideRepository starts the server where desktop clients start
// it (a directory that is no repository), at a -C that does not exist and
// with --repo at a non-repository: it keeps serving, and every tool says
// what is wrong and what to do.
func TestMCPOutsideRepository(t *testing.T) {
	t.Parallel()
	plain := t.TempDir()
	missing := filepath.Join(plain, "no", "such", "dir")
	for _, args := range [][]string{{"mcp"}, {"-C", missing, "mcp"}, {"mcp", "--repo", plain}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cs := startMCP(t, plain, args, nil)
			for tool, a := range map[string]map[string]any{
				mcp.ToolRecall: {"task": "store"}, mcp.ToolStatus: nil, mcp.ToolRefresh: nil, mcp.ToolMemories: nil,
				mcp.ToolRemember: {"text": "a perfectly fine note to keep"}, mcp.ToolSkills: nil, mcp.ToolOverview: nil,
			} {
				text, isErr := tryMCP(t, cs, tool, a, nil)
				if !isErr || !strings.Contains(text, "not a git repository") || !strings.Contains(text, "--repo") {
					t.Errorf("%s outside a repository: error %v, %q", tool, isErr, text)
				}
			}
			if _, err := cs.ListResources(context.Background(), nil); err != nil {
				t.Errorf("resources/list outside a repository: %v", err)
			}
			if _, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: mcp.ResourceProject}); err == nil ||
				!strings.Contains(err.Error(), "not a git repository") {
				t.Errorf("read %s outside a repository: %v", mcp.ResourceProject, err)
			}
			// Still serving.
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Fatalf("server died: %v", err)
			}
		})
	}
}

// TestMCPRoots starts the server outside any repository, as desktop
// clients do; the client's roots name the repository, and the server
// serves it.
func TestMCPRoots(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	run(t, r.Dir, "extract")
	cs := startMCP(t, t.TempDir(), []string{"mcp"}, nil,
		&sdk.Root{URI: "file://" + t.TempDir(), Name: "not a repository"},
		&sdk.Root{URI: (&url.URL{Scheme: "file", Path: r.Dir}).String(), Name: "project"})
	var rc mcp.RecallOutput
	callMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "get the value stored for a key"}, &rc)
	if len(rc.Hits) == 0 || rc.Hits[0].Path != "internal/store/store.go" {
		t.Fatalf("recall through roots: %+v", rc.Hits)
	}
	var st mcp.StatusOutput
	callMCP(t, cs, mcp.ToolStatus, nil, &st)
	if st.Repository != r.Dir {
		t.Fatalf("status repository %q, want %q", st.Repository, r.Dir)
	}
}

// TestMCPEmptyRepository: a repository without a commit, then one with a
// commit but no memory yet: each tool says what to do next.
func TestMCPEmptyRepository(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	cs := startMCP(t, r.Dir, []string{"mcp"}, nil)
	for tool, a := range map[string]map[string]any{
		mcp.ToolRecall: {"task": "store"}, mcp.ToolContext: {"task": "store"}, mcp.ToolShow: {"path": "a.go"},
	} {
		if text, isErr := tryMCP(t, cs, tool, a, nil); !isErr || !strings.Contains(text, "no commit") {
			t.Errorf("%s in an empty repository: %v %q", tool, isErr, text)
		}
	}
	if text, isErr := tryMCP(t, cs, mcp.ToolRefresh, nil, nil); !isErr || !strings.Contains(text, "commit something first") {
		t.Errorf("refresh in an empty repository: %v %q", isErr, text)
	}
	var st mcp.StatusOutput
	callMCP(t, cs, mcp.ToolStatus, nil, &st)
	r.Write("README.md", "# demo\n\nA demo.\n")
	r.Commit("first")
	text, isErr := tryMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "demo"}, nil)
	if !isErr || !strings.Contains(text, "no memory yet — call refresh or run `git konteks extract`") {
		t.Errorf("recall without memory: %v %q", isErr, text)
	}
	callMCP(t, cs, mcp.ToolRefresh, nil, nil)
	// A task nothing matches says so, with the weak label, and no hit.
	var rc mcp.RecallOutput
	text = callMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "rotate signing keys"}, &rc)
	if len(rc.Hits) != 0 || rc.Evidence.Strength != recall.Weak || !rc.Evidence.NoMatch || !strings.Contains(text, recall.NoGoodMatch) {
		t.Fatalf("recall of something memory lacks: %+v\n%s", rc, text)
	}
	var cx mcp.ContextOutput
	text = callMCP(t, cs, mcp.ToolContext, map[string]any{"task": "rotate signing keys"}, &cx)
	if len(cx.Sections) != 0 || cx.Evidence.Strength != recall.Weak || !strings.Contains(text, recall.NoGoodMatch) {
		t.Fatalf("context of something memory lacks: %+v\n%s", cx, text)
	}
}

// TestMCPBadArguments gives every kind of wrong argument; each is a tool
// error in words, naming the argument and what it should be.
func TestMCPBadArguments(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	run(t, r.Dir, "extract")
	cs := startMCP(t, r.Dir, []string{"mcp"}, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcp.ToolRecall, map[string]any{"task": "x", "limit": "abc"}, `limit must be an integer from 1 to 50, not the string "abc"`},
		{mcp.ToolRecall, map[string]any{"task": "x", "limit": -3}, "limit must be an integer from 1 to 50, not -3"},
		{mcp.ToolRecall, map[string]any{"task": "x", "limit": 500}, "limit must be an integer from 1 to 50, not 500"},
		{mcp.ToolRecall, map[string]any{"task": "x", "limit": 2.5}, "limit must be an integer from 1 to 50, not the number 2.5"},
		{mcp.ToolRecall, map[string]any{"task": 42}, "task must be a string (the task or question, in your own words), not the number 42"},
		{mcp.ToolRecall, map[string]any{}, "task is required: the task or question, in your own words"},
		{mcp.ToolRecall, map[string]any{"task": "x", "mode": "fast"}, `mode must be one of hybrid, lexical, vector, not "fast"`},
		{mcp.ToolRecall, map[string]any{"task": "x", "limt": 3}, `unknown argument "limt": recall takes task (required), files, limit, mode, path, per_file, tests`},
		{mcp.ToolMemories, map[string]any{"all": "yes"}, `all must be true or false, not the string "yes"`},
		{mcp.ToolRemember, map[string]any{"text": "a fine sentence to remember", "tags": "release"}, `tags must be a list of strings, e.g. ["a", "b"], not the string "release"`},
		{mcp.ToolRemember, map[string]any{"text": "a fine sentence to remember", "paths": []any{"a.go", 7}}, "paths must be a list of strings: item 2 is the number 7"},
		{mcp.ToolContext, map[string]any{"task": "x", "budget": 5}, "budget must be an integer from 100 to 32000, not 5"},
		{mcp.ToolStatus, map[string]any{"verbose": true}, `unknown argument "verbose": status takes no arguments`},
		{mcp.ToolShow, map[string]any{"path": []any{"a"}}, "path must be a string"},
	} {
		text, isErr := tryMCP(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s %v:\n got %v %q\nwant %q", c.tool, c.args, isErr, text, c.want)
		}
		if strings.Contains(text, "validating") || strings.Contains(text, "reflect") {
			t.Errorf("%s %v: validator internals in %q", c.tool, c.args, text)
		}
	}
	// Nulls are arguments left out; numbers and booleans written as
	// strings (as the inspector's command line sends them) are taken.
	callMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "store", "limit": nil, "mode": nil}, nil)
	var rc mcp.RecallOutput
	callMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "get the value stored for a key", "limit": "2"}, &rc)
	if len(rc.Hits) != 2 {
		t.Fatalf("limit \"2\": %d hits", len(rc.Hits))
	}
	callMCP(t, cs, mcp.ToolMemories, map[string]any{"all": "true"}, nil)
}

// progressLog collects progress notifications.
type progressLog struct {
	mu   sync.Mutex
	msgs []string
	seen chan struct{}
	once sync.Once
}

func newProgressLog() *progressLog { return &progressLog{seen: make(chan struct{})} }

func (p *progressLog) handler(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	p.mu.Lock()
	p.msgs = append(p.msgs, req.Params.Message)
	p.mu.Unlock()
	p.once.Do(func() { close(p.seen) })
}

func (p *progressLog) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.msgs...)
}

// TestMCPColdIndexProgress: memory appears while the server runs (an
// extraction from the command line), so the first recall builds the index
// and the client, which gave a progress token, hears of it.
func TestMCPColdIndexProgress(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	pl := newProgressLog()
	cs := startMCP(t, r.Dir, []string{"mcp"}, &sdk.ClientOptions{ProgressNotificationHandler: pl.handler})
	callMCP(t, cs, mcp.ToolStatus, nil, nil)
	run(t, r.Dir, "extract")
	// extract returns with the index built; a clone that fetched memory,
	// or whose cache was deleted, builds it cold at its first recall.
	if err := os.RemoveAll(filepath.Join(r.Dir, ".git", "konteks", "index")); err != nil {
		t.Fatal(err)
	}
	p := &sdk.CallToolParams{Name: mcp.ToolRecall, Arguments: map[string]any{"task": "get the value stored for a key"}}
	p.SetProgressToken("cold-recall")
	res, err := cs.CallTool(context.Background(), p)
	if err != nil || res.IsError {
		t.Fatalf("recall: %v %+v", err, res)
	}
	// Notifications are sent before the answer.
	msgs := pl.all()
	if len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), "building the search index") {
		t.Fatalf("progress of the cold build: %q", msgs)
	}
	var out mcp.RecallOutput
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	if out.Memory.Index != "build" || out.Evidence.Strength != recall.Strong {
		t.Fatalf("recall after a cold build: index %q, evidence %+v", out.Memory.Index, out.Evidence)
	}
}

// TestMCPCancel cancels a refresh of a large repository once it has
// reported progress: the call ends, memory is not written, and the server
// serves on.
func TestMCPCancel(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	for i := range 1500 {
		r.Write(fmt.Sprintf("pkg%02d/file%04d.go", i%30, i), fmt.Sprintf("package pkg%02d\n\n// F%d does thing %d.\nfunc F%d(a, b int) int {\n\treturn a*%d + b\n}\n", i%30, i, i, i, i))
	}
	r.Commit("many files")
	pl := newProgressLog()
	cs := startMCP(t, r.Dir, []string{"mcp"}, &sdk.ClientOptions{ProgressNotificationHandler: pl.handler})
	ctx, cancel := context.WithCancel(context.Background())
	p := &sdk.CallToolParams{Name: mcp.ToolRefresh, Arguments: map[string]any{}}
	p.SetProgressToken("refresh")
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, p)
		done <- err
	}()
	select {
	case <-pl.seen:
	case err := <-done:
		t.Fatalf("refresh ended before any progress: %v", err)
	case <-time.After(scaled(time.Minute)):
		t.Fatal("no progress notification from refresh")
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("cancelled refresh returned no error")
	}
	// The server stops the extraction and lets go of its lock: a new
	// refresh finishes (it may wait while the cancelled one winds down,
	// never for good), and it is the one that writes memory — the
	// cancelled one wrote nothing, so memory is one commit, made by a
	// refresh that found nothing there. Nothing here depends on how long
	// the cancelled extraction takes to stop.
	p = &sdk.CallToolParams{Name: mcp.ToolRefresh, Arguments: map[string]any{}}
	p.SetProgressToken("refresh-again")
	ctx2, cancel2 := context.WithTimeout(context.Background(), scaled(2*time.Minute))
	defer cancel2()
	res, err := cs.CallTool(ctx2, p)
	if err != nil || res.IsError {
		t.Fatalf("refresh after a cancelled one: %v %+v", err, res)
	}
	var again mcp.RefreshOutput
	if b, err := json.Marshal(res.StructuredContent); err != nil || json.Unmarshal(b, &again) != nil {
		t.Fatalf("refresh output: %v %+v", err, res.StructuredContent)
	}
	if again.UpToDate || again.Previous != "" {
		t.Fatalf("the cancelled refresh wrote memory: the next one found %+v", again)
	}
	if n, err := exec.Command("git", "-C", r.Dir, "rev-list", "--count", "refs/konteks").Output(); err != nil || strings.TrimSpace(string(n)) != "1" {
		t.Fatalf("memory after a cancelled and a finished refresh: %s commits (%v)", n, err)
	}
}

// TestMCPResources lists and reads every kind of resource, and hears of
// changes when memory moves.
func TestMCPResources(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	run(t, r.Dir, "extract")
	var mu sync.Mutex
	updated, listChanged := map[string]int{}, 0
	cs := startMCP(t, r.Dir, []string{"mcp"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			mu.Lock()
			updated[req.Params.URI]++
			mu.Unlock()
		},
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			mu.Lock()
			listChanged++
			mu.Unlock()
		},
	})
	ctx := context.Background()
	if init := cs.InitializeResult(); init.Capabilities.Resources == nil || !init.Capabilities.Resources.Subscribe || !init.Capabilities.Resources.ListChanged {
		t.Fatalf("resource capabilities %+v", init.Capabilities.Resources)
	}
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var templates []string
	for _, rt := range tl.ResourceTemplates {
		templates = append(templates, rt.URITemplate)
	}
	for _, want := range []string{mcp.TemplateDir, mcp.TemplateFile, mcp.TemplateSkill} {
		if !strings.Contains(strings.Join(templates, " "), want) {
			t.Errorf("templates %v lack %s", templates, want)
		}
	}
	listed := func() map[string]bool {
		t.Helper()
		m := map[string]bool{}
		for res, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			m[res.URI] = true
		}
		return m
	}
	// The list is synced in the background after the start.
	var got map[string]bool
	for deadline := time.Now().Add(scaled(30 * time.Second)); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got = listed(); got[mcp.DirURI("internal/store")] {
			break
		}
	}
	for _, want := range []string{mcp.ResourceProject, mcp.DirURI(""), mcp.DirURI("internal/store")} {
		if !got[want] {
			t.Errorf("resources/list lacks %s: %v", want, got)
		}
	}
	read := func(uri string) string {
		t.Helper()
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri {
			t.Fatalf("read %s: %+v", uri, res.Contents)
		}
		return res.Contents[0].Text
	}
	if text := read(mcp.ResourceProject); !strings.Contains(text, "## Project") || !strings.Contains(text, "memory: describes commit") {
		t.Errorf("project resource:\n%s", text)
	}
	if text := read(mcp.DirURI("internal/store")); !strings.Contains(text, "internal/store") {
		t.Errorf("dir resource:\n%s", text)
	}
	if text := read(mcp.FileURI("internal/store/store.go")); !strings.Contains(text, "Store.Get") {
		t.Errorf("file resource:\n%s", text)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: mcp.FileURI("no/such.go")}); err == nil || !strings.Contains(err.Error(), "not in memory") {
		t.Errorf("read a missing file record: %v", err)
	}

	// A skill added and a memory saved move refs/konteks: the list grows
	// (list_changed) and the subscribed project resource is updated.
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: mcp.ResourceProject}); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(t.TempDir(), "SKILL.md")
	os.WriteFile(skill, []byte("---\nname: deploy\ndescription: Release the app with scripts/deploy.sh\n---\n\n# Deploy\n\nRun scripts/deploy.sh from a clean tree.\n"), 0o644)
	run(t, r.Dir, "skill", "add", skill)
	for deadline := time.Now().Add(scaled(30 * time.Second)); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		mu.Lock()
		ok := updated[mcp.ResourceProject] > 0 && listChanged > 0
		mu.Unlock()
		if ok && listed()[mcp.SkillURI("deploy")] {
			break
		}
	}
	mu.Lock()
	if updated[mcp.ResourceProject] == 0 || listChanged == 0 {
		t.Errorf("after memory moved: updated %v, list changed %d times", updated, listChanged)
	}
	mu.Unlock()
	if text := read(mcp.SkillURI("deploy")); !strings.Contains(text, "Run scripts/deploy.sh") {
		t.Errorf("skill resource:\n%s", text)
	}

	// Skills are recalled like memories.
	var rc mcp.RecallOutput
	text := callMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "how do I release and deploy the app"}, &rc)
	found := false
	for _, m := range rc.Memories {
		found = found || m.Type == "skill" && m.Subject == "deploy"
	}
	if !found || !strings.Contains(text, "[skill deploy]") {
		t.Fatalf("recall does not find the skill: %+v\n%s", rc.Memories, text)
	}
	var cx mcp.ContextOutput
	if text := callMCP(t, cs, mcp.ToolContext, map[string]any{"task": "release and deploy the app"}, &cx); !strings.Contains(text, "skill deploy") {
		t.Fatalf("context does not bring the skill:\n%s", text)
	}
	out := run(t, r.Dir, "recall", "release and deploy the app")
	if !strings.Contains(out, "skill:deploy") || !strings.Contains(out, "evidence: ") {
		t.Fatalf("CLI recall:\n%s", out)
	}
}

// TestMCPHTTP serves over streamable HTTP on loopback with a bearer token:
// without it a request is refused, with it the SDK client works; a
// non-loopback address is refused unless asked for.
func TestMCPHTTP(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	run(t, r.Dir, "extract")
	cmd := exec.Command(binary, "mcp", "--http", "127.0.0.1:0")
	cmd.Dir = r.Dir
	cmd.Env = append(testgit.Env(), mcp.TokenEnv+"=s3cret-token")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`at (http://\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var endpoint string
	select {
	case endpoint = <-addr:
	case <-time.After(scaled(time.Minute)):
		t.Fatal("the HTTP server did not say where it listens")
	}
	if !strings.HasSuffix(endpoint, mcp.HTTPPath) {
		t.Fatalf("endpoint %s", endpoint)
	}
	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without a token: %s %s", resp.Status, body)
	}
	hc := &http.Client{Transport: bearerTransport{"s3cret-token"}}
	client := sdk.NewClient(&sdk.Implementation{Name: "konteks-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	defer cs.Close()
	var rc mcp.RecallOutput
	callMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "get the value stored for a key"}, &rc)
	if len(rc.Hits) == 0 || rc.Hits[0].Path != "internal/store/store.go" {
		t.Fatalf("recall over HTTP: %+v", rc.Hits)
	}
	if text, isErr := tryMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "x", "limit": "abc"}, nil); !isErr || !strings.Contains(text, "limit must be") {
		t.Fatalf("bad argument over HTTP: %v %q", isErr, text)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: mcp.ResourceProject}); err != nil {
		t.Fatalf("resource over HTTP: %v", err)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--http", "0.0.0.0:0"}, "not a loopback address"},
		{[]string{"mcp", "--http", "0.0.0.0:0", "--allow-remote"}, "needs a bearer token"},
		{[]string{"mcp", "--http", "nonsense"}, "want HOST:PORT"},
	} {
		if _, errOut, err := tryRun(r.Dir, nil, c.args...); err == nil || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: %v %q", c.args, err, errOut)
		}
	}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(req)
}
