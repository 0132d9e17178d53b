package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/share"
)

// GlobalOptions are what every command shares, parsed once from the
// command line (parseGlobals) and passed down to each command's run
// function, as restic passes its GlobalOptions: no command reads the
// process's working directory, standard streams or flags by itself, so
// commands run in-process (Main) exactly as from a shell.
//
// Design: -C does not change the process's directory. It sets Dir, the
// directory commands open the repository from and resolve the paths
// they are given against (git's rule: `git -C sub show x` reads sub/x).
// Git processes that gitstore starts inherit the process environment;
// Getenv is for the tool's own variables (KONTEKS_*), so a caller can
// hand a command another environment without touching the process's.
type GlobalOptions struct {
	// Dir is the absolute directory -C names (several -C compose as in
	// git); "" is the current directory.
	Dir string
	// DirErr is why Dir cannot be entered. Commands fail with it, except
	// the MCP server, which keeps serving and says so in every answer.
	DirErr error
	// JSON is --json, given before or after the command name.
	JSON bool

	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Executable is the program hooks name and the background runner
	// runs: this one, os.Executable, unless a caller (a test running
	// commands in-process) says otherwise.
	Executable string
	// StderrTerminal, when set, says whether Stderr is a terminal (the
	// progress lines are drawn only there); unset, Stderr's file is asked.
	// Tests set it to see what a terminal would show.
	StderrTerminal func() bool

	argv []string // the command line as given, for messages

	// ownsProcess is set by main alone: the command line is the whole
	// process, so a command may change what is the process's (the
	// session, os.Stdout; the garbage collector's settings are main's,
	// see tuneGC). Commands
	// run in-process (Main, the tests) leave those alone: the caller's
	// other goroutines, other commands among them, share them.
	ownsProcess bool
}

// Main runs git konteks with args (without the program name) on the given
// streams and returns its exit status: the whole command line, in-process.
// It changes no setting of the process (see ownsProcess).
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newGlobals(stdin, stdout, stderr).run(ctx, args)
}

// newGlobals are the global options of a command line run on the given
// streams, in the process's environment, by this executable.
func newGlobals(stdin io.Reader, stdout, stderr io.Writer) *GlobalOptions {
	g := &GlobalOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv}
	if self, err := os.Executable(); err == nil {
		g.Executable = self
	}
	return g
}

// run parses the command line into g and runs the command it names.
func (g *GlobalOptions) run(ctx context.Context, args []string) int {
	if g.Getenv == nil {
		g.Getenv = os.Getenv
	}
	app := newApp(g)
	g.argv = args
	argv, err := parseGlobals(app, g, append([]string{app.Name}, args...))
	if err == nil {
		err = app.RunContext(ctx, argv)
	}
	if err != nil {
		return reportError(g.Stderr, err, g.JSON)
	}
	return 0
}

// workDir is the directory the command runs in: -C's, or the process's.
func (g *GlobalOptions) workDir() (string, error) {
	if g.DirErr != nil {
		return "", g.DirErr
	}
	if g.Dir != "" {
		return g.Dir, nil
	}
	return os.Getwd()
}

// abs resolves a path given on the command line against workDir.
func (g *GlobalOptions) abs(p string) string {
	if p == "" || p == "-" || filepath.IsAbs(p) {
		return p
	}
	wd, err := g.workDir()
	if err != nil {
		return p
	}
	return filepath.Join(wd, p)
}

// openRepo opens the repository of the command's directory, with the
// memory a plain `git fetch` brought merged first (share.CatchUp; a merge
// that fails leaves memory as it was and is retried by the next command).
func (g *GlobalOptions) openRepo() (*gitstore.Repo, error) {
	wd, err := g.workDir()
	if err != nil {
		return nil, err
	}
	repo, err := gitstore.Open(wd)
	if err == nil {
		outs, _ := share.CatchUp(repo)
		for _, o := range outs {
			if o.Result != share.UpToDate {
				// As after `fetch`: the caches recall reads catch up in
				// the background when the hooks are installed.
				g.warmInBackground(repo, "fetch")
				break
			}
		}
	}
	return repo, err
}

// openRepoArg starts a command that takes one argument: a usage error
// (exit 2) for any other count, else the repository, as openRepo.
func (g *GlobalOptions) openRepoArg(args []string, usage string) (*gitstore.Repo, error) {
	if len(args) != 1 {
		return nil, cli.Exit(usage, 2)
	}
	return g.openRepo()
}

// runOnArg is a command of one argument that prints what op makes of it:
// as JSON with --json, else through text.
func runOnArg[T any](g *GlobalOptions, args []string, usage string, op func(*gitstore.Repo, string) (T, error), text func(io.Writer, T)) error {
	repo, err := g.openRepoArg(args, usage)
	if err != nil {
		return err
	}
	v, err := op(repo, args[0])
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(v)
	}
	text(g.Stdout, v)
	return nil
}

// reserveStdout keeps the process's stdout for a protocol spoken on
// g.Stdout (the MCP server): whatever else would print to os.Stdout (a
// library's stray output) goes to stderr, where clients log it, instead
// of corrupting the stream. os.Stdout is the process's, so only the
// program changes it (ownsProcess); a caller in-process gave its own
// writers.
func (g *GlobalOptions) reserveStdout() {
	if f, ok := g.Stdout.(*os.File); ok && f == os.Stdout && g.ownsProcess {
		os.Stdout = os.Stderr
	}
}

// printJSON writes v to stdout as indented JSON.
func (g *GlobalOptions) printJSON(v any) error {
	return printJSONTo(g.Stdout, v)
}

// printJSONTo writes v to w as indented JSON.
func printJSONTo(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// stderrIsTerminal reports whether stderr is a terminal (progress is
// shown only there).
func (g *GlobalOptions) stderrIsTerminal() bool {
	if g.StderrTerminal != nil {
		return g.StderrTerminal()
	}
	f, ok := g.Stderr.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// parseGlobals takes the global options out of argv into g, wherever
// they stand before "--": `git konteks --json status`, `git konteks status
// --json` and `git konteks recall x -C dir` mean the same. It returns the
// rest in the order urfave/cli reads (permuteArgs). A command that
// defines a flag of the same name keeps it.
func parseGlobals(app *cli.App, g *GlobalOptions, argv []string) ([]string, error) {
	rest := []string{argv[0]}
	var dirs []string
	flags := app.Flags
	cmds := app.Commands
	inCommand := false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			rest = append(rest, argv[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		isFlag := strings.HasPrefix(a, "-") && a != "-"
		own := inCommand && isFlag && definesFlag(flags, name)
		switch {
		case isFlag && !own && name == "C":
			if !hasVal {
				if i+1 >= len(argv) {
					return nil, codedError{code: "usage", exit: 2, msg: "-C needs a directory (see `git konteks -h`)"}
				}
				i++
				val = argv[i]
			}
			dirs = append(dirs, val)
			continue
		case isFlag && !own && name == "json" && !strings.HasPrefix(a, "---"):
			g.JSON = !hasVal || val == "true" || val == "1"
			continue
		case isFlag:
			rest = append(rest, a)
			if !hasVal && takesValue(flags, a) && i+1 < len(argv) {
				i++
				rest = append(rest, argv[i])
			}
			continue
		}
		rest = append(rest, a)
		if c := findCommand(cmds, a); c != nil && (inCommand || len(rest) == 2 || allFlags(rest[1:len(rest)-1])) {
			inCommand = true
			flags, cmds = c.Flags, c.Subcommands
		} else {
			// A positional argument: no command path from here on.
			cmds = nil
		}
	}
	if err := g.setDir(dirs); err != nil {
		return nil, err
	}
	if g.DirErr != nil && !isCommand(rest, "mcp") {
		return nil, g.DirErr
	}
	return permuteArgs(app, rest), nil
}

// allFlags reports whether every argument is a flag or a flag's value
// (what may stand between the program name and the command).
func allFlags(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

// isCommand reports whether argv (program name first) runs the command
// named name.
func isCommand(argv []string, name string) bool {
	for _, a := range argv[1:] {
		if !strings.HasPrefix(a, "-") {
			return a == name
		}
	}
	return false
}

// definesFlag reports whether flags has one called name, other than the
// shared --json.
func definesFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		if isJSONFlag(f) {
			continue
		}
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// setDir joins the -C directories as git does (each relative to the one
// before) and checks that the result is a directory.
func (g *GlobalOptions) setDir(dirs []string) error {
	if len(dirs) == 0 {
		return nil
	}
	d := ""
	for _, x := range dirs {
		switch {
		case x == "":
			// git -C "" is a no-op.
		case filepath.IsAbs(x) || d == "":
			d = x
		default:
			d = filepath.Join(d, x)
		}
	}
	if d == "" {
		return nil
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return err
	}
	fi, err := os.Stat(abs)
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("not a directory")
	}
	if err != nil {
		g.DirErr = fmt.Errorf("-C %s: %w", d, err)
		return nil
	}
	g.Dir = abs
	return nil
}

// prefix is the command's directory relative to the top of repo's work
// tree, in slash form: "" at the top, outside the work tree, or for a
// bare repository (git's "prefix").
func (g *GlobalOptions) prefix(repo *gitstore.Repo) string {
	if repo.WorkTree == "" {
		return ""
	}
	wd, err := g.workDir()
	if err != nil {
		return ""
	}
	top := repo.WorkTree
	if t, err := filepath.EvalSymlinks(top); err == nil {
		top = t
	}
	if w, err := filepath.EvalSymlinks(wd); err == nil {
		wd = w
	}
	rel, err := filepath.Rel(top, wd)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return ""
	}
	return filepath.ToSlash(rel)
}
