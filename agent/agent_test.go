package agent

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"

	"github.com/konteks/git-konteks/internal/testgit"
)

const testBinary = "/opt/git konteks/bin/git-konteks"

// setup copies testdata/NAME (a repository and a home, each agent's files
// as its documentation shows them) into a temporary directory.
func setup(t *testing.T, name string) (Env, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", name))); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	repo, home := filepath.Join(root, "repo"), filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(repo, ".git"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return Env{Repo: repo, GitDir: filepath.Join(repo, ".git"), Binary: testBinary, Home: home,
		ConfigDir: filepath.Join(home, ".config"), CodexHome: filepath.Join(home, ".codex"),
		LookPath: func(string) (string, error) { return "", os.ErrNotExist }}, root
}

// comments lists the comment lines of a JSONC, TOML or Markdown file.
func comments(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		for _, mark := range []string{"//", "/*", "#"} {
			if i := strings.Index(l, mark); i >= 0 && !strings.Contains(l[:i], `"`) {
				out = append(out, strings.TrimSpace(l[i:]))
				break
			}
		}
	}
	return out
}

// decodeJSONC decodes a JSON or JSONC file.
func decodeJSONC(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	std, err := hujson.Standardize(b)
	if err != nil {
		t.Fatalf("%s: %v\n%s", file, err, b)
	}
	var m map[string]any
	if err := json.Unmarshal(std, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// at walks keys into nested objects.
func at(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var serverArgs = []any{"-C", "REPO", "mcp"}

// wantServer checks the server entry of a JSON MCP file.
func wantServer(t *testing.T, e Env, doc map[string]any, keys []string, want map[string]any) {
	t.Helper()
	got := at(doc, append(keys, ServerName)...)
	w := jsonOf(want)
	w = strings.ReplaceAll(w, `"REPO"`, jsonOf(e.Repo))
	w = strings.ReplaceAll(w, `"BIN"`, jsonOf(e.Binary))
	if jsonOf(got) != w {
		t.Errorf("%s entry:\n got %s\nwant %s", strings.Join(keys, "."), jsonOf(got), w)
	}
}

// hookCommands lists the commands of hooks.EVENT in any style.
func hookCommands(doc map[string]any, event string) []string {
	return commands(at(doc, "hooks", event))
}

func wantHook(t *testing.T, e Env, doc map[string]any, event, tail string) {
	t.Helper()
	want := e.hookCommand(tail)
	if !slices.Contains(hookCommands(doc, event), want) {
		t.Errorf("hooks.%s lacks %q: %s", event, want, jsonOf(at(doc, "hooks", event)))
	}
}

func wantBlock(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Count(s, "<!-- git-konteks:begin") != 1 || strings.Count(s, blockEnd) != 1 || !strings.Contains(s, "call `recall`") {
		t.Errorf("%s has no single recall block:\n%s", file, s)
	}
}

// checks are each agent's documented format, checked on the files
// written (paths relative to the test's root).
var checks = map[string]func(t *testing.T, e Env, root string){
	"claude": func(t *testing.T, e Env, root string) {
		wantServer(t, e, decodeJSONC(t, filepath.Join(root, "repo/.mcp.json")), []string{"mcpServers"},
			map[string]any{"type": "stdio", "command": "BIN", "args": serverArgs})
		s := decodeJSONC(t, filepath.Join(root, "repo/.claude/settings.json"))
		wantHook(t, e, s, "SessionStart", startTail("claude"))
		wantHook(t, e, s, "SessionEnd", stopTail("claude"))
		if len(hookCommands(s, "PostToolUse")) != 1 || at(s, "permissions", "deny") == nil {
			t.Errorf("the settings' own hooks and permissions were lost: %s", jsonOf(s))
		}
		wantBlock(t, filepath.Join(root, "repo/CLAUDE.md"))
	},
	"claude-desktop": func(t *testing.T, e Env, root string) {
		d := decodeJSONC(t, filepath.Join(root, "home/.config/Claude/claude_desktop_config.json"))
		wantServer(t, e, d, []string{"mcpServers"}, map[string]any{"command": "BIN", "args": serverArgs})
		if at(d, "globalShortcut") != "Ctrl+Space" {
			t.Errorf("settings lost: %s", jsonOf(d))
		}
	},
	"codex": func(t *testing.T, e Env, root string) {
		b, err := os.ReadFile(filepath.Join(root, "home/.codex/config.toml"))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := toml.Unmarshal(b, &doc); err != nil {
			t.Fatalf("config.toml is not TOML: %v\n%s", err, b)
		}
		srv := at(doc, "mcp_servers", ServerName)
		if at(srv, "command") != e.Binary || jsonOf(at(srv, "args")) != jsonOf([]string{"-C", e.Repo, "mcp"}) {
			t.Errorf("mcp_servers.%s = %s", ServerName, jsonOf(srv))
		}
		if at(doc, "mcp_servers", "docs", "env", "DOCS_TOKEN_FILE") == nil || at(doc, "profiles", "fast", "model") != "gpt-5-mini" {
			t.Errorf("other tables lost: %s", jsonOf(doc))
		}
		h := decodeJSONC(t, filepath.Join(root, "repo/.codex/hooks.json"))
		wantHook(t, e, h, "SessionStart", startTail("codex"))
		wantHook(t, e, h, "Stop", stopTail("codex"))
		wantBlock(t, filepath.Join(root, "repo/AGENTS.md"))
	},
	"cursor": func(t *testing.T, e Env, root string) {
		wantServer(t, e, decodeJSONC(t, filepath.Join(root, "repo/.cursor/mcp.json")), []string{"mcpServers"},
			map[string]any{"command": "BIN", "args": serverArgs})
		h := decodeJSONC(t, filepath.Join(root, "repo/.cursor/hooks.json"))
		if at(h, "version") != 1.0 || len(hookCommands(h, "afterFileEdit")) != 1 {
			t.Errorf("hooks.json lost its version or hooks: %s", jsonOf(h))
		}
		wantHook(t, e, h, "sessionStart", startTail("cursor"))
		wantHook(t, e, h, "sessionEnd", stopTail("cursor"))
		if el, _ := at(h, "hooks", "sessionStart").([]any); len(el) != 1 || at(el[0], "command") == nil {
			t.Errorf("cursor hooks are flat {command} entries: %s", jsonOf(el))
		}
		wantBlock(t, filepath.Join(root, "repo/AGENTS.md"))
	},
	"vscode": func(t *testing.T, e Env, root string) {
		d := decodeJSONC(t, filepath.Join(root, "repo/.vscode/mcp.json"))
		wantServer(t, e, d, []string{"servers"}, map[string]any{"type": "stdio", "command": "BIN", "args": serverArgs})
		if at(d, "inputs") == nil || at(d, "servers", "Perplexity") == nil {
			t.Errorf("other settings lost: %s", jsonOf(d))
		}
		h := decodeJSONC(t, filepath.Join(root, "repo/.github/hooks/git-konteks.json"))
		if at(h, "version") != 1.0 {
			t.Errorf("hooks file version: %s", jsonOf(h))
		}
		wantHook(t, e, h, "sessionStart", startTail("vscode"))
		wantHook(t, e, h, "sessionEnd", stopTail("vscode"))
		wantBlock(t, filepath.Join(root, "repo/AGENTS.md"))
	},
	"gemini": func(t *testing.T, e Env, root string) {
		s := decodeJSONC(t, filepath.Join(root, "repo/.gemini/settings.json"))
		wantServer(t, e, s, []string{"mcpServers"}, map[string]any{"command": "BIN", "args": serverArgs})
		wantHook(t, e, s, "SessionStart", startTail("gemini"))
		wantHook(t, e, s, "SessionEnd", stopTail("gemini"))
		if at(s, "mcpServers", "pythonTools") == nil || at(s, "model", "name") == nil {
			t.Errorf("settings lost: %s", jsonOf(s))
		}
		wantBlock(t, filepath.Join(root, "repo/GEMINI.md"))
	},
	"zed": func(t *testing.T, e Env, root string) {
		s := decodeJSONC(t, filepath.Join(root, "home/.config/zed/settings.json"))
		wantServer(t, e, s, []string{"context_servers"}, map[string]any{"command": "BIN", "args": serverArgs})
		if at(s, "theme", "dark") != "One Dark" || at(s, "context_servers", "remote-mcp-server") == nil {
			t.Errorf("settings lost: %s", jsonOf(s))
		}
		wantBlock(t, filepath.Join(root, "repo/AGENTS.md"))
	},
	"windsurf": func(t *testing.T, e Env, root string) {
		d := decodeJSONC(t, filepath.Join(root, "home/.codeium/windsurf/mcp_config.json"))
		wantServer(t, e, d, []string{"mcpServers"}, map[string]any{"command": "BIN", "args": serverArgs})
		if at(d, "mcpServers", "figma", "disabled") != true {
			t.Errorf("servers lost: %s", jsonOf(d))
		}
		wantBlock(t, filepath.Join(root, "repo/AGENTS.md"))
	},
	"opencode": func(t *testing.T, e Env, root string) {
		d := decodeJSONC(t, filepath.Join(root, "repo/opencode.json"))
		wantServer(t, e, d, []string{"mcp"}, map[string]any{"type": "local", "command": []any{"BIN", "-C", "REPO", "mcp"}, "enabled": true})
		if at(d, "$schema") == nil || at(d, "mcp", "jira") == nil {
			t.Errorf("settings lost: %s", jsonOf(d))
		}
		wantBlock(t, filepath.Join(root, "repo/AGENTS.md"))
	},
	"kiro": func(t *testing.T, e Env, root string) {
		d := decodeJSONC(t, filepath.Join(root, "repo/.kiro/settings/mcp.json"))
		wantServer(t, e, d, []string{"mcpServers"}, map[string]any{"command": "BIN", "args": serverArgs})
		h := decodeJSONC(t, filepath.Join(root, "repo/.kiro/hooks/git-konteks-session-end.kiro.hook"))
		if at(h, "when", "type") != "agentStop" || at(h, "then", "type") != "runCommand" || at(h, "then", "command") != e.hookCommand(stopTail("kiro")) || at(h, "enabled") != true {
			t.Errorf("kiro hook: %s", jsonOf(h))
		}
		wantBlock(t, filepath.Join(root, "repo/AGENTS.md"))
	},
	"jetbrains": func(t *testing.T, e Env, root string) {
		b, err := os.ReadFile(filepath.Join(root, "repo/.aiassistant/rules/git-konteks.md"))
		if err != nil || !strings.Contains(string(b), "call `recall`") {
			t.Errorf("rules file: %v\n%s", err, b)
		}
	},
}

// TestAgents wires each agent into its own files as its documentation
// shows them: each file written has the agent's format and keeps what
// was there (comments included), wiring again changes nothing, and
// removing restores every file byte for byte and deletes what was
// created.
func TestAgents(t *testing.T) {
	if got, want := slices.Sorted(maps.Keys(checks)), Names(); !slices.Equal(got, want) {
		t.Fatalf("checks for %v, agents %v", got, want)
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			e, root := setup(t, name)
			a, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			before := testgit.Files(t, root)
			rep, err := Install(e, a)
			if err != nil {
				t.Fatal(err)
			}
			after := testgit.Files(t, root)
			checks[name](t, e, root)
			for p, src := range before {
				for _, c := range comments(src) {
					if !strings.Contains(after[p], c) {
						t.Errorf("%s lost the comment %q", p, c)
					}
				}
			}
			for _, ch := range rep.Changes {
				if ch.Action == "unchanged" {
					t.Errorf("first wiring left %s unchanged", ch.File)
				}
			}
			if (a.mcp == nil) != (rep.Snippet != "") {
				t.Errorf("snippet %q for an agent with MCP file %v", rep.Snippet, a.mcp != nil)
			}

			again, err := Install(e, a)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range again.Changes {
				if ch.Action != "unchanged" {
					t.Errorf("wiring again %s %s", ch.Action, ch.File)
				}
			}
			if !maps.Equal(after, testgit.Files(t, root)) {
				t.Error("wiring again changed files")
			}

			if _, err := Remove(e, a); err != nil {
				t.Fatal(err)
			}
			diffTrees(t, before, testgit.Files(t, root))
			if _, err := os.Stat(recordFile(e)); !os.IsNotExist(err) {
				t.Errorf("the record stays after the last removal: %v", err)
			}
		})
	}
}

func diffTrees(t *testing.T, want, got map[string]string) {
	t.Helper()
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("%s is gone", p)
		} else if g != w {
			t.Errorf("%s is not restored byte for byte:\n%s\nwant:\n%s", p, g, w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s is left behind", p)
		}
	}
}

// TestRemoveAfterEdits: a file changed after wiring loses only git
// konteks's parts; the other change stays.
func TestRemoveAfterEdits(t *testing.T) {
	e, root := setup(t, "claude")
	a := Agents["claude"]
	if _, err := Install(e, a); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "repo/.claude/settings.json")
	b, _ := os.ReadFile(file)
	b = bytes.Replace(b, []byte(`"deny": [`), []byte(`"deny": ["Read(./secrets/**)", `), 1)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(root, "repo/CLAUDE.md")
	mb, _ := os.ReadFile(md)
	if err := os.WriteFile(md, append(mb, "\n## Added later\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Remove(e, a)
	if err != nil {
		t.Fatal(err)
	}
	s := decodeJSONC(t, file)
	if len(hookCommands(s, "SessionStart"))+len(hookCommands(s, "SessionEnd")) != 0 || at(s, "hooks", "SessionStart") != nil {
		t.Errorf("git konteks's hooks stay: %s", jsonOf(s))
	}
	if !strings.Contains(jsonOf(s), "secrets/**") || len(hookCommands(s, "PostToolUse")) != 1 {
		t.Errorf("the later edit or the own hooks were lost: %s", jsonOf(s))
	}
	mb, _ = os.ReadFile(md)
	if strings.Contains(string(mb), "git-konteks") || !strings.HasSuffix(string(mb), "## Added later\n") {
		t.Errorf("CLAUDE.md:\n%s", mb)
	}
	actions := map[string]string{}
	for _, ch := range rep.Changes {
		actions[filepath.Base(ch.File)] = ch.Action
	}
	if actions["settings.json"] != "edited" || actions[".mcp.json"] != "restored" {
		t.Errorf("actions %v", actions)
	}
}

// TestSharedInstructions: agents that read the same AGENTS.md share its
// block, which stays until the last of them is removed.
func TestSharedInstructions(t *testing.T) {
	e, root := setup(t, "codex")
	before := testgit.Files(t, root)
	for _, n := range []string{"codex", "opencode"} {
		if _, err := Install(e, Agents[n]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Remove(e, Agents["codex"]); err != nil {
		t.Fatal(err)
	}
	wantBlock(t, filepath.Join(root, "repo/AGENTS.md"))
	if _, err := Remove(e, Agents["opencode"]); err != nil {
		t.Fatal(err)
	}
	diffTrees(t, before, testgit.Files(t, root))
}

// TestBadFileLeftAlone: a configuration file that does not parse is not
// touched, and the error names it.
func TestBadFileLeftAlone(t *testing.T) {
	e, root := setup(t, "cursor")
	file := filepath.Join(root, "repo/.cursor/mcp.json")
	bad := []byte("{\n  \"mcpServers\": {\n")
	if err := os.WriteFile(file, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Install(e, Agents["cursor"])
	if err == nil || !strings.Contains(err.Error(), file) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, bad) {
		t.Errorf("the bad file was changed:\n%s", b)
	}
}

// TestJSONCEdits covers the editor on the shapes real files take:
// trailing commas, comments before the closing brace, empty objects,
// tabs.
func TestJSONCEdits(t *testing.T) {
	entry := map[string]any{"command": "/bin/gk"}
	for _, c := range []struct{ in, want string }{
		{"", "{\n  \"s\": {\n    \"git-konteks\": {\n      \"command\": \"/bin/gk\"\n    }\n  }\n}\n"},
		{"{}", "{\n  \"s\": {\n    \"git-konteks\": {\n      \"command\": \"/bin/gk\"\n    }\n  }\n}"},
		{"{\n\t\"s\": {\n\t\t\"a\": 1,\n\t},\n}\n", "{\n\t\"s\": {\n\t\t\"a\": 1,\n\t\t\"git-konteks\": {\n\t\t\t\"command\": \"/bin/gk\"\n\t\t},\n\t},\n}\n"},
		{"{\n  \"s\": {\n    \"a\": 1\n    // last\n  }\n}\n", "{\n  \"s\": {\n    \"a\": 1,\n    \"git-konteks\": {\n      \"command\": \"/bin/gk\"\n    }\n    // last\n  }\n}\n"},
	} {
		got, err := setMember([]byte(c.in), []string{"s"}, ServerName, entry)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("setMember(%q):\n%s\nwant:\n%s", c.in, got, c.want)
		}
		back, err := removeMember(got, []string{"s"}, ServerName)
		if err != nil {
			t.Fatal(err)
		}
		if c.in != "" && c.in != "{}" && string(back) != c.in {
			t.Errorf("removeMember after setMember(%q):\n%q", c.in, back)
		}
	}
}

// TestMergeTOML: Codex's table is set in place, or appended; other keys,
// subtables and comments stay; removing takes it out again.
func TestMergeTOML(t *testing.T) {
	table := "[mcp_servers.git-konteks]\ncommand = \"/bin/gk\"\nargs = [\"-C\", \"/r\", \"mcp\"]\n"
	for _, c := range []struct{ doc, want string }{
		{"", table},
		{"model = \"x\"", "model = \"x\"\n\n" + table},
		{"model = \"x\"\n", "model = \"x\"\n\n" + table},
		{"[mcp_servers.git-konteks]\ncommand = \"old\"\nargs = [\n  \"a\",\n  \"b\",\n]\nenabled = true\n\n[other]\nk = 1\n",
			table + "enabled = true\n\n[other]\nk = 1\n"},
		{"# mine\n[mcp_servers.git-konteks]\nargs = [\"a\"]\n", "# mine\n" + table},
	} {
		got := mergeTOMLTable(c.doc, table, codexHeaders...)
		if got != c.want {
			t.Errorf("mergeTOMLTable(%q):\n%s\nwant:\n%s", c.doc, got, c.want)
		}
		if again := mergeTOMLTable(got, table, codexHeaders...); again != got {
			t.Errorf("not idempotent on %q:\n%s", c.doc, again)
		}
	}
	doc := "model = \"x\"\n"
	if got := removeTOMLTable(mergeTOMLTable(doc, table, codexHeaders...), codexHeaders...); got != doc {
		t.Errorf("remove after merge: %q", got)
	}
}

// TestDetected finds agents by their directories.
func TestDetected(t *testing.T) {
	e, _ := setup(t, "kiro")
	var names []string
	for _, a := range Detected(e) {
		names = append(names, a.Name)
	}
	if !slices.Equal(names, []string{"kiro"}) {
		t.Errorf("detected %v, want [kiro]", names)
	}
}
