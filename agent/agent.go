// Package agent wires coding agents to git konteks: each agent's MCP
// configuration, its hooks (session start says which commit memory
// describes; session end hands the transcript to `git konteks session
// ingest`), and a marked block in the instructions file it reads
// (AGENTS.md, CLAUDE.md, GEMINI.md) saying when to call recall.
//
// Every edit keeps the rest of the file as it was (comments included),
// is idempotent, and is recorded so that Remove undoes it: a file nobody
// touched since is restored byte for byte, a file edited since loses only
// what git konteks put there.
package agent

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// ServerName is the name the MCP server is configured under.
const ServerName = "git-konteks"

// Env says where agents keep their files and what to run.
type Env struct {
	// Repo is the repository's top directory (absolute).
	Repo string
	// GitDir is the repository's common git directory, where the record
	// of what was written is kept.
	GitDir string
	// Binary is the absolute path of git-konteks.
	Binary string
	// Home and ConfigDir are the user's home and configuration
	// directories ($XDG_CONFIG_HOME or ~/.config); CodexHome is
	// $CODEX_HOME or ~/.codex. Agents that keep their MCP servers per
	// user are configured there.
	Home, ConfigDir, CodexHome string
	// LookPath finds a program on PATH (detecting installed agents);
	// nil uses exec.LookPath.
	LookPath func(string) (string, error)
}

// DefaultEnv is the environment of this process for the repository.
func DefaultEnv(repo, gitDir, binary string) (Env, error) {
	return EnvOf(os.Getenv, repo, gitDir, binary)
}

// EnvOf is the environment the variables getenv reads describe, for the
// repository: a caller (a command run in-process) can wire agents for
// another home without changing the process's environment.
func EnvOf(getenv func(string) string, repo, gitDir, binary string) (Env, error) {
	home, err := homeDir(getenv)
	if err != nil {
		return Env{}, fmt.Errorf("no home directory to find the agents' configuration in: %w", err)
	}
	cfg := getenv("XDG_CONFIG_HOME")
	if cfg == "" {
		cfg = filepath.Join(home, ".config")
	}
	codex := getenv("CODEX_HOME")
	if codex == "" {
		codex = filepath.Join(home, ".codex")
	}
	return Env{Repo: repo, GitDir: gitDir, Binary: binary, Home: home, ConfigDir: cfg, CodexHome: codex}, nil
}

// homeDir is os.UserHomeDir over getenv's variables.
func homeDir(getenv func(string) string) (string, error) {
	v := "HOME"
	switch runtime.GOOS {
	case "windows":
		v = "USERPROFILE"
	case "plan9":
		v = "home"
	}
	if h := getenv(v); h != "" {
		return h, nil
	}
	if runtime.GOOS == "android" || runtime.GOOS == "ios" {
		return os.UserHomeDir() // it knows these systems' defaults
	}
	return "", fmt.Errorf("$%s is not defined", v)
}

// An Agent is one coding agent and what wiring it takes.
type Agent struct {
	Name, Title string
	// mcp is where and how it reads MCP servers (nil: it reads them from
	// no file; the snippet is printed to paste).
	mcp *mcpFile
	// hooks are its session hooks (none when it has no session events).
	hooks *hookFile
	// notes is the instructions file the recall block goes in, relative
	// to the repository; owned is set when git konteks writes the whole
	// file (a rules directory) rather than a block in a shared one.
	notes string
	owned bool
	// markers are paths (relative to the repository, or absolute after
	// expansion) whose presence says the agent is used here; programs
	// are its executables on PATH.
	markers  []func(Env) string
	programs []string
}

// mcpFile describes an agent's MCP configuration file.
type mcpFile struct {
	file func(Env) string
	// format: "json" (a member of the object at path), "toml" (Codex's
	// [mcp_servers.NAME] table), "opencode" (its mcp object, command as
	// one array).
	format string
	path   []string
	// typed agents want "type": "stdio" in the entry.
	typed bool
	// project is set when the file lives in the repository (to commit
	// and share) rather than in the user's configuration.
	project bool
}

// hookFile describes an agent's hooks file and the events git konteks
// hooks into.
type hookFile struct {
	file func(Env) string
	// style: "claude" (hooks.EVENT: [{matcher, hooks: [{type, command}]}],
	// also Codex and Gemini CLI), "cursor" (version 1, hooks.EVENT:
	// [{command}]), "copilot" (a file of its own: version 1,
	// hooks.EVENT: [{type, bash, timeoutSec}]), "kiro" (a .kiro.hook file
	// of its own per event).
	style       string
	start, stop string // event names ("" when it has none)
}

func inRepo(rel string) func(Env) string {
	return func(e Env) string { return filepath.Join(e.Repo, filepath.FromSlash(rel)) }
}

func inHome(rel string) func(Env) string {
	return func(e Env) string { return filepath.Join(e.Home, filepath.FromSlash(rel)) }
}

func inConfig(rel string) func(Env) string {
	return func(e Env) string { return filepath.Join(e.ConfigDir, filepath.FromSlash(rel)) }
}

// claudeDesktopFile is claude_desktop_config.json: in Application
// Support on macOS, %APPDATA% on Windows, the config directory elsewhere.
func claudeDesktopFile(e Env) string {
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
	case "windows":
		if d := os.Getenv("APPDATA"); d != "" {
			return filepath.Join(d, "Claude", "claude_desktop_config.json")
		}
	}
	return filepath.Join(e.ConfigDir, "Claude", "claude_desktop_config.json")
}

// Agents are the agents git konteks wires, by name.
//
// Decision: project files (in the repository, shared with the team) where
// the agent reads them, else the user's file; hooks only where the agent
// runs commands at session start or end from a file (OpenCode's are
// JavaScript plugins, Zed, Windsurf and JetBrains have no session
// events); JetBrains' AI Assistant keeps MCP servers in its settings
// dialog, so its snippet is printed and its project rules file is written.
var Agents = map[string]*Agent{
	"claude": {Name: "claude", Title: "Claude Code",
		mcp:      &mcpFile{file: inRepo(".mcp.json"), format: "json", path: []string{"mcpServers"}, typed: true, project: true},
		hooks:    &hookFile{file: inRepo(".claude/settings.json"), style: "claude", start: "SessionStart", stop: "SessionEnd"},
		notes:    "CLAUDE.md",
		markers:  []func(Env) string{inRepo(".claude"), inRepo("CLAUDE.md"), inHome(".claude")},
		programs: []string{"claude"}},
	"claude-desktop": {Name: "claude-desktop", Title: "Claude Desktop",
		mcp:     &mcpFile{file: claudeDesktopFile, format: "json", path: []string{"mcpServers"}},
		markers: []func(Env) string{func(e Env) string { return filepath.Dir(claudeDesktopFile(e)) }}},
	"codex": {Name: "codex", Title: "Codex CLI",
		mcp:      &mcpFile{file: func(e Env) string { return filepath.Join(e.CodexHome, "config.toml") }, format: "toml"},
		hooks:    &hookFile{file: inRepo(".codex/hooks.json"), style: "claude", start: "SessionStart", stop: "Stop"},
		notes:    "AGENTS.md",
		markers:  []func(Env) string{inRepo(".codex"), func(e Env) string { return e.CodexHome }},
		programs: []string{"codex"}},
	"cursor": {Name: "cursor", Title: "Cursor",
		mcp:      &mcpFile{file: inRepo(".cursor/mcp.json"), format: "json", path: []string{"mcpServers"}, project: true},
		hooks:    &hookFile{file: inRepo(".cursor/hooks.json"), style: "cursor", start: "sessionStart", stop: "sessionEnd"},
		notes:    "AGENTS.md",
		markers:  []func(Env) string{inRepo(".cursor"), inHome(".cursor")},
		programs: []string{"cursor", "cursor-agent"}},
	"vscode": {Name: "vscode", Title: "VS Code",
		mcp:      &mcpFile{file: inRepo(".vscode/mcp.json"), format: "json", path: []string{"servers"}, typed: true, project: true},
		hooks:    &hookFile{file: inRepo(".github/hooks/" + ServerName + ".json"), style: "copilot", start: "sessionStart", stop: "sessionEnd"},
		notes:    "AGENTS.md",
		markers:  []func(Env) string{inRepo(".vscode")},
		programs: []string{"code"}},
	"gemini": {Name: "gemini", Title: "Gemini CLI",
		mcp:      &mcpFile{file: inRepo(".gemini/settings.json"), format: "json", path: []string{"mcpServers"}, project: true},
		hooks:    &hookFile{file: inRepo(".gemini/settings.json"), style: "claude", start: "SessionStart", stop: "SessionEnd"},
		notes:    "GEMINI.md",
		markers:  []func(Env) string{inRepo(".gemini"), inRepo("GEMINI.md"), inHome(".gemini")},
		programs: []string{"gemini"}},
	"zed": {Name: "zed", Title: "Zed",
		mcp:      &mcpFile{file: inConfig("zed/settings.json"), format: "json", path: []string{"context_servers"}},
		notes:    "AGENTS.md",
		markers:  []func(Env) string{inRepo(".zed"), inConfig("zed")},
		programs: []string{"zed", "zeditor"}},
	"windsurf": {Name: "windsurf", Title: "Windsurf",
		mcp:      &mcpFile{file: inHome(".codeium/windsurf/mcp_config.json"), format: "json", path: []string{"mcpServers"}},
		notes:    "AGENTS.md",
		markers:  []func(Env) string{inRepo(".windsurf"), inHome(".codeium/windsurf")},
		programs: []string{"windsurf"}},
	"opencode": {Name: "opencode", Title: "OpenCode",
		mcp:      &mcpFile{file: inRepo("opencode.json"), format: "opencode", path: []string{"mcp"}, project: true},
		notes:    "AGENTS.md",
		markers:  []func(Env) string{inRepo("opencode.json"), inRepo(".opencode"), inConfig("opencode")},
		programs: []string{"opencode"}},
	"kiro": {Name: "kiro", Title: "Kiro",
		mcp:      &mcpFile{file: inRepo(".kiro/settings/mcp.json"), format: "json", path: []string{"mcpServers"}, project: true},
		hooks:    &hookFile{file: inRepo(".kiro/hooks/git-konteks-session-end.kiro.hook"), style: "kiro", stop: "agentStop"},
		notes:    "AGENTS.md",
		markers:  []func(Env) string{inRepo(".kiro"), inHome(".kiro")},
		programs: []string{"kiro", "kiro-cli"}},
	"jetbrains": {Name: "jetbrains", Title: "JetBrains AI Assistant",
		notes: ".aiassistant/rules/" + ServerName + ".md", owned: true,
		markers: []func(Env) string{inRepo(".idea"), inRepo(".aiassistant")}},
}

// Names lists the agents' names, sorted.
func Names() []string {
	var out []string
	for n := range Agents {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the agent named name, or an error listing the names.
func Lookup(name string) (*Agent, error) {
	if a, ok := Agents[name]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("unknown agent %q: one of %s, or all-detected", name, strings.Join(Names(), ", "))
}

// Detected lists the agents that appear to be used here: their
// directories in the repository or the user's configuration, or their
// programs on PATH.
func Detected(e Env) []*Agent {
	look := e.LookPath
	if look == nil {
		look = exec.LookPath
	}
	var out []*Agent
	for _, n := range Names() {
		a := Agents[n]
		found := false
		for _, m := range a.markers {
			if _, err := os.Stat(m(e)); err == nil {
				found = true
			}
		}
		for _, p := range a.programs {
			if _, err := look(p); err == nil {
				found = true
			}
		}
		if found {
			out = append(out, a)
		}
	}
	return out
}

// errNoFile marks an agent that reads no file for a part of its wiring.
var errNoFile = errors.New("no file")
