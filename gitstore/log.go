package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LogCommit is one commit of a history walk (Log).
type LogCommit struct {
	Hash        Hash
	Parents     []Hash
	AuthorName  string
	AuthorEmail string
	AuthorTime  int64 // seconds since the epoch
	Message     string
	// Changes are the paths the commit changed against its first parent
	// (its only parent; the empty tree for a root commit). Merges and
	// shallow boundary commits carry none: a merge's changes are recorded
	// by the commits it merged, and a boundary's parent is not here.
	Changes []LogChange
	// Shallow marks a commit at the boundary of a shallow clone.
	Shallow bool
}

// LogChange is one path a commit changed.
type LogChange struct {
	Kind    byte   // 'A', 'M', 'D', 'R' (renamed: OldPath is set), 'T' (type change), 'C' (copied)
	Path    string // the path after the commit
	OldPath string // the path before a rename or copy
	Added   int    // lines added; LinesBinary for a binary file, LinesUnknown when not counted
	Deleted int    // lines deleted; as Added
	// The entry's modes and blob ids before and after (zero when absent),
	// from the raw diff.
	OldMode, NewMode uint32
	OldID, NewID     Hash
}

// Line counts that are not counts.
const (
	LinesBinary  = -1 // a binary file: git counts no lines
	LinesUnknown = -2 // not counted: a walk of trees only, or the blobs are absent
)

// LogOptions bound a history walk.
type LogOptions struct {
	Include  []Hash // tips to walk from
	Exclude  []Hash // tips whose history is left out (absent ones are ignored)
	MaxCount int    // most commits to list (0: all)
	// TreesOnly lists changes from trees alone: paths, modes, blob ids and
	// status, without rename detection or line counts (Added and Deleted
	// are LinesUnknown). No blob is read, so the walk runs at the speed of
	// `git log --raw --no-renames`. Set by Log itself for a partial clone.
	TreesOnly bool
	// NoWalk lists exactly the Include commits, in the order given,
	// instead of walking their history (Exclude and MaxCount unused).
	NoWalk bool
	// Counts asks for line counts and rename detection even in a partial
	// clone, whose absent blobs then fail the walk (ErrMissingObjects)
	// instead of being fetched.
	Counts bool
	// RenamesOnly detects renames (-M) without counting lines (Added and
	// Deleted are LinesUnknown): git reads only the blobs of added and
	// deleted paths.
	RenamesOnly bool
	// Paths limits the diffs to these paths (literal, from the top);
	// commits that change none of them are listed with no changes.
	Paths []string
	// Skip leaves out the first Skip commits of the walk (their diffs are
	// not computed): a walk resumed where an earlier one stopped.
	Skip int
}

// ErrMissingObjects is returned by Log when git could not read a blob it
// needed for line counts or rename detection; a walk of TreesOnly needs
// none.
var ErrMissingObjects = errors.New("objects needed for line counts are missing")

// ErrNoCLI is returned by operations that need the git command.
var ErrNoCLI = errors.New("the git command is not available")

// Log lists the commits reachable from opt.Include and not from
// opt.Exclude, newest first (git's default order), with the paths each
// changed, calling fn for each as it is read. One `git log` process does
// the whole walk, with rename detection and line counts unless
// opt.TreesOnly: go-git's per-commit tree diffs are two orders of
// magnitude slower on long histories. A short walk of trees only (a
// hook's few new commits) is read without git (shortlog.go).
func (r *Repo) Log(ctx context.Context, opt LogOptions, fn func(*LogCommit) error) error {
	if r.gitCLI == "" {
		return ErrNoCLI
	}
	var stdin bytes.Buffer
	for _, h := range opt.Include {
		fmt.Fprintf(&stdin, "%s\n", h)
	}
	if stdin.Len() == 0 {
		return nil
	}
	if !opt.NoWalk {
		for _, h := range opt.Exclude {
			if r.HasObject(h) {
				fmt.Fprintf(&stdin, "^%s\n", h)
			}
		}
	}
	noBlobs := opt.TreesOnly || (r.IsPartialClone() && !opt.Counts)
	if short, ok := r.shortLog(opt, noBlobs); ok {
		for _, c := range short {
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	}
	args, ok := logArgs(opt, noBlobs)
	if !ok {
		return nil
	}
	cmd := r.command(ctx, args...)
	ownGroup(cmd)
	cmd.Stdin = &stdin
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := startPiped(cmd)
	if err != nil {
		return err
	}
	defer out.Close()
	shallow := r.shallowCommits()
	// The last commit is held back until git exits cleanly: when git dies
	// in a commit's diff, what it printed of that commit is incomplete.
	var last *LogCommit
	perr := parseLog(bufio.NewReaderSize(out, 256<<10), shallow, noBlobs || opt.RenamesOnly, func(c *LogCommit) error {
		if last != nil {
			if err := fn(last); err != nil {
				return err
			}
		}
		last = c
		return nil
	})
	if perr != nil {
		// Stop git (it may be blocked writing) before waiting for it.
		_ = cmd.Process.Kill()
		_, _ = io.Copy(io.Discard, out)
	}
	werr := cmd.Wait()
	if perr != nil {
		return perr
	}
	if werr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := strings.TrimSpace(errb.String())
		if !noBlobs && (strings.Contains(msg, "unable to read") || strings.Contains(msg, "could not read") || strings.Contains(msg, "promisor")) {
			return fmt.Errorf("git log: %w: %s", ErrMissingObjects, msg)
		}
		return fmt.Errorf("git log: %w: %s", werr, msg)
	}
	if last != nil {
		return fn(last)
	}
	return nil
}

// logArgs is the git command line of a Log walk (its commits come on
// stdin); false when the walk lists nothing.
func logArgs(opt LogOptions, noBlobs bool) ([]string, bool) {
	args := []string{
		// Options that a user's config could change are set explicitly.
		"-c", "log.showSignature=false", "-c", "core.quotePath=false",
		"log", "--stdin", "-z", "--no-color", "--no-abbrev", "--no-abbrev-commit",
		"--no-relative", "--no-ext-diff", "--no-textconv", "--no-mailmap", "--encoding=UTF-8",
		"--root", "--diff-merges=off", "--raw",
		"--format=%x1e%H%x00%P%x00%an%x00%ae%x00%at%x00%B%x00",
	}
	switch {
	case noBlobs:
		args = append(args, "--no-renames")
	case opt.RenamesOnly:
		args = append(args, "-M")
	default:
		args = append(args, "-M", "--numstat")
	}
	if opt.NoWalk {
		args = append(args, "--no-walk=unsorted")
	} else if opt.MaxCount > 0 {
		if opt.MaxCount <= opt.Skip {
			return nil, false
		}
		args = append(args, "--max-count="+strconv.Itoa(opt.MaxCount-opt.Skip))
	}
	if opt.Skip > 0 && !opt.NoWalk {
		args = append(args, "--skip="+strconv.Itoa(opt.Skip))
	}
	if len(opt.Paths) > 0 {
		// Every commit listed (--full-history --sparse), its diff limited.
		args = append(args, "--full-history", "--sparse", "--")
		for _, p := range opt.Paths {
			if p != "" {
				args = append(args, ":(top,literal)"+p)
			}
		}
	}
	return args, true
}

// shallowCommits reads the boundary commits of a shallow clone.
func (r *Repo) shallowCommits() map[Hash]bool {
	b, err := os.ReadFile(filepath.Join(r.CommonDir, "shallow"))
	if err != nil {
		return nil
	}
	out := map[Hash]bool{}
	for _, l := range strings.Fields(string(b)) {
		if h := ParseHash(l); !h.IsZero() {
			out[h] = true
		}
	}
	return out
}

// IsShallow reports whether the repository is a shallow clone.
func (r *Repo) IsShallow() bool { return len(r.shallowCommits()) > 0 }

// ShallowCommits lists the boundary commits of a shallow clone (none for
// a complete one), in no particular order.
func (r *Repo) ShallowCommits() []Hash {
	m := r.shallowCommits()
	out := make([]Hash, 0, len(m))
	for h := range m {
		out = append(out, h)
	}
	return out
}

// CountLog counts the commits a walk of opt would list (Skip and
// MaxCount bound it), reading commits only: `git rev-list --count`.
func (r *Repo) CountLog(ctx context.Context, opt LogOptions) (int, error) {
	if r.gitCLI == "" {
		return 0, ErrNoCLI
	}
	var stdin bytes.Buffer
	for _, h := range opt.Include {
		fmt.Fprintf(&stdin, "%s\n", h)
	}
	for _, h := range opt.Exclude {
		if r.HasObject(h) {
			fmt.Fprintf(&stdin, "^%s\n", h)
		}
	}
	args := []string{"rev-list", "--stdin", "--count"}
	if opt.MaxCount > 0 {
		args = append(args, "--max-count="+strconv.Itoa(opt.MaxCount))
	}
	if opt.Skip > 0 {
		args = append(args, "--skip="+strconv.Itoa(opt.Skip))
	}
	cmd := r.command(ctx, args...)
	cmd.Stdin = &stdin
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("git rev-list --count: %w", err)
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// parseLog reads the output of Log's `git log -z` command: per commit a
// header of six NUL-terminated fields introduced by \x1e, an empty field,
// then --raw entries (":modes ids STATUS\0path\0[new\0]") and --numstat
// entries ("added\tdeleted\tpath\0" or, for a rename,
// "added\tdeleted\t\0old\0new\0"), in the same path order.
func parseLog(br *bufio.Reader, shallow map[Hash]bool, noCounts bool, fn func(*LogCommit) error) error {
	// next returns the next field, without its NUL; it stays valid until
	// the next call (a slice of br's buffer, or of long for a field
	// longer than the buffer). Most fields are parsed where they lie;
	// only names, paths and messages become strings.
	var long []byte
	next := func() ([]byte, error) {
		b, err := br.ReadSlice(0)
		if err == bufio.ErrBufferFull {
			long = append(long[:0], b...)
			for err == bufio.ErrBufferFull {
				b, err = br.ReadSlice(0)
				long = append(long, b...)
			}
			b = long
		}
		if err != nil {
			if err == io.EOF && len(b) > 0 {
				return b, nil
			}
			return b, err
		}
		return b[:len(b)-1], nil
	}
	nextString := func() (string, error) {
		b, err := next()
		return string(b), err
	}
	tok, err := next()
	for err == nil {
		tok = bytes.TrimLeft(tok, "\n")
		if len(tok) == 0 || tok[0] != '\x1e' {
			return fmt.Errorf("git log: unexpected output %.40q", tok)
		}
		c := &LogCommit{Hash: parseHash(tok[1:])}
		if c.Hash.IsZero() {
			return fmt.Errorf("git log: bad commit id %.40q", tok[1:])
		}
		var f []byte
		if f, err = next(); err == nil {
			for _, p := range bytes.Fields(f) {
				c.Parents = append(c.Parents, parseHash(p))
			}
			if c.AuthorName, err = nextString(); err == nil {
				if c.AuthorEmail, err = nextString(); err == nil {
					if f, err = next(); err == nil {
						c.AuthorTime = atoi(f)
						c.Message, err = nextString()
					}
				}
			}
		}
		if err != nil {
			return fmt.Errorf("git log: truncated output: %v", err)
		}
		c.Shallow = shallow[c.Hash]
		// The diff: raw entries, then numstat entries, until the next commit.
		var raw []LogChange
		nstat := 0
		for {
			tok, err = next()
			if err != nil {
				break
			}
			t := bytes.TrimLeft(tok, "\n")
			if len(t) == 0 {
				continue
			}
			if t[0] == '\x1e' {
				tok = t
				break
			}
			if t[0] == ':' {
				// ":100644 100644 <old> <new> R066"
				sp := bytes.LastIndexByte(t, ' ')
				if sp < 0 || sp+1 >= len(t) {
					return fmt.Errorf("git log: bad raw entry %.60q", t)
				}
				ch := LogChange{Kind: t[sp+1]}
				if noCounts {
					ch.Added, ch.Deleted = LinesUnknown, LinesUnknown
				}
				if f := bytes.Fields(t[1:sp]); len(f) == 4 {
					ch.OldMode, ch.NewMode = octal(f[0]), octal(f[1])
					ch.OldID, ch.NewID = parseHash(f[2]), parseHash(f[3])
				}
				p, err2 := nextString()
				if err2 != nil {
					return fmt.Errorf("git log: truncated raw entry")
				}
				if ch.Kind == 'R' || ch.Kind == 'C' {
					np, err2 := nextString()
					if err2 != nil {
						return fmt.Errorf("git log: truncated rename entry")
					}
					ch.OldPath, p = p, np
				}
				ch.Path = p
				raw = append(raw, ch)
				continue
			}
			// numstat: "a\td\tpath" or "a\td\t" followed by old and new.
			parts := bytes.SplitN(t, []byte("\t"), 3)
			if len(parts) != 3 {
				return fmt.Errorf("git log: bad numstat entry %.60q", t)
			}
			added, deleted := count(parts[0]), count(parts[1])
			if len(parts[2]) == 0 {
				if _, err2 := next(); err2 != nil {
					return fmt.Errorf("git log: truncated numstat entry")
				}
				if _, err2 := next(); err2 != nil {
					return fmt.Errorf("git log: truncated numstat entry")
				}
			}
			if nstat < len(raw) {
				raw[nstat].Added = added
				raw[nstat].Deleted = deleted
			}
			nstat++
		}
		if !c.Shallow && len(c.Parents) <= 1 {
			c.Changes = raw
		}
		if ferr := fn(c); ferr != nil {
			return ferr
		}
	}
	if err == io.EOF {
		return nil
	}
	return err
}

// count reads a --numstat count: "-" for a binary file, 0 for what is
// not a count.
func count(b []byte) int {
	if len(b) == 1 && b[0] == '-' {
		return LinesBinary
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return 0
	}
	return n
}

// atoi reads a decimal number (git's %at), 0 for anything else.
func atoi(b []byte) int64 {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// octal reads a raw entry's mode, 0 for anything else.
func octal(b []byte) uint32 {
	m, err := strconv.ParseUint(string(b), 8, 32)
	if err != nil {
		return 0
	}
	return uint32(m)
}

// BlameLine is the commit that last changed a line, as `git blame` sees it.
type BlameLine struct {
	Line   int  // 1-based line in the file at the blamed revision
	Commit Hash // the commit that introduced it
	Path   string
}

// Blame attributes lines start..end (1-based, inclusive; 0, 0 for the
// whole file) of path at rev to the commits that last changed them,
// ignoring whitespace changes, following moves within the file (-w -M),
// and skipping the commits in ignore (formatting commits).
func (r *Repo) Blame(ctx context.Context, rev Hash, path string, start, end int, ignore []Hash) ([]BlameLine, error) {
	if r.gitCLI == "" {
		return nil, ErrNoCLI
	}
	args := []string{"blame", "--porcelain", "-w", "-M"}
	if start > 0 && end >= start {
		args = append(args, "-L", fmt.Sprintf("%d,%d", start, end))
	}
	var ignFile string
	if len(ignore) > 0 {
		f, err := os.CreateTemp("", "konteks-ignore-revs-")
		if err != nil {
			return nil, err
		}
		ignFile = f.Name()
		defer os.Remove(ignFile)
		for _, h := range ignore {
			fmt.Fprintf(f, "%s\n", h)
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		args = append(args, "--ignore-revs-file", ignFile)
	}
	args = append(args, rev.String(), "--", path)
	cmd := r.command(ctx, args...)
	ownGroup(cmd)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git blame %s: %w: %s", path, err, strings.TrimSpace(errb.String()))
	}
	var lines []BlameLine
	paths := map[Hash]string{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var cur *BlameLine
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "\t") {
			if cur != nil {
				cur.Path = paths[cur.Commit]
				lines = append(lines, *cur)
				cur = nil
			}
			continue
		}
		if cur == nil {
			fs := strings.Fields(l)
			if len(fs) >= 3 && len(fs[0]) == 40 {
				n, _ := strconv.Atoi(fs[2])
				cur = &BlameLine{Commit: ParseHash(fs[0]), Line: n}
			}
			continue
		}
		if p, ok := strings.CutPrefix(l, "filename "); ok {
			paths[cur.Commit] = p
		}
	}
	return lines, sc.Err()
}
