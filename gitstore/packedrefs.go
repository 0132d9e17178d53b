package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Reading a ref that is not a loose file made go-git read packed-refs
// through to the line naming it, or to the end for a ref that does not
// exist: a one-file extraction asks after five refs that mostly do not
// (checkpoints, peers' memory), and a repository with a thousand tags
// has a packed-refs of 85 KB, some 4 ms of its CPU. readFilesRef reads
// the loose file itself and answers from packed-refs parsed once while
// the file stays as it was (size, time, inode), as git itself keeps
// its packed refs in a snapshot.
//
// Only a plain ref of the common dir is read so: a name under refs/ that
// is not per worktree, whose loose file holds an object id or does not
// exist. A symbolic ref, an empty file (a lock being written, as go-git
// reads one), anything else and every error go to go-git as before.
// The order of the reads is git's: the loose file, then packed-refs. A
// writer replaces a loose file whole (a lock file renamed into place)
// and rewrites packed-refs before it deletes a loose ref, so the two
// reads see either state, as go-git's own do.
func (r *Repo) readFilesRef(name string) (Hash, bool) {
	if !strings.HasPrefix(name, "refs/") || strings.Contains(name, "..") || strings.ContainsAny(name, "\\\x00") ||
		strings.HasPrefix(name, "refs/bisect/") || strings.HasPrefix(name, "refs/worktree/") || strings.HasPrefix(name, "refs/rewritten/") {
		return ZeroHash, false
	}
	b, err := os.ReadFile(filepath.Join(r.CommonDir, filepath.FromSlash(name)))
	switch {
	case err == nil:
		h, ok := looseID(b)
		return h, ok
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return r.packed.lookup(filepath.Join(r.CommonDir, "packed-refs"), name)
	default:
		return ZeroHash, false
	}
}

// looseID reads a loose ref file that holds an object id.
func looseID(b []byte) (Hash, bool) {
	b = bytes.TrimRight(b, "\n")
	if len(b) != 40 || bytes.IndexFunc(b, func(c rune) bool { return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') }) >= 0 {
		return ZeroHash, false
	}
	return ParseHash(string(b)), true
}

// packedRefs is packed-refs as last parsed, with the state of the file
// it was parsed from.
type packedRefs struct {
	mu    sync.Mutex
	state string
	refs  map[string]Hash
	// racy is set when the file was parsed within configRacy of its
	// last change: a rewrite in the same timestamp tick, of the same
	// size, onto a reused inode would look the same, so it is parsed
	// again at every lookup until it is old enough.
	racy bool
}

// lookup finds name in the packed-refs file at file: the zero hash and
// true when the file or the line does not exist, false when the file
// cannot be read or parsed.
func (p *packedRefs) lookup(file, name string) (Hash, bool) {
	fi, err := os.Stat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return ZeroHash, true
	}
	if err != nil {
		return ZeroHash, false
	}
	state := fmt.Sprintf("%d %d %s", fi.Size(), fi.ModTime().UnixNano(), fileID(fi))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refs == nil || p.state != state || p.racy {
		b, err := os.ReadFile(file)
		if err != nil {
			p.refs = nil
			return ZeroHash, false
		}
		refs, ok := parsePackedRefs(b)
		if !ok {
			p.refs = nil
			return ZeroHash, false
		}
		// The state is the one seen before the read: a file replaced
		// between the two is parsed again at the next lookup.
		p.state, p.refs = state, refs
		p.racy = !fi.ModTime().Before(time.Now().Add(-configRacy))
	}
	return p.refs[name], true
}

// parsePackedRefs reads packed-refs: a "# pack-refs with:" header, then
// "<id> <name>" lines, each perhaps followed by "^<id>" (the object an
// annotated tag peels to).
func parsePackedRefs(b []byte) (map[string]Hash, bool) {
	refs := map[string]Hash{}
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 || line[0] == '#' || line[0] == '^' {
			continue
		}
		id, name, ok := bytes.Cut(line, []byte(" "))
		h, idOK := looseID(id)
		if !ok || !idOK || len(name) == 0 {
			return nil, false
		}
		refs[string(name)] = h
	}
	return refs, true
}
