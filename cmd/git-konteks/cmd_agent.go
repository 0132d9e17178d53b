package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/agent"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// agentOptions are the flags of `init` and `hooks install` that wire
// coding agents (the same code path for both).
type agentOptions struct {
	Agents []string // --agent, repeatable
	Remove bool
}

// agentFlags declares --agent, bound to agents (the command copies its
// value into agentOptions.Agents when it runs), and --remove.
func agentFlags(agents *cli.StringSlice, remove *bool) []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "agent", Destination: agents, Usage: "wire the coding agent `NAME` (" + strings.Join(agent.Names(), ", ") +
			", or all-detected): its MCP configuration, its session hooks and a block in AGENTS.md/CLAUDE.md/GEMINI.md saying when to call recall; repeatable"},
		&cli.BoolFlag{Name: "remove", Destination: remove, Usage: "with --agent: undo what --agent wrote (a file untouched since gets back its bytes)"},
	}
}

// agentEnv is the environment agents are wired in for repo.
func agentEnv(g *GlobalOptions, repo *gitstore.Repo) (agent.Env, error) {
	dir := repo.WorkTree
	if dir == "" {
		return agent.Env{}, fmt.Errorf("--agent needs a work tree: agents read their files from the repository's top directory")
	}
	return agent.EnvOf(g.Getenv, dir, repo.CommonDir, g.executable())
}

// selectAgents resolves the --agent names (all-detected: the agents whose
// files or programs are found).
func selectAgents(e agent.Env, names []string) ([]*agent.Agent, error) {
	var out []*agent.Agent
	seen := map[string]bool{}
	add := func(a *agent.Agent) {
		if !seen[a.Name] {
			seen[a.Name] = true
			out = append(out, a)
		}
	}
	for _, n := range names {
		for _, n := range strings.Split(n, ",") {
			if n = strings.TrimSpace(n); n == "all-detected" {
				for _, a := range agent.Detected(e) {
					add(a)
				}
				continue
			}
			a, err := agent.Lookup(n)
			if err != nil {
				return nil, cli.Exit("git-konteks: "+err.Error(), 2)
			}
			add(a)
		}
	}
	return out, nil
}

// wireAgents runs --agent (or --agent --remove) and says what it did.
func wireAgents(g *GlobalOptions, w io.Writer, repo *gitstore.Repo, names []string, remove bool) ([]*agent.Report, error) {
	e, err := agentEnv(g, repo)
	if err != nil {
		return nil, err
	}
	agents, err := selectAgents(e, names)
	if err != nil {
		return nil, err
	}
	if len(agents) == 0 {
		fmt.Fprintln(w, "agents: none detected (name one with --agent NAME: "+strings.Join(agent.Names(), ", ")+")")
	}
	reports := []*agent.Report{}
	for _, a := range agents {
		var rep *agent.Report
		if remove {
			rep, err = agent.Remove(e, a)
		} else {
			rep, err = agent.Install(e, a)
		}
		if err != nil {
			return reports, fmt.Errorf("%s: %w", a.Title, err)
		}
		reports = append(reports, rep)
		for _, ch := range rep.Changes {
			fmt.Fprintf(w, "%s: %s %s (%s)\n", a.Name, ch.Action, ch.File, strings.Join(ch.What, ", "))
		}
		if rep.Snippet != "" {
			fmt.Fprintf(w, "%s: it reads MCP servers from its settings (Settings | Tools | AI Assistant | Model Context Protocol); add:\n%s", a.Name, rep.Snippet)
		}
	}
	return reports, nil
}

// runHooksSessionStart is the agents' session-start hook: it says which
// commit memory describes, in the hook output the agent reads (Claude
// Code, Codex and Gemini CLI add hookSpecificOutput.additionalContext to
// the conversation; the others show plain text).
func runHooksSessionStart(_ context.Context, opts sessionStartOptions, g *GlobalOptions, _ []string) error {
	// The agent writes its payload on stdin; nothing in it is needed, but
	// it is read so the agent's write does not fail. A terminal (someone
	// trying the hook by hand) is not waited on.
	if f, ok := g.Stdin.(*os.File); !ok {
		io.Copy(io.Discard, g.Stdin)
	} else if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice == 0 {
		io.Copy(io.Discard, f)
	}
	text := sessionStartText(g)
	w := g.Stdout
	switch opts.Agent {
	case "claude", "codex", "gemini":
		return json.NewEncoder(w).Encode(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "SessionStart", "additionalContext": text}})
	case "cursor":
		return json.NewEncoder(w).Encode(map[string]any{"additional_context": text})
	}
	_, err := fmt.Fprintln(w, text)
	return err
}

// sessionStartText is one line on the state of memory; it never fails (a
// hook that fails would get in the agent's way).
func sessionStartText(g *GlobalOptions) string {
	repo, err := g.openRepo()
	if err != nil {
		return "git konteks: not in a git repository, so there is no memory to recall from."
	}
	mem, err := memref.Read(repo, memory.Ref)
	switch {
	case err != nil:
		return "git konteks: memory is unreadable; run `git konteks extract --mode rebuild`."
	case mem == nil || !mem.Derived():
		return "git konteks: no memory of this repository yet; run `git konteks extract` (or call the refresh tool) before using recall."
	}
	src := mem.Manifest.SourceCommit
	head, err := repo.Resolve("HEAD")
	switch {
	case err != nil || head.Hash.String() == src:
		return fmt.Sprintf("git konteks: memory describes commit %s, which is HEAD. Call recall with the task before changing code.", shortHash(src))
	default:
		return fmt.Sprintf("git konteks: memory describes commit %s; HEAD is %s, so files changed since may be described as they were. Call recall with the task before changing code; call refresh if the answer looks out of date.",
			shortHash(src), shortHash(head.Hash.String()))
	}
}
