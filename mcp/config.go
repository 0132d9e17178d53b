package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Clients are the agents `git konteks mcp config` writes configuration for.
var Clients = []string{"claude", "claude-desktop", "codex", "cursor", "vscode", "windsurf", "zed"}

// client describes where and how one client reads its MCP servers.
type client struct {
	title string
	// key is the object of servers in a JSON file (empty: Codex's TOML).
	key string
	// typed clients want "type": "stdio" in the entry.
	typed bool
	// project is set when the file lives in the repository (shared with
	// the team, like .mcp.json); otherwise it is the user's.
	project bool
	// file is the configuration file, given the repository and the
	// user's home and config directories.
	file func(repo string) (string, error)
}

var clients = map[string]client{
	"claude": {title: "Claude Code", key: "mcpServers", typed: true, project: true,
		file: func(repo string) (string, error) { return filepath.Join(repo, ".mcp.json"), nil }},
	"claude-desktop": {title: "Claude Desktop", key: "mcpServers", file: claudeDesktopFile},
	"codex": {title: "Codex", file: func(string) (string, error) {
		home := os.Getenv("CODEX_HOME")
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("codex: no home directory to find ~/.codex in (set CODEX_HOME): %w", err)
			}
			home = filepath.Join(h, ".codex")
		}
		return filepath.Join(home, "config.toml"), nil
	}},
	"cursor": {title: "Cursor", key: "mcpServers", project: true,
		file: func(repo string) (string, error) { return filepath.Join(repo, ".cursor", "mcp.json"), nil }},
	"vscode": {title: "VS Code", key: "servers", typed: true, project: true,
		file: func(repo string) (string, error) { return filepath.Join(repo, ".vscode", "mcp.json"), nil }},
	"windsurf": {title: "Windsurf", key: "mcpServers", file: func(string) (string, error) {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("windsurf: no home directory: %w", err)
		}
		return filepath.Join(h, ".codeium", "windsurf", "mcp_config.json"), nil
	}},
	"zed": {title: "Zed", key: "context_servers", file: func(string) (string, error) {
		dir, err := xdgConfig()
		if err != nil {
			return "", fmt.Errorf("zed: %w", err)
		}
		return filepath.Join(dir, "zed", "settings.json"), nil
	}},
}

// claudeDesktopFile is claude_desktop_config.json: in Application
// Support on macOS, %APPDATA% on Windows, the XDG config directory
// elsewhere.
func claudeDesktopFile(string) (string, error) {
	switch runtime.GOOS {
	case "darwin":
		h, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(h, "Library", "Application Support", "Claude", "claude_desktop_config.json"), nil
	case "windows":
		if d := os.Getenv("APPDATA"); d != "" {
			return filepath.Join(d, "Claude", "claude_desktop_config.json"), nil
		}
	}
	dir, err := xdgConfig()
	if err != nil {
		return "", fmt.Errorf("claude-desktop: %w", err)
	}
	return filepath.Join(dir, "Claude", "claude_desktop_config.json"), nil
}

// xdgConfig is $XDG_CONFIG_HOME, else ~/.config (where Zed looks on macOS
// too).
func xdgConfig() (string, error) {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return d, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory: %w", err)
	}
	return filepath.Join(h, ".config"), nil
}

// ClientConfig is the configuration one client expects for this server.
type ClientConfig struct {
	Client string `json:"client"`
	Title  string `json:"title"`
	// File is where the client reads it; Project says it is in the
	// repository (to commit and share) rather than the user's.
	File    string `json:"file"`
	Project bool   `json:"project"`
	// Snippet is the configuration as the client expects it: a whole JSON
	// document for the JSON clients, a TOML table for Codex.
	Snippet string   `json:"snippet"`
	Command string   `json:"command"`
	Args    []string `json:"args"`

	key   string
	typed bool
}

// Config returns the configuration of client for the server binary at
// binary serving the repository at repoDir (both absolute).
//
// Decision: the command is the binary's absolute path and the arguments
// name the repository (-C DIR), so the server starts the same whichever
// directory a client launches it from and whatever PATH it has; the
// snippet is therefore specific to this machine, like the clients' own
// `mcp add` commands produce. For a user-wide file (Claude Desktop,
// Windsurf, Zed, Codex) -C ties it to this repository; the server also
// follows the roots a client announces when started without it.
func Config(name, binary, repoDir string) (*ClientConfig, error) {
	cl, ok := clients[name]
	if !ok {
		return nil, fmt.Errorf("unknown client %q: one of %s", name, strings.Join(Clients, ", "))
	}
	file, err := cl.file(repoDir)
	if err != nil {
		return nil, err
	}
	c := &ClientConfig{Client: name, Title: cl.title, File: file, Project: cl.project, Command: binary,
		Args: []string{"-C", repoDir, "mcp"}, key: cl.key, typed: cl.typed}
	if cl.key == "" {
		c.Snippet = c.tomlTable()
		return c, nil
	}
	b, err := marshalJSON(map[string]any{cl.key: map[string]any{Name: c.entry()}})
	if err != nil {
		return nil, err
	}
	c.Snippet = string(b)
	return c, nil
}

func (c *ClientConfig) entry() map[string]any {
	e := map[string]any{"command": c.Command, "args": c.Args}
	if c.typed {
		e["type"] = "stdio"
	}
	return e
}

// tomlTable is the Codex [mcp_servers.<name>] table.
func (c *ClientConfig) tomlTable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", Name)
	fmt.Fprintf(&b, "command = %s\n", tomlString(c.Command))
	var args []string
	for _, a := range c.Args {
		args = append(args, tomlString(a))
	}
	fmt.Fprintf(&b, "args = [%s]\n", strings.Join(args, ", "))
	return b.String()
}

// tomlString quotes s as a TOML basic string (JSON escapes are valid TOML
// escapes for everything json.Marshal emits without HTML escaping).
func tomlString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSpace(buf.String())
}

func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write adds the server to the client's configuration file, keeping
// everything else in it (other servers, other settings, comments and
// layout of JSONC files); it creates the file when missing. changed is
// false when the file already said the same. A file that does not parse
// is left alone, with an error.
func (c *ClientConfig) Write() (changed bool, err error) {
	old, err := os.ReadFile(c.File)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	var next []byte
	if c.key == "" {
		next = []byte(mergeTOML(string(old), c.Snippet))
	} else {
		next, _, err = setJSONCMember(old, c.key, Name, c.entry())
		if err != nil {
			return false, fmt.Errorf("%s is not valid JSON (%v): fix it, or add the snippet by hand", c.File, err)
		}
	}
	if bytes.Equal(old, next) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(c.File), 0o755); err != nil {
		return false, err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(c.File); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp := c.File + ".tmp"
	if err := os.WriteFile(tmp, next, mode); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, c.File)
}

// mergeTOML sets command and args in the server's table of a TOML
// document, or appends the table; everything else (other keys of the
// table, its subtables such as env, other tables, comments) is kept as
// written.
func mergeTOML(doc, table string) string {
	header := fmt.Sprintf("[mcp_servers.%s]", Name)
	lines := strings.SplitAfter(doc, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	start, end := -1, len(lines)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if start < 0 {
			if t == header || t == fmt.Sprintf("[mcp_servers.%q]", Name) {
				start = i
			}
			continue
		}
		if strings.HasPrefix(t, "[") {
			end = i
			break
		}
	}
	if start < 0 {
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		if doc != "" {
			doc += "\n"
		}
		return doc + table
	}
	want := strings.SplitAfter(table, "\n")[1:] // command and args lines
	var body []string
	for i := start + 1; i < end; i++ {
		t := strings.TrimSpace(lines[i])
		key, _, isKey := strings.Cut(t, "=")
		key = strings.TrimSpace(key)
		if isKey && (key == "command" || key == "args") {
			// Drop it (a multi-line array up to its closing bracket).
			if key == "args" {
				depth := strings.Count(t, "[") - strings.Count(t, "]")
				for depth > 0 && i+1 < end {
					i++
					depth += strings.Count(lines[i], "[") - strings.Count(lines[i], "]")
				}
			}
			continue
		}
		body = append(body, lines[i])
	}
	var out strings.Builder
	out.WriteString(strings.Join(lines[:start+1], ""))
	if !strings.HasSuffix(lines[start], "\n") {
		out.WriteString("\n")
	}
	out.WriteString(strings.Join(want, ""))
	out.WriteString(strings.Join(body, ""))
	out.WriteString(strings.Join(lines[end:], ""))
	return out.String()
}
