package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/mcp"
	"github.com/konteks/git-konteks/recall"
	"github.com/konteks/git-konteks/secret"
	"github.com/konteks/git-konteks/session"
)

// claudeTranscript writes a Claude Code transcript of lines (role, then
// content) to a file and returns its path.
type transcript struct {
	lines []string
	n     int
}

func (tr *transcript) add(typ string, content any) {
	tr.n++
	b, _ := json.Marshal(map[string]any{"type": typ, "sessionId": "sess-cred", "cwd": "/home/dev/shop", "uuid": fmt.Sprint(tr.n),
		"timestamp": fmt.Sprintf("2026-03-02T09:%02d:%02d.000Z", tr.n/60, tr.n%60), "message": map[string]any{"role": typ, "content": content}})
	tr.lines = append(tr.lines, string(b))
}

func (tr *transcript) call(cmd, out string, failed bool) {
	id := fmt.Sprint("toolu_", tr.n)
	tr.add("assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}})
	tr.add("user", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": failed}})
}

func (tr *transcript) edit(path string) {
	id := fmt.Sprint("toolu_", tr.n)
	tr.add("assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Edit", "input": map[string]any{"file_path": path}}})
	tr.add("user", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "updated"}})
}

func (tr *transcript) write(t *testing.T, dir, name string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Join(tr.lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runStdin(t *testing.T, dir, stdin string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = testgit.Env()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// TestSessionNoCredentialReachesMemory plants every sample credential in
// transcripts — in the person's constraints, the commands run, the errors
// met and the agent's words — ingests them (the raw conversation kept
// too) and finds none in any object of memory.
func TestSessionNoCredentialReachesMemory(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	r.Write("deploy/deploy.sh", "#!/bin/sh\nexit 0\n")
	r.Commit("deploy script")
	tmp := t.TempDir()
	samples := secret.Samples()
	var all []string
	for _, s := range samples {
		all = append(all, needles(t, s)...)
	}
	const per = 12
	ingested := 0
	for i := 0; i < len(samples); i += per {
		tr := &transcript{}
		var says []string
		for _, s := range samples[i:min(i+per, len(samples))] {
			says = append(says, "Always deploy with "+s.Text+" as the key.")
		}
		tr.add("user", "Fix the deploy script for the registry. "+strings.Join(says, " "))
		s := samples[i]
		one := strings.ReplaceAll(s.Text, "\n", " ")
		tr.add("assistant", "I'll use the key "+s.Text+" for the registry.")
		tr.add("user", "yes, go ahead")
		tr.call("DEPLOY_KEY='"+one+"' make test", "error: registry refused the key "+s.Text, true)
		tr.edit("/home/dev/shop/deploy/deploy.sh")
		tr.call("DEPLOY_KEY='"+one+"' make test", "ok "+s.Text, false)
		tr.add("assistant", "Done: the deploy uses "+s.Text+" now.")
		p := tr.write(t, tmp, fmt.Sprintf("s%d.jsonl", i))
		out, errOut, err := runStdin(t, r.Dir, "", "session", "ingest", "--keep-raw", "--json", p)
		if err != nil {
			t.Fatalf("ingest %s: %v\n%s", p, err, errOut)
		}
		var res session.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if res.New == 0 || res.Redacted == 0 || res.Record.Record.Raw == "" {
			t.Errorf("transcript %d: %d new, %d redacted, raw %d bytes", i, res.New, res.Redacted, len(res.Record.Record.Raw))
		}
		ingested++
	}
	if hits := memoryHits(t, r, all); len(hits) > 0 {
		t.Errorf("%d credentials reached memory from %d transcripts:\n%s", len(hits), ingested, strings.Join(hits, "\n"))
	}
	// The scan sees what memory holds: the task and the case.
	if hits := memoryHits(t, r, []string{"Fix the deploy script for the registry", "registry refused the key"}); len(hits) < 2 {
		t.Errorf("the scan misses ordinary text: %v", hits)
	}
}

// claudeSession is a repository with a committed client package and the
// path (and text) of a real Claude Code transcript of a session in it
// (session/testdata/claude-code.jsonl, moved to the repository).
func claudeSession(t *testing.T) (*testgit.Repo, string, string) {
	t.Helper()
	r := testgit.New(t)
	r.WriteFiles(map[string]string{"client/http.go": "package client\n\nfunc Do() error { return nil }\n", "client/retry.go": "package client\n"})
	r.Commit("client")
	fixture, err := os.ReadFile(filepath.Join("..", "..", "session", "testdata", "claude-code.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tr := strings.ReplaceAll(string(fixture), "/home/dev/shop", r.Dir)
	p := filepath.Join(t.TempDir(), "5f0c2b9e.jsonl")
	if err := os.WriteFile(p, []byte(tr), 0o644); err != nil {
		t.Fatal(err)
	}
	return r, p, tr
}

// TestSessionIngestCLI: a file, stdin and a hook payload; the second
// ingestion of the same transcript writes nothing; list and show; a
// hostile input changes nothing; the setting that turns it off.
func TestSessionIngestCLI(t *testing.T) {
	t.Parallel()
	r, p, tr := claudeSession(t)
	out := run(t, r.Dir, "session", "ingest", "--agent", "claude-code", p)
	if !strings.HasPrefix(out, "ingested claude-code:5f0c2b9e-1111-4a2b-9c3d-0000000000aa: 5 memories") {
		t.Errorf("ingest:\n%s", out)
	}
	tip := r.Git("rev-parse", "refs/konteks")
	// Again, by a hook payload on stdin: nothing new.
	payload := `{"session_id":"5f0c2b9e","transcript_path":"` + p + `","cwd":"` + r.Dir + `","hook_event_name":"SessionEnd","reason":"exit"}`
	out, errOut, err := runStdin(t, r.Dir, payload, "session", "ingest")
	if err != nil || !strings.Contains(out, "already ingested: nothing new") {
		t.Errorf("hook payload: %v %s %s", err, out, errOut)
	}
	// And the transcript itself on stdin.
	if out, _, err := runStdin(t, r.Dir, tr, "session", "ingest", "-"); err != nil || !strings.Contains(out, "nothing new") {
		t.Errorf("stdin: %v %s", err, out)
	}
	if now := r.Git("rev-parse", "refs/konteks"); now != tip {
		t.Errorf("a second ingestion moved memory: %s -> %s", tip, now)
	}
	list := run(t, r.Dir, "session", "list")
	if !strings.Contains(list, "claude-code  Add retry with backoff") || !strings.Contains(list, "5 memories") {
		t.Errorf("session list:\n%s", list)
	}
	id := strings.Fields(list)[0]
	show := run(t, r.Dir, "session", "show", id)
	for _, want := range []string{"task:     Add retry with backoff", "files:    client/retry.go, client/http.go", "constraint Never use time.Sleep in tests",
		"case       `go test ./client/...` failed with: client/http_test.go:42:9: undefined: backoff.Next"} {
		if !strings.Contains(show, want) {
			t.Errorf("session show lacks %q:\n%s", want, show)
		}
	}
	mems := run(t, r.Dir, "memories", "--kind", "constraint")
	if !strings.Contains(mems, "Always run gofmt before committing") {
		t.Errorf("memories:\n%s", mems)
	}

	// Hostile input: an error that says what is wrong, and memory unchanged.
	for name, in := range map[string]string{"binary": "\x00\x01\x02\x03", "malformed": "{\"type\":\"user\",\"sessionId\":\"x\",\"message\":{\"role\":\"user\",\"content\":\"a b c\"}}\n{oops\n{}\n"} {
		_, errOut, err := runStdin(t, r.Dir, in, "session", "ingest", "--agent", "claude-code")
		if err == nil || !strings.Contains(errOut, "nothing saved") {
			t.Errorf("%s: %v %s", name, err, errOut)
		}
	}
	if now := r.Git("rev-parse", "refs/konteks"); now != tip {
		t.Errorf("hostile input moved memory")
	}

	// Off in any of git's spellings of false.
	for _, off := range []string{"false", "Off", "NO", "0"} {
		r.Git("config", "konteks.sessions.enabled", off)
		if out := run(t, r.Dir, "session", "ingest", p); !strings.Contains(out, "off") {
			t.Errorf("disabled (%s): %s", off, out)
		}
		if now := r.Git("rev-parse", "refs/konteks"); now != tip {
			t.Errorf("ingestion disabled with %q moved memory", off)
		}
	}
}

type verifyJSON struct {
	Commit   string `json:"commit"`
	Memories []struct {
		ID        string            `json:"id"`
		Status    string            `json:"status"`
		Freshness durable.Freshness `json:"freshness"`
	} `json:"memories"`
}

func verify(t *testing.T, dir string) map[string]durable.Freshness {
	t.Helper()
	var v verifyJSON
	if err := json.Unmarshal([]byte(run(t, dir, "memories", "verify", "--all", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	out := map[string]durable.Freshness{}
	for _, m := range v.Memories {
		out[m.ID] = m.Freshness
	}
	return out
}

// TestMemoryCitesFunction: a memory citing a function stays fresh while
// other code in its file changes, is stale (naming the commit) once the
// function changes, fresh again once confirmed, and obsolete when the
// function is gone; recall says so and ranks it lower.
func TestMemoryCitesFunction(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	r.Git("config", "konteks.embed.provider", "none")
	src := "package parser\n\n// Parse reads a document.\nfunc Parse(b []byte) int {\n\treturn len(b)\n}\n\n// Other does something else.\nfunc Other() int {\n\treturn 1\n}\n"
	r.Write("parser/parse.go", src)
	r.Commit("parser")
	extractJSON(t, r.Dir)
	var saved savedJSON
	if err := json.Unmarshal([]byte(run(t, r.Dir, "remember", "--json", "--kind", "constraint", "`Parse` in parser/parse.go must stay allocation-free: the hot loop calls it for every byte")), &saved); err != nil {
		t.Fatal(err)
	}
	id := saved.Entry.ID
	if c := saved.Entry.Cites; len(c) != 1 || c[0].Path != "parser/parse.go" || c[0].Symbol != "Parse" || c[0].Start != 3 && c[0].Start != 4 || c[0].Hash == "" {
		t.Fatalf("cites %+v", saved.Entry.Cites)
	}
	if f := verify(t, r.Dir)[id]; f.Status != durable.Fresh {
		t.Fatalf("fresh memory: %+v", f)
	}
	// Other code in the file changes: still fresh.
	r.Write("parser/parse.go", strings.Replace(src, "return 1", "return 2", 1))
	r.Commit("other")
	extractJSON(t, r.Dir)
	if f := verify(t, r.Dir)[id]; f.Status != durable.Fresh {
		t.Fatalf("after a change elsewhere in the file: %+v", f)
	}
	// The function changes: stale, with the commit.
	r.Write("parser/parse.go", strings.Replace(strings.Replace(src, "return 1", "return 2", 1), "return len(b)", "return len(b) + 1", 1))
	change := r.Commit("parse counts one more")
	extractJSON(t, r.Dir)
	f := verify(t, r.Dir)[id]
	if f.Status != durable.Stale || f.ChangedIn != change || !strings.Contains(f.Why, "Parse in parser/parse.go changed") {
		t.Fatalf("after the function changed: %+v (change %s)", f, change)
	}
	var rec recall.Response
	if err := json.Unmarshal([]byte(run(t, r.Dir, "recall", "--json", "is Parse allocation-free in the hot loop")), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Memories) == 0 || rec.Memories[0].ID != id || rec.Memories[0].Freshness == nil || rec.Memories[0].Freshness.Status != durable.Stale {
		t.Fatalf("recall memories: %+v", rec.Memories)
	}
	if out := run(t, r.Dir, "recall", "is Parse allocation-free in the hot loop"); !strings.Contains(out, "[stale: Parse in parser/parse.go changed since the memory was saved") {
		t.Errorf("recall text does not say the memory is stale:\n%s", out)
	}
	// A context pack ends with the same memory, marked stale, on the
	// command line and in the MCP server alike.
	const staleNote = "[stale: Parse in parser/parse.go changed since the memory was saved"
	var pack recall.Pack
	if err := json.Unmarshal([]byte(run(t, r.Dir, "context", "--json", "is Parse allocation-free in the hot loop")), &pack); err != nil {
		t.Fatal(err)
	}
	if len(pack.Memories) == 0 || pack.Memories[0].ID != id || pack.Memories[0].Freshness == nil || pack.Memories[0].Freshness.Status != durable.Stale {
		t.Fatalf("context memories: %+v", pack.Memories)
	}
	if out := run(t, r.Dir, "context", "is Parse allocation-free in the hot loop"); !strings.Contains(out, "## Saved memories") || !strings.Contains(out, staleNote) {
		t.Errorf("context text does not end with the stale memory:\n%s", out)
	}
	var cx mcp.ContextOutput
	text := callMCP(t, mcpClient(t, r.Dir), mcp.ToolContext, map[string]any{"task": "is Parse allocation-free in the hot loop"}, &cx)
	if len(cx.Memories) == 0 || cx.Memories[0].ID != id || !strings.Contains(text, staleNote) {
		t.Errorf("MCP context does not mark the memory stale: %+v\n%s", cx.Memories, text)
	}
	// Confirmed: the new entry is fresh, the old one superseded.
	var conf durable.Item
	if err := json.Unmarshal([]byte(run(t, r.Dir, "memories", "confirm", "--json", id[:8])), &conf); err != nil {
		t.Fatal(err)
	}
	v := verify(t, r.Dir)
	if conf.Supersedes != id || v[conf.ID].Status != durable.Fresh {
		t.Fatalf("after confirm: %+v, %+v", conf, v)
	}
	if _, still := v[id]; still {
		t.Errorf("the superseded memory is still verified as live")
	}
	// The function is removed: obsolete.
	r.Write("parser/parse.go", "package parser\n\n// Other does something else.\nfunc Other() int {\n\treturn 2\n}\n")
	r.Commit("drop Parse")
	extractJSON(t, r.Dir)
	if f := verify(t, r.Dir)[conf.ID]; f.Status != durable.Obsolete || !strings.Contains(f.Why, "gone") {
		t.Fatalf("after the function was removed: %+v", f)
	}
}

// TestTeamLearnsFromSession: across three clones and a bare remote, a
// constraint one person stated in an agent session is returned by a
// teammate's recall for a related task after a plain git fetch.
func TestTeamLearnsFromSession(t *testing.T) {
	t.Parallel()
	remote, _ := teamRemote(t)
	clones := map[string]*testgit.Repo{}
	for _, name := range []string{"ana", "ben", "cai"} {
		c := cloneOf(t, remote, name)
		c.Git("config", "konteks.embed.provider", "none")
		run(t, c.Dir, "init")
		clones[name] = c
	}
	ana, ben, cai := clones["ana"], clones["ben"], clones["cai"]
	fixture, err := os.ReadFile(filepath.Join("..", "..", "session", "testdata", "codex.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(fixture), "/home/dev/shop", ana.Dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := tryRun(ana.Dir, []string{"GIT_AUTHOR_NAME=ana", "GIT_AUTHOR_EMAIL=ana@example.invalid"}, "session", "ingest", p); err != nil {
		t.Fatalf("ana's ingest: %v %s", err, errOut)
	}
	run(t, ana.Dir, "push")
	// Cai has a session of their own, pushed after fetching Ana's.
	run(t, cai.Dir, "fetch")
	legacy, err := filepath.Abs(filepath.Join("..", "..", "session", "testdata", "codex-legacy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	run(t, cai.Dir, "session", "ingest", legacy)
	run(t, cai.Dir, "push")

	// Ben: a plain git fetch; the next command that reads memory merges
	// what it brought.
	ben.Git("fetch", "-q", "origin")
	var rec recall.Response
	if err := json.Unmarshal([]byte(run(t, ben.Dir, "recall", "--json", "write a test for the retry timeout without sleeping")), &rec); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range rec.Memories {
		if strings.Contains(m.Text, "Never use time.Sleep in tests") {
			found = true
			if m.Author != "ana <ana@example.invalid>" || m.Kind != "constraint" || !strings.HasPrefix(m.Session, "codex:") {
				t.Errorf("the constraint as ben sees it: %+v", m)
			}
		}
	}
	if !found {
		t.Fatalf("ben's recall does not return ana's constraint: %+v", rec.Memories)
	}
	// And Cai's case, for a task that meets the same error.
	if err := json.Unmarshal([]byte(run(t, ben.Dir, "recall", "--json", "TestUpload fails: upload_test.go:31: unexpected EOF")), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Memories) == 0 || rec.Memories[0].Kind != "case" || !strings.Contains(rec.Memories[0].Text, "upload.go") {
		t.Errorf("the past case is not the first memory for the same error: %+v", rec.Memories)
	}
}

// TestWhySaysWhichSession: a commit an ingested session made points to
// its record, so why and history name the task that produced the line.
func TestWhySaysWhichSession(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	r.Git("config", "konteks.embed.provider", "none")
	r.Write("lib/rate.go", "package lib\n\n// Limit says how many requests a client may send.\nfunc Limit() int { return 10 }\n")
	r.Commit("lib")
	r.Write("lib/rate.go", "package lib\n\n// Limit says how many requests a client may send.\nfunc Limit() int { return 20 }\n")
	h := r.Commit("lib: raise the rate limit to 20")
	lines := []string{
		`{"konteks_session": 1, "agent": "aider", "id": "s-rate-1"}`,
		`{"role": "user", "text": "Raise the rate limit for clients to twenty requests"}`,
		`{"role": "tool", "files": ["lib/rate.go"]}`,
		`{"role": "tool", "command": "git commit -am 'lib: raise the rate limit to 20'", "exit_code": 0, "output": "[main ` + h[:7] + `] lib: raise the rate limit to 20\n 1 file changed"}`,
		`{"role": "assistant", "text": "The limit is 20 now."}`,
	}
	out, errOut, err := runStdin(t, r.Dir, strings.Join(lines, "\n")+"\n", "session", "ingest", "--json")
	if err != nil {
		t.Fatalf("ingest: %v %s", err, errOut)
	}
	var res session.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if c := res.Record.Record.Commits; len(c) != 1 || c[0] != h {
		t.Fatalf("record commits %v, want %s", c, h)
	}
	extractJSON(t, r.Dir)
	why := run(t, r.Dir, "why", "lib/rate.go:4")
	if !strings.Contains(why, "made in a generic:aider session") || !strings.Contains(why, "Raise the rate limit for clients to twenty requests") {
		t.Errorf("why does not name the session:\n%s", why)
	}
	var wj struct {
		Commits []struct {
			Hash    string `json:"commit"`
			Session *struct {
				Record string `json:"record"`
			} `json:"session"`
		} `json:"commits"`
	}
	if err := json.Unmarshal([]byte(run(t, r.Dir, "why", "--json", "lib/rate.go:4")), &wj); err != nil {
		t.Fatal(err)
	}
	if len(wj.Commits) == 0 || wj.Commits[0].Hash != h || wj.Commits[0].Session == nil || wj.Commits[0].Session.Record != res.Record.ID {
		t.Errorf("why --json: %+v", wj)
	}
	if hist := run(t, r.Dir, "history", "raise rate limit"); !strings.Contains(hist, "made in a generic:aider session") {
		t.Errorf("history does not name the session:\n%s", hist)
	}
	// The MCP server's why and history name it too.
	cs := mcpClient(t, r.Dir)
	var mw mcp.WhyOutput
	text := callMCP(t, cs, mcp.ToolWhy, map[string]any{"target": "lib/rate.go:4"}, &mw)
	if len(mw.Commits) == 0 || mw.Commits[0].Session == nil || mw.Commits[0].Session.Record != res.Record.ID || !strings.Contains(text, "made in a generic:aider session") {
		t.Errorf("MCP why does not name the session: %+v\n%s", mw.Commits, text)
	}
	if text := callMCP(t, cs, mcp.ToolHistory, map[string]any{"question": "raise rate limit"}, nil); !strings.Contains(text, "made in a generic:aider session") {
		t.Errorf("MCP history does not name the session:\n%s", text)
	}
}

// TestSessionEndHookIngests: the SessionEnd hook that `hooks install
// --agent NAME` writes into the agent's settings (Claude Code's
// .claude/settings.json, Gemini CLI's .gemini/settings.json), run as the
// agent runs it (sh -c, the hook's JSON payload naming the transcript on
// stdin), ingests the session; run again for the same transcript, it
// adds nothing.
func TestSessionEndHookIngests(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ agent, settings, transcript, format string }{
		{"claude", ".claude/settings.json", "claude-code.jsonl", "claude-code"},
		{"gemini", ".gemini/settings.json", "gemini.json", "gemini"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			r, _, _ := claudeSession(t)
			fixture, err := os.ReadFile(filepath.Join("..", "..", "session", "testdata", c.transcript))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), c.transcript)
			if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(fixture), "/home/dev/shop", r.Dir)), 0o644); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "CODEX_HOME=" + filepath.Join(home, ".codex")}
			if out, errOut, err := tryRun(r.Dir, env, "hooks", "install", "--agent", c.agent); err != nil {
				t.Fatalf("hooks install --agent %s: %v\n%s%s", c.agent, err, out, errOut)
			}
			b, err := os.ReadFile(filepath.Join(r.Dir, c.settings))
			if err != nil {
				t.Fatal(err)
			}
			var settings struct {
				Hooks map[string][]struct {
					Hooks []struct{ Type, Command string }
				}
			}
			if err := json.Unmarshal(b, &settings); err != nil {
				t.Fatalf("%s: %v\n%s", c.settings, err, b)
			}
			var hook string
			for _, m := range settings.Hooks["SessionEnd"] {
				for _, h := range m.Hooks {
					if h.Type == "command" && strings.Contains(h.Command, "session ingest") {
						hook = h.Command
					}
				}
			}
			if hook == "" {
				t.Fatalf("no SessionEnd hook that ingests the session:\n%s", b)
			}
			payload := `{"session_id":"5f0c2b9e","transcript_path":"` + p + `","cwd":"` + r.Dir + `","hook_event_name":"SessionEnd","reason":"exit"}`
			runHook := func() {
				t.Helper()
				cmd := exec.Command("sh", "-c", hook)
				cmd.Dir = r.Dir
				cmd.Env = append(testgit.Env(), env...)
				cmd.Stdin = strings.NewReader(payload)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("hook %q: %v\n%s", hook, err, out)
				}
			}
			runHook()
			if list := run(t, r.Dir, "session", "list"); !strings.Contains(strings.Join(strings.Fields(list), " "), " "+c.format+" Add retry with backoff") {
				t.Fatalf("the hook ingested no session:\n%s", list)
			}
			if mems := run(t, r.Dir, "memories", "--kind", "constraint"); !strings.Contains(mems, "Never use time.Sleep in tests") {
				t.Errorf("the session's constraint is not in memory:\n%s", mems)
			}
			tip := r.Git("rev-parse", "refs/konteks")
			runHook()
			if now := r.Git("rev-parse", "refs/konteks"); now != tip {
				t.Errorf("the hook run again for the same transcript moved memory: %s -> %s", tip, now)
			}
		})
	}
}

// TestSessionMemoryAuthorship: the memories and the record a session
// yields belong to the person who ingested it; a teammate can neither
// forget nor purge them (and is told how to correct one instead), and
// their author can.
func TestSessionMemoryAuthorship(t *testing.T) {
	t.Parallel()
	r, p, _ := claudeSession(t)
	alice := []string{"GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.invalid", "GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.invalid"}
	if out, errOut, err := tryRun(r.Dir, alice, "session", "ingest", p); err != nil {
		t.Fatalf("ingest as alice: %v\n%s%s", err, out, errOut)
	}
	var constraint durable.Item
	for _, m := range listMemories(t, r.Dir) {
		if strings.Contains(m.Text, "Never use time.Sleep in tests") {
			constraint = m
		}
	}
	if constraint.ID == "" || !strings.Contains(constraint.Author, "alice@example.invalid") {
		t.Fatalf("the session's constraint, by alice: %+v", constraint)
	}
	record := strings.Fields(run(t, r.Dir, "session", "list"))[0]
	tip := r.Git("rev-parse", "refs/konteks")
	for _, id := range []string{constraint.ID, record} {
		for _, args := range [][]string{{"memories", "forget", id, "--reason", "not mine"}, {"memories", "forget", id, "--reason", "not mine", "--purge"}} {
			if _, errOut, err := tryRun(r.Dir, nil, args...); err == nil || !strings.Contains(errOut, "only its author can forget it") || !strings.Contains(errOut, "--supersedes") {
				t.Errorf("a teammate ran %v on alice's session memory: %v %s", args, err, errOut)
			}
		}
	}
	if now := r.Git("rev-parse", "refs/konteks"); now != tip {
		t.Fatalf("refused forgets moved memory: %s -> %s", tip, now)
	}
	if out, errOut, err := tryRun(r.Dir, alice, "memories", "forget", constraint.ID, "--reason", "no longer true"); err != nil {
		t.Fatalf("alice forgets her session's memory: %v\n%s%s", err, out, errOut)
	}
	for _, m := range listMemories(t, r.Dir) {
		if m.ID == constraint.ID {
			t.Errorf("the memory alice forgot is still live: %+v", m)
		}
	}
}
