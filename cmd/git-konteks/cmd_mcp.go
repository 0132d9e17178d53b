package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/agent"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/mcp"
)

// mcpOptions are the flags of `mcp`.
type mcpOptions struct {
	Repo, HTTP  string
	AllowRemote bool
}

// mcpConfigOptions are the flags of `mcp config`.
type mcpConfigOptions struct {
	Client string
	Write  bool
}

func mcpCommand(g *GlobalOptions) *cli.Command {
	var opts mcpOptions
	var configOpts mcpConfigOptions
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve memory to coding agents over the Model Context Protocol (stdio or streamable HTTP)",
		Description: "Runs an MCP server on stdin/stdout for an agent (Claude Code, Codex, Cursor, VS Code, ...):\n" +
			fmt.Sprintf("%d tools (%s);\n", len(mcp.Tools), wrapList(mcp.Tools, 80)) +
			fmt.Sprintf("%d prompts (%s);\n", len(mcp.Prompts), strings.Join(mcp.Prompts, ", ")) +
			"resources konteks://project, konteks://dir/PATH, konteks://file/PATH and\n" +
			"konteks://skill/NAME. The server stays up while the agent runs, keeping the index open, and\n" +
			"follows refs/konteks as it moves. Without --repo or -C it serves the repository of the\n" +
			"client's roots (else of the current directory); outside a repository it keeps serving and\n" +
			"every tool says what to do. --http serves the streamable HTTP transport at\n" +
			"http://ADDR" + mcp.HTTPPath + " instead (loopback only unless --allow-remote; a bearer token is\n" +
			"required when $" + mcp.TokenEnv + " is set). `git konteks mcp config --client NAME` prints the\n" +
			"client's configuration. See docs/mcp.md.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "repo", Destination: &opts.Repo, Usage: "serve the repository containing `DIR` (like -C; the client's roots are then not followed)"},
			&cli.StringFlag{Name: "http", Destination: &opts.HTTP, Usage: "serve streamable HTTP on `ADDR` (HOST:PORT, e.g. 127.0.0.1:8765) instead of stdio"},
			&cli.BoolFlag{Name: "allow-remote", Destination: &opts.AllowRemote, Usage: "allow a non-loopback --http address (needs a token in $" + mcp.TokenEnv + ")"},
		},
		Action: func(c *cli.Context) error { return runMCP(c.Context, opts, g, c.Args().Slice()) },
		Subcommands: []*cli.Command{{
			Name:  "config",
			Usage: "print (or --write) the configuration a client needs to start this server",
			Description: "Clients: claude (Claude Code: .mcp.json in the repository), claude-desktop\n" +
				"(claude_desktop_config.json), codex ($CODEX_HOME/config.toml, default ~/.codex), cursor\n" +
				"(.cursor/mcp.json), vscode (.vscode/mcp.json), gemini (.gemini/settings.json), kiro\n" +
				"(.kiro/settings/mcp.json), opencode (opencode.json), windsurf\n" +
				"(~/.codeium/windsurf/mcp_config.json), zed (~/.config/zed/settings.json), jetbrains (its\n" +
				"settings dialog: printed only). --write adds the server to that file and keeps everything\n" +
				"else in it, comments included; `git konteks init --agent NAME` also wires hooks and\n" +
				"instructions.",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "client", Required: true, Destination: &configOpts.Client, Usage: "`CLIENT`: " + strings.Join(agent.Names(), ", ")},
				&cli.BoolFlag{Name: "write", Destination: &configOpts.Write, Usage: "write it into the client's configuration file"},
				jsonFlag(),
			},
			Action: func(c *cli.Context) error { return runMCPConfig(c.Context, configOpts, g, c.Args().Slice()) },
		}},
	}
}

func runMCP(ctx context.Context, opts mcpOptions, g *GlobalOptions, args []string) error {
	if len(args) > 0 {
		return cli.Exit(fmt.Sprintf("unknown argument %q: usage: git konteks mcp [--repo DIR] [--http ADDR] [config --client NAME]", args[0]), 2)
	}
	// A server outlives many memories: its signals are copies, never
	// mappings it would keep (see history.InPlace).
	history.InPlace = false
	opt := mcp.Options{ToolVersion: version}
	switch {
	case opts.Repo != "":
		opt.Dir = g.abs(opts.Repo)
	case g.DirErr != nil:
		opt.DirErr = fmt.Errorf("not a git repository: %v — -C names a directory that cannot be entered; open a repository or pass --repo DIR", g.DirErr)
	case g.Dir != "":
		opt.Dir = g.Dir
	}
	if opt.Dir != "" && opt.DirErr == nil {
		if abs, err := filepath.Abs(opt.Dir); err == nil {
			opt.Dir = abs
		}
	}
	token := g.Getenv(mcp.TokenEnv)
	if addr := opts.HTTP; addr != "" {
		// Refuse a bad address before anything starts.
		if err := mcp.CheckAddr(addr, opts.AllowRemote, token); err != nil {
			return cli.Exit("git-konteks: "+err.Error(), 2)
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := mcp.New(ctx, opt)
	if err != nil {
		return err
	}
	defer s.Close()
	if addr := opts.HTTP; addr != "" {
		err := s.ServeHTTP(ctx, mcp.HTTPOptions{Addr: addr, AllowRemote: opts.AllowRemote, Token: token, Ready: func(a string) {
			auth := "no token"
			if token != "" {
				auth = "bearer token from $" + mcp.TokenEnv
			}
			fmt.Fprintf(g.Stderr, "git konteks: serving MCP (streamable HTTP) at http://%s%s (%s)\n", a, mcp.HTTPPath, auth)
		}})
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	// stdout carries the protocol and nothing else (reserveStdout).
	proto := g.Stdout
	g.reserveStdout()
	in, ok := g.Stdin.(io.ReadCloser)
	if !ok {
		in = io.NopCloser(g.Stdin)
	}
	out, ok := proto.(io.WriteCloser)
	if !ok {
		out = nopWriteCloser{proto}
	}
	err = s.Run(ctx, &sdk.IOTransport{Reader: in, Writer: out})
	if ctx.Err() != nil {
		return nil // interrupted: a normal way for a client to stop us
	}
	return err
}

// mcpConfigReport is `mcp config --json`.
type mcpConfigReport struct {
	Client string `json:"client"`
	Title  string `json:"title"`
	// File is where the client reads it ("" for a client that reads it
	// from its settings dialog); Project says it is in the repository (to
	// commit and share) rather than the user's.
	File    string   `json:"file"`
	Project bool     `json:"project"`
	Snippet string   `json:"snippet"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Written bool     `json:"written"` // --write was asked
	Changed bool     `json:"changed"` // the file was changed
}

func runMCPConfig(_ context.Context, opts mcpConfigOptions, g *GlobalOptions, _ []string) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	e, err := agentEnv(g, repo)
	if err != nil {
		return err
	}
	a, ok := agent.Agents[opts.Client]
	if !ok {
		return cli.Exit(fmt.Sprintf("git-konteks: unknown client %q: one of %s", opts.Client, strings.Join(agent.Names(), ", ")), 2)
	}
	snippet, err := a.Snippet(e)
	if err != nil {
		return err
	}
	file, project := a.MCPFile(e)
	rep := mcpConfigReport{Client: a.Name, Title: a.Title, File: file, Project: project, Snippet: snippet,
		Command: e.Binary, Args: []string{"-C", e.Repo, "mcp"}, Written: opts.Write}
	if rep.Written {
		r, err := agent.InstallMCP(e, a)
		if err != nil {
			return err
		}
		rep.Changed = r.Changes[0].Action != "unchanged"
	}
	switch {
	case g.JSON:
		return g.printJSON(rep)
	case !rep.Written:
		fmt.Fprint(g.Stdout, snippet)
		if file == "" {
			fmt.Fprintf(g.Stderr, "(%s reads it from its settings: Settings | Tools | AI Assistant | Model Context Protocol)\n", a.Title)
		} else {
			fmt.Fprintf(g.Stderr, "(%s reads it from %s; --write adds it there)\n", a.Title, file)
		}
	case rep.Changed:
		fmt.Fprintf(g.Stdout, "wrote %s: server %q runs %s -C %s mcp\n", file, mcp.Name, e.Binary, e.Repo)
	default:
		fmt.Fprintf(g.Stdout, "%s already configures server %q\n", file, mcp.Name)
	}
	return nil
}

// nopWriteCloser lets the MCP transport close what it writes to without
// closing the caller's writer.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
