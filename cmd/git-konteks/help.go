package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/manifest"
	"github.com/konteks/git-konteks/memory"
)

// wireCLI gives the command tree git's manners: `help [COMMAND...]`, an
// unknown command answered with the nearest one and exit 2, usage errors
// with exit 2, errors left to main (which prints them as text or, with
// --json, as a JSON object), and a version that names the memory formats.
func wireCLI(app *cli.App) {
	app.Commands = append(app.Commands, helpCommand())
	app.Action = func(c *cli.Context) error {
		if c.Args().Present() {
			return unknownCommand(c.Args().First(), app.Commands, "")
		}
		return cli.ShowAppHelp(c)
	}
	app.ExitErrHandler = func(*cli.Context, error) {} // main reports errors
	app.OnUsageError = usageError
	app.HideHelpCommand = true // `help` is the command below, listed like the others
	guardSubcommands(app.Commands, "")
	// Before any command runs (and so before urfave/cli would add its
	// shared one), every command gets its `help` (subcommandHelp).
	app.Before = func(*cli.Context) error {
		addSubcommandHelp(app.Commands)
		return nil
	}
}

// addSubcommandHelp gives each command, and each of their subcommands,
// its own `help` subcommand, as urfave/cli gives each one (`extract help`,
// `hooks help install`) when it runs the command: once, however often it
// is called. A command without subcommands of its own keeps the help
// page of one (urfave/cli picks the page by the number of subcommands,
// and adds its `help` only to the command it runs).
func addSubcommandHelp(cmds []*cli.Command) {
	for _, c := range cmds {
		if c.HideHelp || c.Command("help") != nil {
			continue
		}
		if len(c.Subcommands) == 0 && c.CustomHelpTemplate == "" {
			c.CustomHelpTemplate = cli.CommandHelpTemplate
		}
		addSubcommandHelp(c.Subcommands)
		c.Subcommands = append(c.Subcommands, subcommandHelp())
	}
}

// The version printer is urfave/cli's package variable: set once, not
// per app, so apps built concurrently (commands run in-process) do not
// race on it. So are --help and --version, which urfave/cli adds to every
// app and command: they are wrapped once here (sharedFlag).
func init() {
	cli.VersionPrinter = func(c *cli.Context) { printVersion(c.App.Writer) }
	bare := &cli.App{HideHelp: true}
	bare.Setup()
	urfaveHelp = bare.Action
	if f, ok := cli.HelpFlag.(*cli.BoolFlag); ok {
		cli.HelpFlag = sharedFlag{f}
	}
	if f, ok := cli.VersionFlag.(*cli.BoolFlag); ok {
		cli.VersionFlag = sharedFlag{f}
	}
}

// sharedFlag is a flag urfave/cli keeps in a package variable and hands
// to every app (--help, --version). BoolFlag.Apply writes to the flag it
// is called on (its default value), so two command lines parsed at once
// in one process would write to the one flag: Apply works on a copy.
type sharedFlag struct{ *cli.BoolFlag }

// Apply registers a copy of the flag with set.
func (f sharedFlag) Apply(set *flag.FlagSet) error {
	c := *f.BoolFlag
	return c.Apply(set)
}

// helpCommand is `git konteks help [COMMAND [SUBCOMMAND]]`; `--man` prints
// the manual page (`make man`), built from the same definitions as -h.
func helpCommand() *cli.Command {
	var man bool
	return &cli.Command{
		Name:      "help",
		Usage:     "show help for git konteks or for one command",
		ArgsUsage: "[COMMAND [SUBCOMMAND]]",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "man", Destination: &man, Usage: "print the manual page (roff), as installed by make install"}},
		Action: func(c *cli.Context) error {
			if man {
				return writeMan(c.App.Writer, c.App)
			}
			args := c.Args().Slice()
			if len(args) == 0 {
				return cli.ShowAppHelp(c)
			}
			cmds, path := c.App.Commands, []string{}
			for _, a := range args {
				cmd := findCommand(cmds, a)
				if cmd == nil {
					return unknownCommand(a, cmds, strings.Join(path, " "))
				}
				path = append(path, cmd.Name)
				cmds = cmd.Subcommands
			}
			return c.App.Run(append(append([]string{c.App.Name}, path...), "--help"))
		},
	}
}

// guardSubcommands makes a command with subcommands refuse an argument
// that names none of them (`hooks instal`), instead of running its
// default action on it; and it sets git's exit status on usage errors.
func guardSubcommands(cmds []*cli.Command, parent string) {
	for _, cmd := range cmds {
		cmd.OnUsageError = usageError
		path := strings.TrimSpace(parent + " " + cmd.Name)
		if len(cmd.Subcommands) == 0 {
			continue
		}
		guardSubcommands(cmd.Subcommands, path)
		action, subs := cmd.Action, cmd.Subcommands[:len(cmd.Subcommands):len(cmd.Subcommands)]
		cmd.Action = func(c *cli.Context) error {
			if c.Args().Present() {
				return unknownCommand(c.Args().First(), subs, path)
			}
			if action == nil {
				return cli.ShowSubcommandHelp(c)
			}
			return action(c)
		}
	}
}

// subcommandHelp is `COMMAND help [SUBCOMMAND]`, what urfave/cli gives
// every command, made per command: urfave/cli's own is one package
// variable it appends to each command it runs and then writes to (its
// help name, its flags), so two command lines run at once in one process
// would write to the one value. It is urfave/cli's in all else, its
// action included (urfaveHelp).
func subcommandHelp() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "Shows a list of commands or help for one command",
		ArgsUsage: "[command]",
		// Not urfave/cli's shared `help` under it either.
		HideHelpCommand: true,
		Action:          urfaveHelp,
	}
}

// urfaveHelp is the action of urfave/cli's help command, which it gives
// an app without an action of its own (taken once, in init: Setup writes
// to the app it sets up).
var urfaveHelp cli.ActionFunc

// eachDocumented calls fn, depth first, with each command that has a
// section in the manual page and rows in the flag table and its name
// below git konteks ("memories forget"): every command not hidden, nor a
// command's `help` (subcommandHelp, which -h lists as urfave/cli always
// has).
func eachDocumented(cmds []*cli.Command, fn func(name string, c *cli.Command)) {
	var walk func(cmds []*cli.Command, parent string)
	walk = func(cmds []*cli.Command, parent string) {
		for _, c := range cmds {
			if c.Hidden || (parent != "" && c.Name == "help") {
				continue
			}
			name := strings.TrimSpace(parent + " " + c.Name)
			fn(name, c)
			walk(c.Subcommands, name)
		}
	}
	walk(cmds, "")
}

// commandFlags are the flags a command's documentation lists: the visible
// ones but -h.
func commandFlags(c *cli.Command) []cli.Flag {
	var fs []cli.Flag
	for _, f := range c.VisibleFlags() {
		if f.Names()[0] != "help" {
			fs = append(fs, f)
		}
	}
	return fs
}

// usageError reports a flag the command does not know, or a bad flag
// value, with exit status 2 and a pointer to the command's help.
func usageError(c *cli.Context, err error, isSubcommand bool) error {
	if errors.Is(err, flag.ErrHelp) {
		return cli.ShowAppHelp(c) // -h before any command
	}
	where := "git konteks"
	flags := c.App.VisibleFlags()
	if isSubcommand && c.Command != nil {
		where += " " + strings.TrimPrefix(c.Command.FullName(), c.App.Name+" ")
		flags = c.Command.VisibleFlags()
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, undefinedFlag); ok {
		msg += flagHint(where, typedFlag(c, name), flags)
	}
	return codedError{code: "usage", exit: 2, msg: fmt.Sprintf("%s (see `%s -h`)", msg, where)}
}

// typedFlag is the argument as typed that the flag package reports as
// name (without its dashes).
func typedFlag(c *cli.Context, name string) string {
	if g, ok := c.App.Metadata["globals"].(*GlobalOptions); ok {
		for _, a := range g.argv {
			if a == "--" {
				break
			}
			if strings.HasPrefix(a, "-") && strings.TrimLeft(a, "-") == name {
				return a
			}
		}
	}
	return "-" + name
}

// undefinedFlag starts the error urfave/cli (the flag package) reports for
// an unknown flag; the flag's name follows, without its dashes.
const undefinedFlag = "flag provided but not defined: -"

// flagHint is what follows an unknown flag's error: the nearest flags of
// the command, as git suggests commands; or, for what cannot be a flag
// (it holds a space: a task or text that starts with a dash), how to pass
// it: after --, which ends the options.
func flagHint(where, typed string, flags []cli.Flag) string {
	name := strings.TrimLeft(typed, "-")
	if strings.ContainsAny(name, " \t\n") {
		return fmt.Sprintf("; an argument that starts with a dash goes after --, as in `%s -- %q`", where, typed)
	}
	var names []string
	for _, f := range flags {
		if isJSONFlag(f) {
			continue
		}
		names = append(names, f.Names()...)
	}
	names = append(names, "json")
	var near []string
	best := 1 << 30
	for _, n := range names {
		d := editDistance(name, n)
		if len(name) >= 2 && len(n) > 1 && strings.HasPrefix(n, name) {
			d = min(d, 1)
		}
		if d > 2 || d >= len(n) || (len(n) == 1 && d > 0) {
			continue
		}
		dashed := "--" + n
		if len(n) == 1 {
			dashed = "-" + n
		}
		switch {
		case d < best:
			best, near = d, []string{dashed}
		case d == best && !slices.Contains(near, dashed):
			near = append(near, dashed)
		}
	}
	sort.Strings(near)
	switch len(near) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("; did you mean '%s'?", near[0])
	}
	return "; did you mean one of '" + strings.Join(near, "', '") + "'?"
}

// unknownCommand answers a mistyped command as git does, naming the
// nearest command when one is close.
func unknownCommand(name string, cmds []*cli.Command, parent string) error {
	what := "command"
	if parent != "" {
		what = parent + " command"
	}
	msg := fmt.Sprintf("unknown %s '%s'", what, name)
	if s := suggest(name, cmds); len(s) == 1 {
		msg += fmt.Sprintf("; did you mean '%s'?", s[0])
	} else if len(s) > 1 {
		msg += "; did you mean one of '" + strings.Join(s, "', '") + "'?"
	} else {
		msg += fmt.Sprintf(" (see `git konteks %s`)", strings.TrimSpace("help "+parent))
	}
	return codedError{code: "unknown_command", exit: 2, msg: msg}
}

// suggest returns the visible commands nearest to name: those within a
// small edit distance (a transposition counts as one edit), or that name
// starts, best first.
func suggest(name string, cmds []*cli.Command) []string {
	best, out := 1<<30, []string(nil)
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		for _, n := range c.Names() {
			d := editDistance(name, n)
			if len(name) >= 2 && strings.HasPrefix(n, name) {
				d = min(d, 1)
			}
			if d > 2 || d >= len(n) {
				continue
			}
			switch {
			case d < best:
				best, out = d, []string{c.Name}
			case d == best && !slices.Contains(out, c.Name):
				out = append(out, c.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and adjacent transpositions.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// printVersion prints the tool's version and the versions of the formats
// it reads and writes: memory written by a tool with other record or
// history versions is rebuilt, a newer manifest schema is refused, and the
// local search index is rebuilt on any other version.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "git-konteks version %s\n", version)
	fmt.Fprintf(w, "memory format: manifest schema %d, file records v%d, history records v%d\n",
		manifest.Schema, memory.RecordVersion, history.Version)
	fmt.Fprintf(w, "local search index: v%d\n", index.FormatVersion)
}

// writeMan renders the manual page git-konteks(1) from the command
// definitions: the same usage, descriptions and flags as -h, plus exit
// status and files.
func writeMan(w io.Writer, app *cli.App) error {
	var b strings.Builder
	date := time.Now()
	if sec, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		date = time.Unix(sec, 0) // reproducible builds
	}
	fmt.Fprintf(&b, ".TH GIT-KONTEKS 1 %q %q \"Git Konteks Manual\"\n", date.UTC().Format("2006-01-02"), "git-konteks "+version)
	b.WriteString(".SH NAME\ngit-konteks \\- " + roff(app.Usage) + "\n")
	b.WriteString(".SH SYNOPSIS\n.B git konteks\n[\\fB\\-C\\fR \\fIDIR\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR]\n")
	b.WriteString(".SH DESCRIPTION\n" + roffText(app.Description) + "\n")
	b.WriteString(".SH GLOBAL OPTIONS\n")
	for _, f := range app.VisibleFlags() {
		manFlag(&b, f)
	}
	b.WriteString(".SH COMMANDS\n")
	eachDocumented(app.Commands, func(name string, c *cli.Command) {
		fmt.Fprintf(&b, ".SS \"git konteks %s", roff(name))
		if c.ArgsUsage != "" {
			b.WriteString(" " + strings.ReplaceAll(roff(c.ArgsUsage), `"`, `\(dq`))
		}
		b.WriteString("\"\n" + roffText(c.Usage) + "\n")
		if c.Description != "" {
			b.WriteString(".PP\n" + roffText(c.Description) + "\n")
		}
		for _, f := range commandFlags(c) {
			manFlag(&b, f)
		}
	})
	b.WriteString(".SH EXIT STATUS\n")
	for _, e := range exitStatuses {
		fmt.Fprintf(&b, ".TP\n.B %d\n%s\n", e.code, roff(e.meaning))
	}
	b.WriteString(".SH FILES\n.TP\n.B refs/konteks\nthe memory: a commit whose tree holds one record per remembered file, directory summaries, the project portrait and durable memories; pushed and fetched like any ref\n" +
		".TP\n.B $GIT_DIR/konteks/\nlocal state, never pushed: the search index, locks, the hooks' log\n")
	b.WriteString(".SH SEE ALSO\n.BR git (1),\n.BR githooks (5)\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// exitStatuses are the exit codes every command keeps (docs/cli.md).
var exitStatuses = []struct {
	code    int
	meaning string
}{
	{0, "success (a duplicate `remember` included: it names the entry already saved)"},
	{1, "an error: the message (or, with --json, the JSON object on stderr) says which"},
	{2, "usage: an unknown command or flag, a missing or invalid argument"},
	{130, "interrupted by SIGINT or SIGTERM; memory is unchanged"},
}

// manFlag renders one flag as a tagged paragraph: its -h line, split into
// names and usage.
func manFlag(b *strings.Builder, f cli.Flag) {
	line := f.String()
	names, usage, _ := strings.Cut(line, "\t")
	fmt.Fprintf(b, ".TP\n.B %s\n%s\n", roff(strings.TrimSpace(names)), roffText(strings.TrimSpace(usage)))
}

// roff escapes text for one roff line.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	return s
}

// roffText escapes a paragraph: lines that would start with a roff
// control character are protected, blank lines start a new paragraph, and
// indented lines (tables of modes, examples) are kept as written.
func roffText(s string) string {
	var out []string
	verbatim := false
	for _, l := range strings.Split(roff(s), "\n") {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		indented := strings.HasPrefix(l, " ")
		if indented != verbatim {
			verbatim = indented
			if indented {
				out = append(out, ".nf")
			} else {
				out = append(out, ".fi")
			}
		}
		if l == "" {
			l = ".PP"
		}
		out = append(out, l)
	}
	if verbatim {
		out = append(out, ".fi")
	}
	return strings.Join(out, "\n")
}

// wrapList joins names with ", ", breaking the line before width.
func wrapList(names []string, width int) string {
	var b strings.Builder
	line := 0
	for i, n := range names {
		if i > 0 {
			b.WriteString(",")
			if line+len(n)+2 > width {
				b.WriteString("\n")
				line = 0
			} else {
				b.WriteString(" ")
				line++
			}
		}
		b.WriteString(n)
		line += len(n) + 1
	}
	return b.String()
}

// Markers around the generated flag table in docs/cli.md
// (TestDocsListEveryFlag keeps it equal to flagTable).
const (
	flagTableBegin = "<!-- flags: generated from the command definitions by TestDocsListEveryFlag; regenerate with KONTEKS_UPDATE_DOCS=1 -->"
	flagTableEnd   = "<!-- end of flags -->"
)

// flagTable renders every visible flag of app as a Markdown table, one
// row per flag, from the definitions -h and the manual page print: the
// global options first, then each command and subcommand in order.
func flagTable(app *cli.App) string {
	var b strings.Builder
	b.WriteString("| command | flag | meaning |\n|---|---|---|\n")
	row := func(cmd string, f cli.Flag) {
		names, usage, _ := strings.Cut(f.String(), "\t")
		cell := func(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "|", `\|`) }
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", cmd, cell(names), cell(usage))
	}
	for _, f := range app.VisibleFlags() {
		if n := f.Names()[0]; n == "help" || n == "version" {
			continue
		}
		row("git konteks", f)
	}
	eachDocumented(app.Commands, func(name string, c *cli.Command) {
		for _, f := range commandFlags(c) {
			row(name, f)
		}
	})
	return b.String()
}
