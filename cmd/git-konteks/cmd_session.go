package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/session"
)

func sessionCommand(g *GlobalOptions) *cli.Command {
	var ingest sessionIngestOptions
	return &cli.Command{
		Name:  "session",
		Usage: "distill agent session transcripts into durable memory; list and show session records",
		Subcommands: []*cli.Command{
			{
				Name:      "ingest",
				Usage:     "read a session transcript (Claude Code, Codex, Gemini CLI or generic) and save what it taught",
				ArgsUsage: "[FILE|-]",
				Description: "Reads FILE, or stdin when FILE is - or absent. Stdin may also be an agent hook's JSON\n" +
					"payload naming the transcript ({\"transcript_path\": ...}, as Claude Code and Gemini CLI\n" +
					"send to session-end hooks). Saves the task, constraints and preferences the person gave,\n" +
					"accepted decisions, cases (an error and its fix), commands that worked, and a session\n" +
					"record with the files and commits; every text passes the secret detector. Ingesting the\n" +
					"same transcript again writes nothing. `git config konteks.sessions.enabled false` turns\n" +
					"ingestion off (the command then exits 0 and writes nothing).",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "agent", Destination: &ingest.Agent, Usage: "`NAME` of the agent that wrote the transcript: " + strings.Join(session.Agents, ", ") + " (default: detected)"},
					&cli.BoolFlag{Name: "keep-raw", Destination: &ingest.KeepRaw, Usage: "also keep the conversation's text in the record (redacted, at most 8 KB)"},
					&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &ingest.Quiet, Usage: "print nothing on success (for hooks)"},
					jsonFlag(),
				},
				Action: func(c *cli.Context) error {
					return runSessionIngest(c.Context, ingest, g, c.Args().Slice())
				},
			},
			{
				Name: "list", Usage: "list the session records (newest first)",
				Flags: []cli.Flag{jsonFlag()},
				Action: func(c *cli.Context) error {
					return runSessionList(c.Context, g, c.Args().Slice())
				},
			},
			{
				Name: "show", Usage: "show one session record and the memories it produced", ArgsUsage: "ID",
				Flags: []cli.Flag{jsonFlag()},
				Action: func(c *cli.Context) error {
					return runSessionShow(c.Context, g, c.Args().Slice())
				},
			},
		},
	}
}

// sessionIngestOptions are the options of `session ingest`.
type sessionIngestOptions struct {
	Agent   string
	KeepRaw bool
	Quiet   bool
}

// hookPayload is what agents send to a session-end hook on stdin.
type hookPayload struct {
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	SessionID      string `json:"session_id"`
	Event          string `json:"hook_event_name"`
}

// runSessionIngest reads the transcript args name (a path relative to the
// current directory), or standard input, and saves what it taught.
func runSessionIngest(_ context.Context, o sessionIngestOptions, g *GlobalOptions, args []string) error {
	stdin, out, asJSON := g.Stdin, g.Stdout, g.JSON
	if len(args) > 1 {
		return cli.Exit("usage: git konteks session ingest [FILE|-]", 2)
	}
	var in io.Reader
	name := "-"
	if len(args) == 1 {
		name = args[0]
	}
	dir := ""
	if name == "-" {
		br := bufio.NewReaderSize(stdin, 64<<10)
		in = br
		if p, ok := peekPayload(br); ok {
			if p.TranscriptPath == "" {
				// A hook of an agent that does not say where its
				// transcript is: nothing to read, and no reason to fail
				// the agent's hook.
				if !o.Quiet {
					fmt.Fprintln(out, "the hook's payload names no transcript (transcript_path): nothing to ingest")
				}
				return nil
			}
			name, dir = p.TranscriptPath, p.Cwd
		}
	}
	repo, err := g.openRepo()
	if err != nil && dir != "" {
		repo, err = gitstore.Open(dir)
	}
	if err != nil {
		return err
	}
	if on, ok := gitstore.ParseBool(repo.ConfigValue("konteks.sessions.enabled")); ok && !on {
		if !o.Quiet && !asJSON {
			fmt.Fprintln(out, "session ingestion is off (konteks.sessions.enabled): nothing saved")
		}
		if asJSON {
			return printJSONTo(out, map[string]any{"disabled": true})
		}
		return nil
	}
	if name != "-" {
		f, err := openTranscript(g.abs(gitstore.ExpandHome(name)))
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	dg, err := session.Read(in, session.ReadOptions{Agent: o.Agent, KeepRaw: o.KeepRaw})
	if err != nil {
		return fmt.Errorf("%s: %w (nothing saved)", displayName(name), err)
	}
	res, err := session.Ingest(repo, dg, time.Now())
	if err != nil {
		return err
	}
	if asJSON {
		return printJSONTo(out, res)
	}
	if o.Quiet {
		return nil
	}
	if res.New == 0 {
		fmt.Fprintf(out, "session %s already ingested: nothing new (record %s)\n", res.Record.Record.Key, short(res.Record.ID))
		return nil
	}
	fmt.Fprintf(out, "ingested %s: %d memories, record %s (%d bytes written", res.Record.Record.Key, len(res.Memories), short(res.Record.ID), res.Written)
	if res.Redacted > 0 {
		fmt.Fprintf(out, ", %d credentials redacted", res.Redacted)
	}
	fmt.Fprintln(out, ")")
	for _, m := range res.Memories {
		fmt.Fprintf(out, "  %s  %-10s %s\n", short(m.ID), m.Kind, clip(m.Text, 100))
	}
	return nil
}

// peekPayload reads a hook's JSON payload from the start of stdin, if it
// is one: a small JSON object, alone on stdin, with a transcript_path, a
// session_id or a hook_event_name.
func peekPayload(br *bufio.Reader) (hookPayload, bool) {
	head, _ := br.Peek(64 << 10)
	head = bytes.TrimSpace(head)
	if len(head) == 0 || head[0] != '{' {
		return hookPayload{}, false
	}
	var p hookPayload
	d := json.NewDecoder(bytes.NewReader(head))
	if d.Decode(&p) != nil || (p.TranscriptPath == "" && p.SessionID == "" && p.Event == "") {
		return hookPayload{}, false
	}
	if p.TranscriptPath == "" && d.More() {
		return hookPayload{}, false // the first line of a transcript
	}
	return p, true
}

// openTranscript opens a regular file (not a device or a FIFO that would
// never end).
func openTranscript(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s: not a regular file", name)
		}
		return nil, err
	}
	return f, nil
}

func displayName(n string) string {
	if n == "-" {
		return "stdin"
	}
	return n
}

func short(id string) string {
	if len(id) > 10 {
		return id[:10]
	}
	return id
}

func runSessionList(_ context.Context, g *GlobalOptions, _ []string) error {
	asJSON, out := g.JSON, g.Stdout
	items, err := loadDurable(g)
	if err != nil {
		return err
	}
	recs := durable.Sessions(items)
	if asJSON {
		if recs == nil {
			recs = []durable.Item{}
		}
		return printJSONTo(out, recs)
	}
	if len(recs) == 0 {
		fmt.Fprintln(out, "no session records yet: ingest one with `git konteks session ingest FILE`")
		return nil
	}
	for _, it := range recs {
		r := it.Record
		fmt.Fprintf(out, "%s  %s  %-12s %s  (%d memories, %d commits, by %s)\n", short(it.ID), it.Created.Local().Format("2006-01-02"),
			r.Agent, clip(it.Text, 80), len(r.Memories), len(r.Commits), it.Author)
	}
	return nil
}

func runSessionShow(_ context.Context, g *GlobalOptions, args []string) error {
	if len(args) != 1 {
		return cli.Exit("usage: git konteks session show ID", 2)
	}
	id, asJSON, out := args[0], g.JSON, g.Stdout
	items, err := loadDurable(g)
	if err != nil {
		return err
	}
	var recs []durable.Item
	for _, it := range items {
		if it.Type == durable.TypeSession {
			recs = append(recs, it)
		}
	}
	it, err := durable.Find(recs, id)
	if err != nil {
		return err
	}
	byID := map[string]durable.Item{}
	for _, m := range items {
		byID[m.ID] = m
	}
	var mems []durable.Item
	for _, m := range it.Record.Memories {
		if e, ok := byID[m]; ok {
			mems = append(mems, e)
		}
	}
	if asJSON {
		return printJSONTo(out, map[string]any{"record": it, "memories": mems})
	}
	r := it.Record
	fmt.Fprintf(out, "id:       %s\nsession:  %s\nagent:    %s\nauthor:   %s\nstatus:   %s\n", it.ID, r.Key, r.Agent, it.Author, it.Status)
	if !r.Start.IsZero() {
		fmt.Fprintf(out, "time:     %s – %s\n", r.Start.Local().Format("2006-01-02 15:04"), r.End.Local().Format("15:04"))
	}
	fmt.Fprintf(out, "task:     %s\n", it.Text)
	if r.Outcome != "" {
		fmt.Fprintf(out, "outcome:  %s\n", r.Outcome)
	}
	fmt.Fprintf(out, "steps:    %d messages, %d tool calls, %d failed\n", r.Messages, r.Calls, r.Failures)
	if len(r.Files) > 0 {
		fmt.Fprintf(out, "files:    %s\n", strings.Join(r.Files, ", "))
	}
	for _, c := range r.Commits {
		fmt.Fprintf(out, "commit:   %s\n", c)
	}
	if len(mems) > 0 {
		fmt.Fprintln(out, "\nmemories:")
		for _, m := range mems {
			fmt.Fprintf(out, "  %s  %-10s %s\n", short(m.ID), m.Kind, clip(m.Text, 110))
		}
	}
	if r.Raw != "" {
		fmt.Fprintf(out, "\nconversation (redacted):\n%s\n", r.Raw)
	}
	return nil
}
