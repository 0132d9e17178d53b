// Command git-konteks turns a git repository into memory an AI coding agent
// can recall, and keeps that memory in the repository under refs/konteks.
// Installed on PATH it runs as `git konteks <command>`.
//
// Each command lives in its own cmd_*.go file and stays thin: the work is
// done by the packages (extract, gitstore, memory, manifest).
package main

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/internal/cmalloc"
	"github.com/konteks/git-konteks/internal/startheap"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	tuneGC()
	cmalloc.Tune() // the parsers' C heap, outside the Go heap's limit
	// KONTEKS_CPUPROFILE=FILE writes a CPU profile (for `make bench`) of
	// this process only: the background runner it may start must not
	// overwrite the file. With %p in FILE every git konteks process the
	// command starts (the runner) writes its own, %p replaced by its pid.
	if p := os.Getenv("KONTEKS_CPUPROFILE"); p != "" {
		if strings.Contains(p, "%p") {
			p = strings.ReplaceAll(p, "%p", strconv.Itoa(os.Getpid()))
		} else {
			os.Unsetenv("KONTEKS_CPUPROFILE")
		}
		if f, err := os.Create(p); err == nil {
			pprof.StartCPUProfile(f)
		}
	}
	// One command, then exit: history's signals are used where their
	// cache file is mapped (the MCP server turns this off).
	history.InPlace = true
	g := newGlobals(os.Stdin, os.Stdout, os.Stderr)
	g.ownsProcess = true
	code := g.run(context.Background(), os.Args[1:])
	pprof.StopCPUProfile()
	os.Exit(code)
}

// memoryLimit is the soft limit of the Go heap of every command once
// collection is on. Without a limit the collector lets the heap grow to
// twice the live heap before it runs (a cold recall on rails peaked at
// over 1 GB of RSS); with one, the heap runs up to it. The live heap of a
// full extraction or a cold index build of rails stays under 130 MB and
// of $GOROOT/src under 200 MB (history streamed into its signals, the
// build's sections in pointer-free arenas): under this limit both peak
// under 300 MB of RSS for the CPU they took under 256 MiB (see
// docs/performance.md).
const memoryLimit = 180 << 20

// tuneGC sets the limit collection runs under once it is on. Package
// startheap turned it off before any package initialised, until the heap
// reaches startheap.Floor (160 MB): most runs (a post-commit extraction of
// a few files, status, recall) never get there and spend nothing on
// collection. On a one-file changed run of the Go tree, collection cost a
// quarter of the wall time (median ~140 ms with GOGC=100, ~97 ms without,
// both under load); the one collection package initialisation alone used
// to start cost a third of `--version`'s CPU. GOGC or GOMEMLIMIT set in
// the environment win; GOGC alone keeps memoryLimit.
//
// The limit is the whole process's, so only main sets it: a caller
// running commands in-process (Main, the tests) keeps its own.
func tuneGC() {
	switch {
	case os.Getenv("GOMEMLIMIT") != "":
	case startheap.Deferred():
		startheap.After(memoryLimit)
	default:
		debug.SetMemoryLimit(memoryLimit)
	}
}

// newApp builds the command tree over g: every command reads its
// repository, streams and --json from g (globals.go).
func newApp(g *GlobalOptions) *cli.App {
	app := &cli.App{
		Name:      "git-konteks",
		Usage:     "repository memory for AI coding agents, kept in git under refs/konteks",
		Version:   version,
		Reader:    g.Stdin,
		Writer:    g.Stdout,
		ErrWriter: g.Stderr,
		Metadata:  map[string]any{"globals": g},
		Description: "git konteks extracts a commit straight from the object database into compact,\n" +
			"sectioned memory, commits it under refs/konteks, and answers an agent's questions from it.\n" +
			"Start with `git konteks extract`, then `git konteks status`.",
		// Both are taken out of the command line by parseGlobals, before
		// or after the command name; they are declared here for -h and
		// the manual page.
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "C", Usage: "run as if started in `DIR` (paths given to the command are relative to it)"},
			jsonFlag(),
		},
		Commands: []*cli.Command{
			initCommand(g),
			extractCommand(g),
			statusCommand(g),
			showCommand(g),
			manifestCommand(g),
			recallCommand(g),
			contextCommand(g),
			rememberCommand(g),
			diaryCommand(g),
			memoriesCommand(g),
			sessionCommand(g),
			skillCommand(g),
			fetchCommand(g),
			pushCommand(g),
			syncCommand(g),
			hooksCommand(g),
			projectCommand(g),
			overviewCommand(g),
			skeletonCommand(g),
			graphCommand(g),
			mcpCommand(g),
			whyCommand(g),
			historyCommand(g),
			gcCommand(g),
		},
	}
	wireCLI(app)
	return app
}

// jsonFlag is declared by every command that prints JSON, for its -h;
// the value is read once, wherever it stands, into GlobalOptions.JSON.
// Each command tree gets its own: urfave/cli writes to a flag while it
// parses, and two command trees may run at once in one process.
func jsonFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON"}
}

// isJSONFlag reports whether f is the shared --json (jsonFlag).
func isJSONFlag(f cli.Flag) bool {
	b, ok := f.(*cli.BoolFlag)
	return ok && b.Name == "json"
}

// sourcePath turns a user-given path into candidate paths in the source
// tree, best first: the path relative to the command's directory (-C, or
// the current one) when that is inside the work tree, as git reads paths;
// then the path as given, from the repository root. "." in a
// subdirectory is that subdirectory; at the top it is "" (the root).
func sourcePath(g *GlobalOptions, repo *gitstore.Repo, arg string) []string {
	arg = filepath.ToSlash(arg)
	plain := strings.TrimPrefix(path.Clean(arg), "./")
	if plain == "." {
		plain = ""
	}
	cands := []string{plain}
	if repo.WorkTree != "" {
		if wd, err := g.workDir(); err == nil {
			abs := filepath.FromSlash(arg)
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(wd, abs)
			}
			top := repo.WorkTree
			if t, err := filepath.EvalSymlinks(top); err == nil {
				top = t
			}
			if a, err := filepath.EvalSymlinks(abs); err == nil {
				abs = a
			} else if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
				abs = filepath.Join(d, filepath.Base(abs))
			}
			if rel, err := filepath.Rel(top, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				rel = filepath.ToSlash(rel)
				if rel == "." {
					rel = ""
				}
				if rel != cands[0] {
					cands = append([]string{rel}, cands...)
				}
			}
		}
	}
	return cands
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
