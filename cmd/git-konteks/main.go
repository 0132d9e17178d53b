// Command git-konteks turns a git repository into memory an AI coding agent
// can recall, and keeps that memory in the repository under refs/konteks.
// Installed on PATH it runs as `git konteks <command>`.
//
// Each command lives in its own cmd_*.go file and stays thin: the work is
// done by the packages (extract, gitstore, memory, manifest).
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync/atomic"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/share"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	tuneGC()
	// KONTEKS_CPUPROFILE=FILE writes a CPU profile (for `make bench`) of
	// this process only: the background runner it may start must not
	// overwrite the file.
	if p := os.Getenv("KONTEKS_CPUPROFILE"); p != "" {
		os.Unsetenv("KONTEKS_CPUPROFILE")
		if f, err := os.Create(p); err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	app := newApp()
	args := permuteArgs(app, os.Args)
	err := app.Run(args)
	pprof.StopCPUProfile()
	if err != nil {
		os.Exit(reportError(os.Stderr, err, wantsJSON(args[1:])))
	}
}

// gcFreeHeap is the heap a run may reach before its first garbage
// collection.
const gcFreeHeap = 192 << 20

// tuneGC defers garbage collection until the heap reaches gcFreeHeap, then
// collects as usual. Most runs (a post-commit extraction of a few files,
// status, recall) never get there and spend nothing on collection: on a
// one-file changed run of the Go tree, GC cost a quarter of the wall time
// (median ~140 ms with GOGC=100, ~97 ms without GC, both under load). A
// full extraction collects from 192 MB on. Mechanism: GC off with a soft
// memory limit; the first collection (at the limit) finalizes a sentinel
// whose finalizer turns GOGC back on and lifts the limit. GOGC or
// GOMEMLIMIT set in the environment win.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(gcFreeHeap)
	s := new([16]byte)
	runtime.SetFinalizer(s, func(*[16]byte) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(gcLimit.Load())
	})
}

// gcLimit is the soft memory limit once collection is on: none, or an
// extraction's (boundMemory).
var gcLimit atomic.Int64

func init() { gcLimit.Store(math.MaxInt64) }

func newApp() *cli.App {
	app := &cli.App{
		Name:    "git-konteks",
		Usage:   "repository memory for AI coding agents, kept in git under refs/konteks",
		Version: version,
		Description: "git konteks extracts a commit straight from the object database into compact,\n" +
			"sectioned memory, commits it under refs/konteks, and answers an agent's questions from it.\n" +
			"Start with `git konteks extract`, then `git konteks status`.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "C", Usage: "run as if started in `DIR`"},
		},
		Before: func(c *cli.Context) error {
			if d := c.String("C"); d != "" {
				if err := os.Chdir(d); err != nil {
					if c.Args().First() == "mcp" {
						// The MCP server keeps serving and says so
						// in every answer (cmd_mcp.go).
						chdirErr = fmt.Errorf("-C %s: %w", d, err)
						return nil
					}
					return fmt.Errorf("-C %s: %w", d, err)
				}
			}
			return nil
		},
		Commands: []*cli.Command{
			initCommand(),
			extractCommand(),
			statusCommand(),
			showCommand(),
			manifestCommand(),
			recallCommand(),
			contextCommand(),
			rememberCommand(),
			diaryCommand(),
			memoriesCommand(),
			sessionCommand(),
			skillCommand(),
			fetchCommand(),
			pushCommand(),
			syncCommand(),
			hooksCommand(),
			projectCommand(),
			overviewCommand(),
			skeletonCommand(),
			graphCommand(),
			mcpCommand(),
			whyCommand(),
			historyCommand(),
			gcCommand(),
		},
	}
	wireCLI(app)
	return app
}

// chdirErr is why -C could not be entered, for the commands that run
// without it (mcp).
var chdirErr error

var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON"}

// openRepo opens the repository of the current directory, with the
// memory a plain `git fetch` brought merged first (share.CatchUp; a merge
// that fails leaves memory as it was and is retried by the next command).
func openRepo() (*gitstore.Repo, error) {
	repo, err := gitstore.Open(".")
	if err == nil {
		outs, _ := share.CatchUp(repo)
		for _, o := range outs {
			if o.Result != share.UpToDate {
				// As after `fetch`: the caches recall reads catch up in
				// the background when the hooks are installed.
				warmInBackground(repo, "fetch")
				break
			}
		}
	}
	return repo, err
}

// printJSON writes v as indented JSON to stdout.
func printJSON(c *cli.Context, v any) error {
	enc := json.NewEncoder(c.App.Writer)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// isTerminal reports whether f is a terminal (progress is shown only there).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// sourcePath turns a user-given path into a path in the source tree: paths
// are taken relative to the current directory when it is inside the work
// tree, and may also be given from the repository root.
func sourcePath(repo *gitstore.Repo, arg string) []string {
	arg = filepath.ToSlash(arg)
	cands := []string{strings.TrimPrefix(arg, "./")}
	if repo.WorkTree != "" {
		if cwd, err := os.Getwd(); err == nil {
			abs := arg
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(cwd, arg)
			}
			if rel, err := filepath.Rel(repo.WorkTree, abs); err == nil && !strings.HasPrefix(rel, "..") {
				rel = filepath.ToSlash(rel)
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
