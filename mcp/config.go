package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Clients are the agents `git konteks mcp config` writes configuration for.
var Clients = []string{"claude", "codex", "cursor", "vscode"}

// ClientConfig is the configuration one client expects for this server.
type ClientConfig struct {
	Client string
	// File is where the client reads it: the project's .mcp.json (Claude
	// Code), .cursor/mcp.json (Cursor), .vscode/mcp.json (VS Code), or the
	// user's $CODEX_HOME/config.toml (Codex, default ~/.codex).
	File string
	// Snippet is the configuration as the client expects it: a whole JSON
	// document for the JSON clients, a TOML table for Codex.
	Snippet string

	command string
	args    []string
}

// Config returns the configuration of client for the server binary at
// binary serving the repository at repoDir (both absolute).
//
// Decision: the command is the binary's absolute path and the arguments
// name the repository (-C DIR), so the server starts the same whichever
// directory a client launches it from and whatever PATH it has; the
// snippet is therefore specific to this machine, like the clients' own
// `mcp add` commands produce.
func Config(client, binary, repoDir string) (*ClientConfig, error) {
	c := &ClientConfig{Client: client, command: binary, args: []string{"-C", repoDir, "mcp"}}
	var doc any
	switch client {
	case "claude":
		c.File = filepath.Join(repoDir, ".mcp.json")
		doc = map[string]any{"mcpServers": map[string]any{Name: c.entry(true)}}
	case "cursor":
		c.File = filepath.Join(repoDir, ".cursor", "mcp.json")
		doc = map[string]any{"mcpServers": map[string]any{Name: c.entry(false)}}
	case "vscode":
		c.File = filepath.Join(repoDir, ".vscode", "mcp.json")
		doc = map[string]any{"servers": map[string]any{Name: c.entry(true)}}
	case "codex":
		home := os.Getenv("CODEX_HOME")
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return nil, fmt.Errorf("codex: no home directory to find ~/.codex in (set CODEX_HOME): %w", err)
			}
			home = filepath.Join(h, ".codex")
		}
		c.File = filepath.Join(home, "config.toml")
		c.Snippet = c.tomlTable()
		return c, nil
	default:
		return nil, fmt.Errorf("unknown client %q: one of %s", client, strings.Join(Clients, ", "))
	}
	b, err := marshalJSON(doc)
	if err != nil {
		return nil, err
	}
	c.Snippet = string(b)
	return c, nil
}

func (c *ClientConfig) entry(typed bool) map[string]any {
	e := map[string]any{"command": c.command, "args": c.args}
	if typed {
		e["type"] = "stdio"
	}
	return e
}

// tomlTable is the Codex [mcp_servers.<name>] table.
func (c *ClientConfig) tomlTable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", Name)
	fmt.Fprintf(&b, "command = %s\n", tomlString(c.command))
	var args []string
	for _, a := range c.args {
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
// everything else in it (other servers, other settings); it creates the
// file when missing. changed is false when the file already said the same.
// A file that does not parse is left alone, with an error.
func (c *ClientConfig) Write() (changed bool, err error) {
	old, err := os.ReadFile(c.File)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	var next []byte
	if c.Client == "codex" {
		next = []byte(mergeTOML(string(old), c.Snippet))
	} else {
		next, err = c.mergeJSON(old)
		if err != nil {
			return false, err
		}
	}
	if bytes.Equal(old, next) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(c.File), 0o755); err != nil {
		return false, err
	}
	tmp := c.File + ".tmp"
	if err := os.WriteFile(tmp, next, 0o644); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, c.File)
}

// mergeJSON sets the server's entry in the JSON document old.
func (c *ClientConfig) mergeJSON(old []byte) ([]byte, error) {
	doc := map[string]any{}
	if len(bytes.TrimSpace(old)) > 0 {
		if err := json.Unmarshal(old, &doc); err != nil {
			return nil, fmt.Errorf("%s is not valid JSON (%v): fix it, or add the snippet by hand", c.File, err)
		}
	}
	key := "mcpServers"
	if c.Client == "vscode" {
		key = "servers"
	}
	servers, ok := doc[key].(map[string]any)
	if doc[key] != nil && !ok {
		return nil, fmt.Errorf("%s: %q is not an object: fix it, or add the snippet by hand", c.File, key)
	}
	if servers == nil {
		servers = map[string]any{}
	}
	servers[Name] = c.entry(c.Client != "cursor")
	doc[key] = servers
	return marshalJSON(doc)
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
