package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tailscale/hujson"
)

// An edit is one change git konteks makes to a file for an agent.
type edit struct {
	file string
	what string
	// apply makes the change (idempotently); undo takes it back out of a
	// file that may have been edited since.
	apply, undo func([]byte) ([]byte, error)
	// owned files are git konteks's entirely: undo deletes them.
	owned bool
	// shared edits (the block in AGENTS.md) are the same for every agent
	// reading the file: undone only when no other agent needs them.
	shared bool
}

// Server is how an agent starts the MCP server: Binary -C Repo mcp.
//
// Decision: the command is the binary's absolute path and the arguments
// name the repository, so the server starts the same whichever directory
// an agent launches it from and whatever PATH it has; for a user-wide
// file -C ties it to this repository.
func (e Env) serverArgs() []string { return []string{"-C", e.Repo, "mcp"} }

// entry is the server's entry in a JSON file of the agent's format.
func (m *mcpFile) entry(e Env) any {
	if m.format == "opencode" {
		return obj{{"type", "local"}, {"command", append([]string{e.Binary}, e.serverArgs()...)}, {"enabled", true}}
	}
	en := obj{{"command", e.Binary}, {"args", e.serverArgs()}}
	if m.typed {
		en = append(obj{{"type", "stdio"}}, en...)
	}
	return en
}

// codexHeaders are the header lines Codex's table may be written with.
var codexHeaders = []string{"[mcp_servers." + ServerName + "]", fmt.Sprintf("[mcp_servers.%q]", ServerName)}

// codexTable is the Codex [mcp_servers.NAME] table.
func codexTable(e Env) string {
	var args []string
	for _, a := range e.serverArgs() {
		args = append(args, tomlString(a))
	}
	return tomlTable("mcp_servers."+ServerName, [][2]string{
		{"command", tomlString(e.Binary)},
		{"args", "[" + strings.Join(args, ", ") + "]"},
	})
}

// Snippet is the MCP configuration the agent expects, as a whole
// document of its file's format.
func (a *Agent) Snippet(e Env) (string, error) {
	m := a.mcp
	if m == nil {
		m = &mcpFile{format: "json", path: []string{"mcpServers"}}
	}
	if m.format == "toml" {
		return codexTable(e), nil
	}
	b, err := setMember(nil, m.path, ServerName, m.entry(e))
	return string(b), err
}

// MCPFile is the file the agent reads its MCP servers from ("" when it
// reads them from no file), and whether it is in the repository.
func (a *Agent) MCPFile(e Env) (file string, project bool) {
	if a.mcp == nil {
		return "", false
	}
	return a.mcp.file(e), a.mcp.project
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// The commands the hooks run. Session start prints which commit memory
// describes (in the agent's hook output format); session end hands the
// hook's payload (on stdin) to session ingestion.
func startTail(name string) string { return " hooks session-start --agent " + name }
func stopTail(name string) string  { return " session ingest --agent " + name }

func (e Env) hookCommand(tail string) string {
	return shellQuote(e.Binary) + " -C " + shellQuote(e.Repo) + tail
}

// commands lists the command strings of a hook element of any style.
func commands(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				if s, ok := y.(string); ok && (k == "command" || k == "bash") {
					out = append(out, s)
				} else {
					walk(y)
				}
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return out
}

// mineFor recognises hook elements git konteks wrote for the event: their
// command ends with tail (the binary's path may have moved since).
func mineFor(tail string) func(any) bool {
	return func(v any) bool {
		for _, c := range commands(v) {
			if strings.HasSuffix(c, tail) {
				return true
			}
		}
		return false
	}
}

// hookElement is the element added to hooks.EVENT for the style.
func hookElement(style, command string) any {
	switch style {
	case "cursor":
		return obj{{"command", command}}
	default: // claude, codex, gemini
		return obj{{"hooks", []any{obj{{"type", "command"}, {"command", command}, {"timeout", 60}}}}}
	}
}

// edits lists what wiring a takes in e, file by file.
func (a *Agent) edits(e Env) []edit {
	var out []edit
	if m := a.mcp; m != nil {
		file := m.file(e)
		switch m.format {
		case "toml":
			out = append(out, edit{file: file, what: "MCP server " + ServerName,
				apply: func(b []byte) ([]byte, error) {
					return []byte(mergeTOMLTable(string(b), codexTable(e), codexHeaders...)), nil
				},
				undo: func(b []byte) ([]byte, error) { return []byte(removeTOMLTable(string(b), codexHeaders...)), nil }})
		default:
			out = append(out, edit{file: file, what: "MCP server " + ServerName,
				apply: func(b []byte) ([]byte, error) { return setMember(b, m.path, ServerName, m.entry(e)) },
				undo:  func(b []byte) ([]byte, error) { return removeMember(b, m.path, ServerName) }})
		}
	}
	if h := a.hooks; h != nil {
		file := h.file(e)
		switch h.style {
		case "copilot":
			doc := obj{{"version", 1}, {"hooks", obj{
				{h.start, []any{obj{{"type", "command"}, {"bash", e.hookCommand(startTail(a.Name))}, {"timeoutSec", 60}}}},
				{h.stop, []any{obj{{"type", "command"}, {"bash", e.hookCommand(stopTail(a.Name))}, {"timeoutSec", 60}}}},
			}}}
			out = append(out, ownedJSON(file, "hooks (session start and end)", doc))
		case "kiro":
			doc := obj{{"version", "1.0.0"}, {"enabled", true}, {"name", "git-konteks-session-end"},
				{"description", "Hand the session to git konteks so its decisions become memory."},
				{"when", obj{{"type", h.stop}}},
				{"then", obj{{"type", "runCommand"}, {"command", e.hookCommand(stopTail(a.Name))}, {"timeout", 60}}}}
			out = append(out, ownedJSON(file, "hook (agent stop)", doc))
		default:
			for _, ev := range [][2]string{{h.start, startTail(a.Name)}, {h.stop, stopTail(a.Name)}} {
				if ev[0] == "" {
					continue
				}
				path := []string{"hooks", ev[0]}
				el := hookElement(h.style, e.hookCommand(ev[1]))
				mine := mineFor(ev[1])
				out = append(out, edit{file: file, what: "hook " + ev[0],
					apply: func(b []byte) ([]byte, error) {
						if h.style == "cursor" {
							var err error
							if b, err = setDefault(b, "version", 1); err != nil {
								return nil, err
							}
						}
						return appendElement(b, path, el, mine)
					},
					undo: func(b []byte) ([]byte, error) {
						b, err := removeElements(b, path, mine)
						if err != nil || h.style != "cursor" {
							return b, err
						}
						return dropLone(b, "version")
					}})
			}
		}
	}
	if a.notes != "" {
		file := filepath.Join(e.Repo, filepath.FromSlash(a.notes))
		if a.owned {
			out = append(out, edit{file: file, what: "rules for recall", owned: true,
				apply: func(b []byte) ([]byte, error) { return ownedApply(file, b, []byte(notesFile)) },
				undo:  func([]byte) ([]byte, error) { return nil, nil }})
		} else {
			out = append(out, edit{file: file, what: "block saying when to call recall", shared: true,
				apply: func(b []byte) ([]byte, error) { return []byte(setBlock(string(b), notesBody)), nil },
				undo:  func(b []byte) ([]byte, error) { return []byte(removeBlock(string(b))), nil }})
		}
	}
	return out
}

// ownedJSON is a JSON file git konteks writes whole.
func ownedJSON(file, what string, doc any) edit {
	b, _ := json.MarshalIndent(doc, "", "  ")
	b = append(b, '\n')
	return edit{file: file, what: what, owned: true,
		apply: func(cur []byte) ([]byte, error) { return ownedApply(file, cur, b) },
		undo:  func([]byte) ([]byte, error) { return nil, nil }}
}

// ownedApply refuses to replace a file of that name that git konteks did
// not write.
func ownedApply(file string, cur, want []byte) ([]byte, error) {
	if cur != nil && !bytes.Equal(cur, want) && !bytes.Contains(cur, []byte("git-konteks")) && !bytes.Contains(cur, []byte("git konteks")) {
		return nil, fmt.Errorf("%s exists and was not written by git konteks: move it away, or leave this agent's hooks out", file)
	}
	return want, nil
}

// setDefault sets key at the top of a JSON document when it is absent.
func setDefault(b []byte, key string, v any) ([]byte, error) {
	root, err := parseJSONC(b)
	if err != nil {
		return nil, err
	}
	if member(root.Value.(*hujson.Object), key) >= 0 {
		return b, nil
	}
	return setMember(b, nil, key, v)
}

// dropLone removes key from a document where it is the only member left
// (the version git konteks added to a hooks file it created).
func dropLone(b []byte, key string) ([]byte, error) {
	root, err := parseJSONC(b)
	if err != nil {
		return nil, err
	}
	obj := root.Value.(*hujson.Object)
	if len(obj.Members) == 1 && member(obj, key) == 0 {
		return removeMember(b, nil, key)
	}
	return b, nil
}

// notesBody is the block in AGENTS.md, CLAUDE.md or GEMINI.md.
const notesBody = `## Repository memory (git konteks)

This repository's memory is served by the ` + "`git-konteks`" + ` MCP server.

- Before changing code for a task (a bug report, an issue, a feature), call ` + "`recall`" + ` with the task in its own words: it returns the files and sections that matter, with line ranges, and the decisions saved about them.
- To find your way in an unfamiliar area, call ` + "`overview`" + ` for a directory or ` + "`context`" + ` for a task's context pack; read a file's sections with ` + "`show`" + `.
- When you settle a decision, a constraint or a non-obvious fact, save it with ` + "`remember`" + `; note what was done or left open with ` + "`diary`" + `.
- Every answer says which commit memory describes; when HEAD has moved far ahead, call ` + "`refresh`" + `.
`

// notesFile is the rules file of agents that read a directory of them.
const notesFile = "<!-- written by `git konteks init --agent`; remove with `--remove` -->\n" + notesBody

// A Change is what Install or Remove did to one file.
type Change struct {
	File string `json:"file"`
	// Action is created, updated, unchanged, restored (to its bytes
	// before git konteks wrote it), edited (git konteks's parts taken
	// out of a file changed since) or removed.
	Action string   `json:"action"`
	What   []string `json:"what"`
}

// A Report is what wiring one agent did.
type Report struct {
	Agent   string   `json:"agent"`
	Title   string   `json:"title"`
	Changes []Change `json:"changes"`
	// Snippet is the MCP configuration to paste, for an agent that reads
	// it from no file.
	Snippet string `json:"snippet,omitempty"`
}

// Install wires a in e: MCP configuration, hooks, instructions.
func Install(e Env, a *Agent) (*Report, error) {
	rep := &Report{Agent: a.Name, Title: a.Title}
	if a.mcp == nil {
		s, err := a.Snippet(e)
		if err != nil {
			return nil, err
		}
		rep.Snippet = s
	}
	return rep, apply(e, a, a.edits(e), rep)
}

// InstallMCP writes only a's MCP configuration (`mcp config --write`).
func InstallMCP(e Env, a *Agent) (*Report, error) {
	rep := &Report{Agent: a.Name, Title: a.Title}
	if a.mcp == nil {
		return nil, fmt.Errorf("%s reads its MCP servers from no file: paste the snippet into its settings", a.Title)
	}
	return rep, apply(e, a, a.edits(e)[:1], rep)
}

// byFile groups edits by file, in the order files first appear.
func byFile(edits []edit) (files []string, group map[string][]edit) {
	group = map[string][]edit{}
	for _, ed := range edits {
		if _, ok := group[ed.file]; !ok {
			files = append(files, ed.file)
		}
		group[ed.file] = append(group[ed.file], ed)
	}
	return files, group
}

func apply(e Env, a *Agent, edits []edit, rep *Report) error {
	rec, err := loadRecord(e)
	if err != nil {
		return err
	}
	files, group := byFile(edits)
	for _, file := range files {
		cur, err := readFile(file)
		if err != nil {
			return err
		}
		next := cur
		var what []string
		for _, ed := range group[file] {
			if next, err = ed.apply(next); err != nil {
				return fmt.Errorf("%s: %w; fix the file, or add the configuration by hand (`git konteks mcp config --client %s` prints it)", file, err, a.Name)
			}
			what = append(what, ed.what)
		}
		ch := Change{File: file, What: what, Action: "unchanged"}
		fr := rec.Files[file]
		if !bytes.Equal(cur, next) {
			ch.Action = "updated"
			if fr == nil {
				fr = &fileRecord{Existed: cur != nil, Before: cur}
				rec.Files[file] = fr
				if cur == nil {
					ch.Action = "created"
				}
			}
			made, err := writeFile(file, next)
			if err != nil {
				return err
			}
			if fr.Dirs == nil {
				fr.Dirs = made
			}
			fr.After = digest(next)
		}
		if fr != nil && !slices.Contains(fr.Agents, a.Name) {
			fr.Agents = append(fr.Agents, a.Name)
			sort.Strings(fr.Agents)
		}
		rep.Changes = append(rep.Changes, ch)
	}
	return rec.save(e)
}

// Remove undoes what Install wrote for a: a file untouched since (and not
// needed by another agent) gets back its bytes from before, or goes when
// git konteks created it; a file edited since loses only git konteks's
// parts.
func Remove(e Env, a *Agent) (*Report, error) {
	rep := &Report{Agent: a.Name, Title: a.Title}
	rec, err := loadRecord(e)
	if err != nil {
		return nil, err
	}
	files, group := byFile(a.edits(e))
	for _, file := range files {
		cur, err := readFile(file)
		if err != nil {
			return nil, err
		}
		var what []string
		for _, ed := range group[file] {
			what = append(what, ed.what)
		}
		ch := Change{File: file, What: what, Action: "unchanged"}
		fr := rec.Files[file]
		var others []string
		if fr != nil {
			others = slices.DeleteFunc(slices.Clone(fr.Agents), func(n string) bool { return n == a.Name })
		}
		switch {
		case cur == nil:
			if fr != nil && len(others) == 0 {
				delete(rec.Files, file)
			}
		case fr != nil && len(others) == 0 && digest(cur) == fr.After:
			if fr.Existed {
				if _, err := writeFile(file, fr.Before); err != nil {
					return nil, err
				}
				ch.Action = "restored"
			} else {
				if err := os.Remove(file); err != nil {
					return nil, err
				}
				removeDirs(fr.Dirs)
				ch.Action = "removed"
			}
			delete(rec.Files, file)
		default:
			next := cur
			owned := false
			for _, ed := range group[file] {
				if ed.shared && len(others) > 0 {
					continue
				}
				if ed.owned {
					owned = true
					continue
				}
				if next, err = ed.undo(next); err != nil {
					return nil, fmt.Errorf("%s: %w; remove git konteks's entries by hand", file, err)
				}
			}
			switch {
			case owned:
				if err := os.Remove(file); err != nil {
					return nil, err
				}
				if fr != nil {
					removeDirs(fr.Dirs)
				}
				ch.Action = "removed"
			case !bytes.Equal(cur, next):
				if _, err := writeFile(file, next); err != nil {
					return nil, err
				}
				ch.Action = "edited"
			}
			if fr != nil {
				if fr.Agents = others; len(others) == 0 {
					delete(rec.Files, file)
				} else if ch.Action == "edited" && digest(cur) == fr.After {
					fr.After = digest(next)
				}
			}
		}
		rep.Changes = append(rep.Changes, ch)
	}
	return rep, rec.save(e)
}

// The record of what was written, in GitDir/konteks/agents.json: per
// file, its bytes before git konteks first wrote it, a digest of what it
// wrote last, the directories it created, and the agents it was written
// for.
type record struct {
	Files map[string]*fileRecord `json:"files"`
}

type fileRecord struct {
	Existed bool     `json:"existed"`
	Before  []byte   `json:"before,omitempty"`
	After   string   `json:"after"`
	Dirs    []string `json:"dirs,omitempty"`
	Agents  []string `json:"agents"`
}

func recordFile(e Env) string { return filepath.Join(e.GitDir, "konteks", "agents.json") }

func loadRecord(e Env) (*record, error) {
	rec := &record{Files: map[string]*fileRecord{}}
	b, err := os.ReadFile(recordFile(e))
	if errors.Is(err, os.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, rec); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): delete it; --remove then takes out only git konteks's entries", recordFile(e), err)
	}
	if rec.Files == nil {
		rec.Files = map[string]*fileRecord{}
	}
	return rec, nil
}

func (r *record) save(e Env) error {
	if len(r.Files) == 0 {
		err := os.Remove(recordFile(e))
		if errors.Is(err, os.ErrNotExist) {
			err = nil
		}
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(recordFile(e)), 0o755); err != nil {
		return err
	}
	_, err = writeFileMode(recordFile(e), append(b, '\n'), 0o600)
	return err
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// readFile is the file's bytes, nil when it does not exist.
func readFile(file string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if b == nil && err == nil {
		b = []byte{}
	}
	return b, err
}

// writeFile replaces file atomically, keeping its mode, and returns the
// directories it had to create (outermost first).
func writeFile(file string, b []byte) ([]string, error) {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
	}
	return writeFileMode(file, b, mode)
}

func writeFileMode(file string, b []byte, mode os.FileMode) ([]string, error) {
	var made []string
	for d := filepath.Dir(file); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		made = append([]string{d}, made...)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, err
	}
	tmp := file + ".konteks-tmp"
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return nil, err
	}
	return made, os.Rename(tmp, file)
}

// removeDirs removes the directories git konteks created, innermost
// first, while they are empty.
func removeDirs(dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		if os.Remove(dirs[i]) != nil {
			return
		}
	}
}
