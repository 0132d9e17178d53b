package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// fixtures are each client's configuration file as its documentation
// shows it (testdata/config), with other servers, settings and comments.
var fixtures = map[string]string{
	"claude": "claude.json", "claude-desktop": "claude-desktop.json", "codex": "codex.toml",
	"cursor": "cursor.json", "vscode": "vscode.jsonc", "windsurf": "windsurf.json", "zed": "zed.jsonc",
}

// configEnv points every user-wide configuration at a temporary home.
func configEnv(t *testing.T) (repo string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
	t.Setenv("APPDATA", filepath.Join(home, "AppData"))
	return t.TempDir()
}

// comments lists the comment lines of a fixture.
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

// TestConfigFixtures writes the server into each client's real file
// format: the entry is where the client reads it, every other server,
// setting and comment is kept, and writing again changes nothing.
func TestConfigFixtures(t *testing.T) {
	for _, client := range Clients {
		t.Run(client, func(t *testing.T) {
			repo := configEnv(t)
			fx, err := os.ReadFile(filepath.Join("testdata", "config", fixtures[client]))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := Config(client, "/opt/bin/git-konteks", repo)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Project != strings.HasPrefix(cfg.File, repo) {
				t.Fatalf("%s: file %s, project %v", client, cfg.File, cfg.Project)
			}
			os.MkdirAll(filepath.Dir(cfg.File), 0o755)
			if err := os.WriteFile(cfg.File, fx, 0o600); err != nil {
				t.Fatal(err)
			}
			changed, err := cfg.Write()
			if err != nil || !changed {
				t.Fatalf("write: %v %v", changed, err)
			}
			out, _ := os.ReadFile(cfg.File)
			for _, c := range comments(string(fx)) {
				if !strings.Contains(string(out), c) {
					t.Errorf("comment %q lost:\n%s", c, out)
				}
			}
			if fi, _ := os.Stat(cfg.File); fi.Mode().Perm() != 0o600 {
				t.Errorf("file mode %v, want the file's own 0600", fi.Mode().Perm())
			}
			var before, after map[string]any
			decode := func(b []byte, v any) {
				t.Helper()
				var err error
				if client == "codex" {
					err = toml.Unmarshal(b, v)
				} else {
					_, err = parseJSONC(b)
					if err == nil {
						err = json.Unmarshal(stripJSONC(b), v)
					}
				}
				if err != nil {
					t.Fatalf("decode: %v\n%s", err, b)
				}
			}
			decode(fx, &before)
			decode(out, &after)
			key := map[string]string{"codex": "mcp_servers", "vscode": "servers", "zed": "context_servers"}[client]
			if key == "" {
				key = "mcpServers"
			}
			servers := after[key].(map[string]any)
			entry, _ := servers[Name].(map[string]any)
			if entry == nil || entry["command"] != "/opt/bin/git-konteks" {
				t.Fatalf("no entry for %s under %s:\n%s", Name, key, out)
			}
			var args []string
			for _, a := range entry["args"].([]any) {
				args = append(args, a.(string))
			}
			if !slices.Equal(args, []string{"-C", repo, "mcp"}) {
				t.Fatalf("args %v", args)
			}
			if typed := entry["type"] == "stdio"; typed != (client == "claude" || client == "vscode") {
				t.Errorf("type %v", entry["type"])
			}
			// Everything else is as it was.
			delete(servers, Name)
			b1, _ := json.Marshal(before)
			b2, _ := json.Marshal(after)
			if string(b1) != string(b2) {
				t.Fatalf("other settings changed:\nbefore %s\nafter  %s", b1, b2)
			}
			if changed, err := cfg.Write(); err != nil || changed {
				t.Fatalf("second write: changed %v, %v", changed, err)
			}
		})
	}
}

// TestSetJSONCMember covers the edits: an empty file, a missing servers
// object, an empty one, a replaced entry, and a broken file left alone.
func TestSetJSONCMember(t *testing.T) {
	entry := map[string]any{"command": "x", "args": []string{"mcp"}}
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "{\n  \"servers\": {\n    \"git-konteks\": {\n      \"args\": [\n        \"mcp\"\n      ],\n      \"command\": \"x\"\n    }\n  }\n}\n"},
		{"no servers", "{\n  // keep me\n  \"a\": 1\n}\n", "{\n  // keep me\n  \"a\": 1,\n  \"servers\": {\n    \"git-konteks\": {\n      \"args\": [\n        \"mcp\"\n      ],\n      \"command\": \"x\"\n    }\n  }\n}\n"},
		{"empty servers", "{\"servers\": {}}", "{\"servers\": {\n  \"git-konteks\": {\n    \"args\": [\n      \"mcp\"\n    ],\n    \"command\": \"x\"\n  }\n}}"},
		{"replace", "{\n\t\"servers\": {\n\t\t\"git-konteks\": {\"command\": \"old\"}, // old one\n\t\t\"b\": {}\n\t}\n}", "{\n\t\"servers\": {\n\t\t\"git-konteks\": {\n\t\t\t\"args\": [\n\t\t\t\t\"mcp\"\n\t\t\t],\n\t\t\t\"command\": \"x\"\n\t\t}, // old one\n\t\t\"b\": {}\n\t}\n}"},
		{"trailing comma and comment", "{\n  \"servers\": {\n    \"a\": {}, // a\n  },\n}", "{\n  \"servers\": {\n    \"a\": {}, // a\n    \"git-konteks\": {\n      \"args\": [\n        \"mcp\"\n      ],\n      \"command\": \"x\"\n    }\n  },\n}"},
	} {
		out, changed, err := setJSONCMember([]byte(c.in), "servers", Name, entry)
		if err != nil || !changed || string(out) != c.want {
			t.Errorf("%s: %v %v\n%s\nwant\n%s", c.name, changed, err, out, c.want)
		}
		if _, err := parseJSONC(out); err != nil {
			t.Errorf("%s: result does not parse: %v", c.name, err)
		}
	}
	for _, bad := range []string{"{not json", "[1, 2]", `{"servers": 3}`, "{\"a\": 1 /* open", `{"a": "x`} {
		if _, _, err := setJSONCMember([]byte(bad), "servers", Name, entry); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
