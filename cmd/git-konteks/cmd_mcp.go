package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/mcp"
)

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve memory to coding agents over the Model Context Protocol (stdio)",
		Description: "Runs an MCP server on stdin/stdout for an agent (Claude Code, Codex, Cursor, VS Code, ...):\n" +
			fmt.Sprintf("%d tools (%s);\n", len(mcp.Tools), wrapList(mcp.Tools, 80)) +
			fmt.Sprintf("%d prompts (%s).\n", len(mcp.Prompts), strings.Join(mcp.Prompts, ", ")) +
			"The server stays up while the agent runs, keeping the index open, and follows refs/konteks\n" +
			"as it moves. `git konteks mcp config --client NAME` prints the client's configuration.",
		Action: runMCP,
		Subcommands: []*cli.Command{{
			Name:  "config",
			Usage: "print (or --write) the configuration a client needs to start this server",
			Description: "Clients: claude (.mcp.json in the repository), cursor (.cursor/mcp.json), vscode\n" +
				"(.vscode/mcp.json), codex ($CODEX_HOME/config.toml, default ~/.codex). --write adds the\n" +
				"server to that file and keeps everything else in it.",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "client", Required: true, Usage: "`CLIENT`: " + strings.Join(mcp.Clients, ", ")},
				&cli.BoolFlag{Name: "write", Usage: "write it into the client's configuration file"},
			},
			Action: runMCPConfig,
		}},
	}
}

func runMCP(c *cli.Context) error {
	if c.NArg() > 0 {
		return cli.Exit(fmt.Sprintf("unknown argument %q: usage: git konteks mcp [config --client NAME]", c.Args().First()), 2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := mcp.New(ctx, mcp.Options{ToolVersion: version})
	if err != nil {
		return err
	}
	defer s.Close()
	// stdout carries the protocol and nothing else: whatever else would
	// print to it (a library's stray output) goes to stderr, where clients
	// log it, instead of corrupting the stream.
	proto := os.Stdout
	os.Stdout = os.Stderr
	err = s.Run(ctx, &sdk.IOTransport{Reader: os.Stdin, Writer: proto})
	if ctx.Err() != nil {
		return nil // interrupted: a normal way for a client to stop us
	}
	return err
}

func runMCPConfig(c *cli.Context) error {
	repo, err := openRepo()
	if err != nil {
		return err
	}
	dir := repo.WorkTree
	if dir == "" {
		dir = repo.GitDir
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	if p, err := filepath.EvalSymlinks(bin); err == nil {
		bin = p
	}
	cfg, err := mcp.Config(c.String("client"), bin, dir)
	if err != nil {
		return cli.Exit("git-konteks: "+err.Error(), 2)
	}
	if !c.Bool("write") {
		fmt.Fprint(c.App.Writer, cfg.Snippet)
		fmt.Fprintf(os.Stderr, "(goes in %s; --write adds it there)\n", cfg.File)
		return nil
	}
	changed, err := cfg.Write()
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(c.App.Writer, "wrote %s: server %q runs %s -C %s mcp\n", cfg.File, mcp.Name, bin, dir)
	} else {
		fmt.Fprintf(c.App.Writer, "%s already configures server %q\n", cfg.File, mcp.Name)
	}
	return nil
}
