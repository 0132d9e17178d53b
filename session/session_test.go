package session

import (
	"os"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/secret"
)

func readFixture(t *testing.T, name, agent string) Digest {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dg, err := Read(f, ReadOptions{Agent: agent})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return dg
}

func kinds(dg Digest) map[string][]string {
	out := map[string][]string{}
	for _, m := range dg.Memories {
		out[m.Kind] = append(out[m.Kind], m.Text)
	}
	return out
}

// TestAgents reads one session, as each agent writes it, and finds the
// same task, constraints, decision, case, command, files and commit.
func TestAgents(t *testing.T) {
	for _, tc := range []struct{ file, agent, id string }{
		{"claude-code.jsonl", AgentClaude, "5f0c2b9e-1111-4a2b-9c3d-0000000000aa"},
		{"codex.jsonl", AgentCodex, "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"},
		{"gemini.json", AgentGemini, "477739d0-1b78-4aa7-9116-02d08c952344"},
		{"generic.jsonl", AgentGeneric + ":aider", "s-2026-03-02-01"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dg := readFixture(t, tc.file, "") // detected
			if dg.Meta.Agent != tc.agent || dg.Meta.ID != tc.id || (dg.Meta.Cwd != "/home/dev/shop" && tc.agent != AgentGemini) {
				t.Errorf("meta %+v", dg.Meta)
			}
			if !strings.HasPrefix(dg.Task, "Add retry with backoff to the HTTP client in client/http.go.") {
				t.Errorf("task %q", dg.Task)
			}
			k := kinds(dg)
			cons := strings.Join(k[KindConstraint], "\n")
			if !strings.Contains(cons, "Never use time.Sleep in tests") || !strings.Contains(cons, "we use the fake clock in internal/clock, not the real one") {
				t.Errorf("constraints %q", k[KindConstraint])
			}
			if tc.agent != AgentGeneric+":aider" && !strings.Contains(cons, "Always run gofmt before committing") {
				t.Errorf("constraints %q", k[KindConstraint])
			}
			if len(k[KindDecision]) != 1 || !strings.Contains(k[KindDecision][0], "keep the retry policy in client/retry.go") {
				t.Errorf("decisions %q", k[KindDecision])
			}
			if len(k[KindCase]) != 1 || !strings.Contains(k[KindCase][0], "undefined: backoff.Next") || !strings.Contains(k[KindCase][0], "http.go") {
				t.Errorf("cases %q", k[KindCase])
			}
			if len(k[KindCommand]) != 1 || k[KindCommand][0] != "Test with `go test ./client/...`" {
				t.Errorf("commands %q", k[KindCommand])
			}
			files := strings.Join(dg.Files, " ")
			if !strings.Contains(files, "client/retry.go") || !strings.Contains(files, "client/http.go") {
				t.Errorf("files %q", dg.Files)
			}
			if tc.agent == AgentClaude || tc.agent == AgentCodex {
				if len(dg.CommitRefs) != 1 || dg.CommitRefs[0] != "1a2b3c4" {
					t.Errorf("commits %q", dg.CommitRefs)
				}
			}
			if !strings.HasPrefix(dg.Outcome, "Retry with backoff is in client/retry.go") || dg.Start.IsZero() || !dg.End.After(dg.Start) {
				t.Errorf("outcome %q, span %v..%v", dg.Outcome, dg.Start, dg.End)
			}
			if dg.Failures != 1 || len(dg.Hash) != 64 {
				t.Errorf("failures %d hash %q", dg.Failures, dg.Hash)
			}
		})
	}
}

func TestCodexLegacy(t *testing.T) {
	dg := readFixture(t, "codex-legacy.jsonl", "")
	if dg.Meta.Agent != AgentCodex || dg.Meta.ID != "3f6c8a1e-2b4d-4e6f-8a0b-1c2d3e4f5a6b" {
		t.Errorf("meta %+v", dg.Meta)
	}
	k := kinds(dg)
	if len(k[KindConstraint]) != 1 || k[KindConstraint][0] != "Don't touch the public API." {
		t.Errorf("constraints %q", k[KindConstraint])
	}
	if len(k[KindCase]) != 1 || !strings.Contains(k[KindCase][0], "upload_test.go:31: unexpected EOF") || !strings.Contains(k[KindCase][0], "upload.go") {
		t.Errorf("cases %q", k[KindCase])
	}
	if len(k[KindCommand]) != 1 || k[KindCommand][0] != "Test with `make test`" {
		t.Errorf("commands %q", k[KindCommand])
	}
}

// TestHostile: what is not a transcript gets a clear error.
func TestHostile(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	for name, tc := range map[string]struct{ in, agent, want string }{
		"empty":     {"", "", "empty input"},
		"binary":    {"\x00\x01\x02PK\x03\x04", "", "binary data"},
		"latin1":    {"{\"a\": \"caf\xe9\xe9\xe9\xe9\"}\n", "", "not UTF-8"},
		"not json":  {"hello there\n", "", "does not start with a JSON object"},
		"malformed": {`{"type":"user","sessionId":"x","message":{"role":"user","content":"hi there you"}}` + "\n{\"type\": user}\n" + `{"type":"user","sessionId":"x","message":{"role":"user","content":"and more"}}` + "\n", AgentClaude, "line 2"},
		"deep":      {deep + "\n", AgentClaude, "line 1"},
		"unknown":   {`{"x":1}` + "\n", "", "name the agent"},
		"agent":     {`{"x":1}` + "\n", "cursor", "name the agent"},
		"no events": {`{"type":"summary","summary":"s","leafUuid":"u"}` + "\n", "", "no claude-code messages"},
		"gemini":    {`{"sessionId":"x","messages":[{"type":"user","content":"a b c"}, {"type":` + "\n", AgentGemini, "gemini transcript"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), ReadOptions{Agent: tc.agent})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	// Over the limits.
	big := strings.Repeat(`{"role":"user","text":"the same words again and again"}`+"\n", 2000)
	if _, err := Read(strings.NewReader(big), ReadOptions{Limits: Limits{MaxBytes: 10 << 10, MaxLine: 1 << 10}}); err == nil || !strings.Contains(err.Error(), "over the") {
		t.Errorf("huge transcript: %v", err)
	}
	long := `{"role":"user","text":"` + strings.Repeat("x", 4096) + `"}` + "\n"
	if _, err := Read(strings.NewReader(long), ReadOptions{Limits: Limits{MaxBytes: 1 << 20, MaxLine: 1 << 10}}); err == nil || !strings.Contains(err.Error(), "line limit") {
		t.Errorf("long line: %v", err)
	}
	// A last line cut short (the agent was still writing) is left out.
	cut := `{"role":"user","text":"Fix the build of the docs site please"}` + "\n" + `{"role":"assistant","text":"I w`
	if dg, err := Read(strings.NewReader(cut), ReadOptions{}); err != nil || dg.Task != "Fix the build of the docs site please" {
		t.Errorf("truncated last line: %v %q", err, dg.Task)
	}
}

func TestRules(t *testing.T) {
	for s, want := range map[string]string{
		"Always run the linter before pushing.":            KindConstraint,
		"please never commit generated files":              KindConstraint,
		"We use pnpm, not npm.":                            KindConstraint,
		"Use zerolog instead of logrus for new code.":      KindConstraint,
		"I prefer table-driven tests.":                     KindPreference,
		"Prefer small commits with a message saying why.":  KindPreference,
		"Should we always run the linter?":                 "",
		"The build is slow on my laptop today.":            "",
		"always":                                           "",
		"Do not add dependencies without asking me first.": KindConstraint,
	} {
		m, ok := rule(s)
		if got := map[bool]string{true: m.Kind}[ok]; got != want {
			t.Errorf("rule(%q) = %q, want %q", s, got, want)
		}
	}
	if m, _ := rule("I prefer table-driven tests."); m.Scope != ScopePersonal {
		t.Errorf("a personal preference has scope %q", m.Scope)
	}
}

// TestAgentNames: an alias reads its agent's format; another agent's name
// (one whose hooks send a transcript in a known format) is kept as the
// agent and the format detected.
func TestAgentNames(t *testing.T) {
	if dg := readFixture(t, "claude-code.jsonl", "claude"); dg.Meta.Agent != AgentClaude || dg.Task == "" {
		t.Errorf("alias claude: %+v", dg.Meta)
	}
	if dg := readFixture(t, "codex.jsonl", "Cursor"); dg.Meta.Agent != "cursor" || dg.Task == "" {
		t.Errorf("another agent: %+v", dg.Meta)
	}
}

// TestCredentialCutInHalf: a credential in a failing command's output is
// replaced by its marker before the case's subject is clipped, so no part
// of it survives the cut (a token cut in half is not recognisable).
func TestCredentialCutInHalf(t *testing.T) {
	token := secret.Expand("{a:14}.atlasv1.{w:67}", 11)
	out := `error: registry refused the key token = \"` + token + `\"`
	tr := `{"konteks_session": 1, "agent": "aider", "id": "s-cut", "cwd": "/home/dev/shop"}
{"role": "user", "text": "Fix the deploy script for the registry.", "time": "2026-03-02T09:00:05Z"}
{"role": "tool", "command": "make deploy", "exit_code": 1, "output": "` + out + `", "time": "2026-03-02T09:01:14Z"}
{"role": "tool", "files": ["deploy/deploy.sh"], "time": "2026-03-02T09:01:31Z"}
{"role": "tool", "command": "make deploy", "exit_code": 0, "output": "ok", "time": "2026-03-02T09:01:45Z"}
`
	dg, err := Read(strings.NewReader(tr), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if dg.Redacted != 1 {
		t.Errorf("redacted %d credentials, want 1", dg.Redacted)
	}
	cases := 0
	for _, m := range dg.Memories {
		if m.Kind == KindCase {
			cases++
		}
		if strings.Contains(m.Subject+m.Text, token[:14]) {
			t.Errorf("%s memory holds the token's head: %q / %q", m.Kind, m.Subject, m.Text)
		}
	}
	if cases != 1 {
		t.Errorf("%d cases distilled, want 1: %+v", cases, dg.Memories)
	}
}
