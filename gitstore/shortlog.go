package gitstore

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A short walk without git.
//
// A hook's extraction records the commits made since the last one: most
// often one, on top of the commit memory describes. `git log` for it
// was a process of its own, some 8 ms of CPU of a run that should take
// 100. shortLog lists such a walk from the objects the long-lived
// cat-file process reads, as `git log --raw --no-renames` (TreesOnly)
// lists it, and declines (ok false: git is asked, as before) whatever it
// does not list exactly as git would:
//
//   - a walk that is not one tip back to one excluded commit along
//     single parents within shortLogMax commits (a merge, a root, a
//     branch that forked below the excluded commit);
//   - a commit at a shallow boundary, a repository with grafts;
//   - a commit whose message is not in UTF-8 (git re-encodes it), holds
//     a NUL, or whose author line is not plain "Name <email> time zone";
//   - trees that are not sorted as git sorts them, an entry of a mode
//     git does not know, a submodule (diff.ignoreSubmodules may hide it
//     from git's diff), and a config that reorders diffs (diff.orderFile).
//
// TestShortLogAsGit compares both on commits of every kind of change.
const shortLogMax = 8

// useShortLog lets a test compare shortLog with git.
var useShortLog = true

// shortLog lists the commits of opt without git when it can (see above).
func (r *Repo) shortLog(opt LogOptions, noBlobs bool) ([]*LogCommit, bool) {
	if !useShortLog || !noBlobs || opt.NoWalk || len(opt.Paths) > 0 || opt.Skip > 0 || len(opt.Include) != 1 {
		return nil, false
	}
	var stop Hash
	for _, h := range opt.Exclude {
		if !r.HasObject(h) {
			continue // git ignores an absent one too
		}
		if !stop.IsZero() && stop != h {
			return nil, false
		}
		stop = h
	}
	if stop.IsZero() || opt.Include[0] == stop {
		return nil, !stop.IsZero() && opt.Include[0] == stop // nothing to list
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "info", "grafts")); !errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if _, set := r.ConfigValues("diff.orderfile")["diff.orderfile"]; set {
		return nil, false
	}
	shallow := r.shallowCommits()
	max := shortLogMax
	if opt.MaxCount > 0 && opt.MaxCount < max {
		max = opt.MaxCount
	}
	// The commits first (a few small objects), then their diffs: a walk
	// that does not reach stop within the bound costs no tree.
	var out []*LogCommit
	var trees []Hash
	for h := opt.Include[0]; h != stop; {
		if len(out) == max || shallow[h] {
			return nil, false
		}
		lc, tree, ok := r.rawLogCommit(h)
		if !ok || len(lc.Parents) != 1 {
			return nil, false
		}
		out, trees = append(out, lc), append(trees, tree)
		h = lc.Parents[0]
	}
	for i, lc := range out {
		// The parent's tree as git reads it: the next commit's, or stop's.
		var parentTree Hash
		if i+1 < len(out) {
			parentTree = trees[i+1]
		} else {
			parent, err := r.commit(lc.Parents[0])
			if err != nil {
				return nil, false
			}
			parentTree = parent.TreeHash
		}
		var ok bool
		if lc.Changes, ok = r.rawDiff(parentTree, trees[i]); !ok {
			return nil, false
		}
	}
	return out, true
}

// rawLogCommit reads commit h as `git log --format=%H%P%an%ae%at%B
// --no-mailmap` shows it, with its tree; ok is false for what git would
// show otherwise (see shortLog).
func (r *Repo) rawLogCommit(h Hash) (*LogCommit, Hash, bool) {
	typ, b, _, err := r.rawObject(h, 0)
	if err != nil || typ != "commit" {
		return nil, ZeroHash, false
	}
	head, msg, found := bytes.Cut(b, []byte("\n\n"))
	if !found {
		if !bytes.HasSuffix(b, []byte("\n")) {
			return nil, ZeroHash, false
		}
		head, msg = b[:len(b)-1], nil
	}
	if bytes.IndexByte(b, 0) >= 0 { // git reads the header as a C string too
		return nil, ZeroHash, false
	}
	lc := &LogCommit{Hash: h, Message: string(msg)}
	var tree Hash
	author := false
	for i, line := range bytes.Split(head, []byte("\n")) {
		key, val, _ := bytes.Cut(line, []byte(" "))
		switch string(key) {
		case "tree": // git: the first line, and only there
			if i != 0 {
				return nil, ZeroHash, false
			}
			tree = parseHash(val)
		case "parent": // git: the lines right after the tree, and only there
			if i != len(lc.Parents)+1 {
				return nil, ZeroHash, false
			}
			lc.Parents = append(lc.Parents, parseHash(val))
		case "author":
			if author {
				return nil, ZeroHash, false
			}
			author = true
			var ok bool
			if lc.AuthorName, lc.AuthorEmail, lc.AuthorTime, ok = logIdent(val); !ok {
				return nil, ZeroHash, false
			}
		case "encoding":
			if e := string(bytes.ToLower(val)); e != "utf-8" && e != "utf8" {
				return nil, ZeroHash, false
			}
		}
	}
	if tree.IsZero() || !author {
		return nil, ZeroHash, false
	}
	return lc, tree, true
}

// logIdent reads "Name <email> 1700000000 +0100" as git's %an, %ae and
// %at give it; ok is false for any other shape (no name, a second < or >,
// spaces git would trim), which git is left to read.
func logIdent(b []byte) (name, email string, at int64, ok bool) {
	lt := bytes.IndexByte(b, '<')
	gt := bytes.IndexByte(b, '>')
	if lt < 2 || gt < lt || bytes.Count(b, []byte("<")) != 1 || bytes.Count(b, []byte(">")) != 1 ||
		b[lt-1] != ' ' || isSpace(b[lt-2]) || isSpace(b[0]) {
		return "", "", 0, false
	}
	rest := b[gt+1:]
	if len(rest) < 9 || rest[0] != ' ' {
		return "", "", 0, false
	}
	ts, zone, found := bytes.Cut(rest[1:], []byte(" "))
	if !found || len(zone) != 5 || (zone[0] != '+' && zone[0] != '-') || !digits(zone[1:]) || !digits(ts) || len(ts) > 18 {
		return "", "", 0, false
	}
	at, err := strconv.ParseInt(string(ts), 10, 64)
	if err != nil {
		return "", "", 0, false
	}
	return string(b[:lt-1]), string(b[lt+1 : gt]), at, true
}

// isSpace is git's isspace: space, tab, newline, vertical tab, form feed, carriage return.
func isSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

func octalDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '7' {
			return false
		}
	}
	return true
}

func digits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Canonical modes, as git's canon_mode makes them.
const (
	modeDir     = 0o040000
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeLink    = 0o120000
	modeGitlink = 0o160000
)

// canonMode is git's canon_mode; ok is false for a mode git does not know.
func canonMode(m uint32) (uint32, bool) {
	switch m & 0o170000 {
	case 0o040000:
		return modeDir, true
	case 0o120000:
		return modeLink, true
	case 0o100000:
		if m&0o100 != 0 {
			return modeExec, true
		}
		return modeFile, true
	}
	return 0, false // a gitlink (0o160000) among them: see shortLog
}

// rawDiff lists what changed from tree a to tree b as `git diff-tree -r
// --raw --no-renames` lists it, in its order: ok is false where it would
// not (see shortLog).
func (r *Repo) rawDiff(a, b Hash) ([]LogChange, bool) {
	var out []LogChange
	ok := r.diffInto(a, b, "", &out)
	return out, ok
}

type rawEntry struct {
	name string
	mode uint32
	id   Hash
}

// entries reads tree h (none for the zero hash) with canonical modes,
// checking git's order.
func (r *Repo) entries(h Hash) ([]rawEntry, bool) {
	if h.IsZero() {
		return nil, true
	}
	// The raw object, not go-git's Tree: go-git canonicalises modes with
	// mode&0o111 for the executable bit, git's canon_mode with mode&0o100.
	typ, b, _, err := r.rawObject(h, 0)
	if err != nil || typ != "tree" {
		return nil, false
	}
	var out []rawEntry
	err = RawEntries(b, func(mode []byte, name string, id Hash) error {
		if len(mode) == 0 || len(mode) > 7 || !octalDigits(mode) || name == "" {
			return errTruncatedEntry
		}
		raw, _ := strconv.ParseUint(string(mode), 8, 32)
		m, ok := canonMode(uint32(raw))
		if !ok || strings.ContainsRune(name, '/') {
			return errTruncatedEntry
		}
		out = append(out, rawEntry{name, m, id})
		if n := len(out); n > 1 && entryCompare(out[n-2], out[n-1]) >= 0 {
			return errTruncatedEntry
		}
		return nil
	})
	return out, err == nil
}

// entryCompare orders two entries of one tree as git does.
func entryCompare(x, y rawEntry) int {
	return CompareEntries(x.name, x.mode == modeDir, y.name, y.mode == modeDir)
}

// diffInto appends the changes from tree a to tree b under prefix.
func (r *Repo) diffInto(a, b Hash, prefix string, out *[]LogChange) bool {
	ea, ok := r.entries(a)
	if !ok {
		return false
	}
	eb, ok := r.entries(b)
	if !ok {
		return false
	}
	i, j := 0, 0
	for i < len(ea) || j < len(eb) {
		c := 0
		switch {
		case i == len(ea):
			c = 1
		case j == len(eb):
			c = -1
		default:
			c = entryCompare(ea[i], eb[j])
		}
		switch {
		case c < 0:
			if !r.rawSide(ea[i], prefix, true, out) {
				return false
			}
			i++
		case c > 0:
			if !r.rawSide(eb[j], prefix, false, out) {
				return false
			}
			j++
		default:
			x, y := ea[i], eb[j]
			i, j = i+1, j+1
			if x.id == y.id && x.mode == y.mode {
				continue
			}
			if x.mode == modeDir { // and y too: the names compared equal
				if !r.diffInto(x.id, y.id, prefix+x.name+"/", out) {
					return false
				}
				continue
			}
			kind := byte('M')
			if x.mode&0o170000 != y.mode&0o170000 {
				kind = 'T'
			}
			*out = append(*out, LogChange{Kind: kind, Path: prefix + x.name, Added: LinesUnknown, Deleted: LinesUnknown,
				OldMode: x.mode, NewMode: y.mode, OldID: x.id, NewID: y.id})
		}
	}
	return true
}

// rawSide appends e, and every entry under it, as deleted (del) or added.
func (r *Repo) rawSide(e rawEntry, prefix string, del bool, out *[]LogChange) bool {
	if e.mode == modeDir {
		if del {
			return r.diffInto(e.id, ZeroHash, prefix+e.name+"/", out)
		}
		return r.diffInto(ZeroHash, e.id, prefix+e.name+"/", out)
	}
	ch := LogChange{Path: prefix + e.name, Added: LinesUnknown, Deleted: LinesUnknown}
	if del {
		ch.Kind, ch.OldMode, ch.OldID = 'D', e.mode, e.id
	} else {
		ch.Kind, ch.NewMode, ch.NewID = 'A', e.mode, e.id
	}
	*out = append(*out, ch)
	return true
}
