package gitstore

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage"
)

// looseLimit is the number of new objects up to which a flush writes loose
// objects; above it, one packfile. A one-file incremental run writes a
// handful of objects, where a pack per run would pile up packs; a full run
// writes thousands, where loose objects would pile up files.
const looseLimit = 128

// Writer collects new objects in memory and writes them to the repository
// in one step (Flush), so nothing a ref will name is missing when the ref
// moves.
type Writer struct {
	repo  *Repo
	objs  map[Hash]rawObject
	order []Hash
	bytes int64
}

type rawObject struct {
	t    plumbing.ObjectType
	data []byte
}

// NewWriter starts an empty batch of objects.
func (r *Repo) NewWriter() *Writer {
	return &Writer{repo: r, objs: map[Hash]rawObject{}}
}

// Pending is the number of objects and bytes not yet flushed.
func (w *Writer) Pending() (objects int, size int64) { return len(w.order), w.bytes }

func (w *Writer) put(t plumbing.ObjectType, data []byte) (Hash, error) {
	h := plumbing.ComputeHash(t, data)
	if _, ok := w.objs[h]; ok {
		return h, nil
	}
	w.objs[h] = rawObject{t: t, data: data}
	w.order = append(w.order, h)
	w.bytes += int64(len(data))
	return h, nil
}

// Blob adds a blob and returns its id.
func (w *Writer) Blob(data []byte) (Hash, error) { return w.put(plumbing.BlobObject, data) }

// TreeEntry is one entry of a tree being written.
type TreeEntry struct {
	Name string
	Mode FileMode
	Hash Hash
}

// Tree adds a tree object with the given entries (sorted here in git's
// order) and returns its id.
func (w *Writer) Tree(entries []TreeEntry) (Hash, error) {
	sortTree(entries)
	var buf bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&buf, "%o %s", e.Mode, e.Name)
		buf.WriteByte(0)
		buf.Write(e.Hash[:])
	}
	return w.put(plumbing.TreeObject, buf.Bytes())
}

// sortTree orders entries the way git does: by name, with a directory
// compared as if its name ended in "/".
func sortTree(es []TreeEntry) {
	key := func(e TreeEntry) string {
		if e.Mode == ModeDir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(es, func(i, j int) bool { return key(es[i]) < key(es[j]) })
}

// Signature is a commit author or committer: who, and when. Writer.Commit
// reads Name and Email only; the time of a written commit is
// CommitSpec.When.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// CommitSpec describes a commit to write.
type CommitSpec struct {
	Tree    Hash
	Parents []Hash
	Author  Signature
	Message string
	When    time.Time
}

// Commit adds a commit object.
func (w *Writer) Commit(c CommitSpec) (Hash, error) {
	when := c.When
	if when.IsZero() {
		when = time.Now()
	}
	sig := object.Signature{Name: c.Author.Name, Email: c.Author.Email, When: when}
	oc := &object.Commit{Author: sig, Committer: sig, Message: c.Message, TreeHash: c.Tree, ParentHashes: c.Parents}
	data, err := encodeCommit(oc)
	if err != nil {
		return ZeroHash, err
	}
	if s := w.repo.commitSigner(); s != nil {
		// Signed when signing is configured (sign.go): peers adopt derived
		// memory only from trusted signers.
		if oc.PGPSignature, err = s.sign(data); err != nil {
			return ZeroHash, err
		}
		if data, err = encodeCommit(oc); err != nil {
			return ZeroHash, err
		}
	}
	return w.put(plumbing.CommitObject, data)
}

func encodeCommit(oc *object.Commit) ([]byte, error) {
	o := &plumbing.MemoryObject{}
	if err := oc.Encode(o); err != nil {
		return nil, err
	}
	rd, _ := o.Reader()
	return io.ReadAll(rd)
}

// Flush writes every pending object to the repository: loose objects for a
// small batch, one packfile for a large one. Objects the repository already
// has are not written again.
func (w *Writer) Flush() error {
	if len(w.order) == 0 {
		return nil
	}
	var todo []Hash
	for _, h := range w.order {
		if !w.repo.HasObject(h) {
			todo = append(todo, h)
		}
	}
	var err error
	if len(todo) <= looseLimit {
		zw, _ := zlib.NewWriterLevel(nil, zlib.NoCompression)
		for _, h := range todo {
			raw := w.objs[h]
			if err = w.repo.writeLoose(zw, h, raw.t, raw.data); err != nil {
				break
			}
		}
	} else {
		err = w.writePack(todo)
	}
	if err != nil {
		return fmt.Errorf("write objects: %w", err)
	}
	w.objs = map[Hash]rawObject{}
	w.order, w.bytes = nil, 0
	return nil
}

func (w *Writer) writePack(hashes []Hash) error {
	pw, err := w.repo.storage.PackfileWriter()
	if err != nil {
		return err
	}
	if err := w.writePackStream(pw, hashes); err != nil {
		pw.Close()
		return err
	}
	return pw.Close()
}

// ReadRef returns the commit a ref points at, or the zero hash when the ref
// does not exist.
func (r *Repo) ReadRef(name string) (Hash, error) {
	if h, ok := r.readFilesRef(name); ok {
		return h, nil
	}
	ref, err := r.storage.Reference(plumbing.ReferenceName(name))
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return ZeroHash, nil
	}
	if err != nil {
		return ZeroHash, fmt.Errorf("read %s: %w", name, err)
	}
	if ref.Type() == plumbing.SymbolicReference {
		return r.ReadRef(ref.Target().String())
	}
	return ref.Hash(), nil
}

// ErrRefMoved is returned by UpdateRef when the ref no longer holds the
// expected old value.
var ErrRefMoved = errors.New("ref moved concurrently")

// UpdateRef moves name from old to new by compare-and-swap (old zero:
// the ref must not exist; new zero: delete it). It uses `git update-ref`
// when available, which honours git's own lock files.
func (r *Repo) UpdateRef(name string, newH, old Hash, reason string) error {
	if r.gitCLI != "" {
		var args []string
		if newH.IsZero() {
			args = []string{"update-ref", "-m", reason, "-d", name, old.String()}
		} else {
			args = []string{"update-ref", "-m", reason, name, newH.String(), old.String()}
		}
		if _, err := r.runGit(nil, args...); err != nil {
			if cur, rerr := r.ReadRef(name); rerr == nil && cur != old {
				return fmt.Errorf("update %s: %w (expected %s, found %s)", name, ErrRefMoved, short(old), short(cur))
			}
			return fmt.Errorf("update %s: %w", name, err)
		}
		return nil
	}
	rn := plumbing.ReferenceName(name)
	if newH.IsZero() {
		cur, err := r.ReadRef(name)
		if err != nil {
			return err
		}
		if cur != old {
			return fmt.Errorf("update %s: %w", name, ErrRefMoved)
		}
		return r.storage.RemoveReference(rn)
	}
	var oldRef *plumbing.Reference
	if !old.IsZero() {
		oldRef = plumbing.NewHashReference(rn, old)
	} else if cur, err := r.ReadRef(name); err != nil {
		return err
	} else if !cur.IsZero() {
		return fmt.Errorf("update %s: %w", name, ErrRefMoved)
	}
	if err := r.storage.CheckAndSetReference(plumbing.NewHashReference(rn, newH), oldRef); err != nil {
		if errors.Is(err, storage.ErrReferenceHasChanged) {
			return fmt.Errorf("update %s: %w", name, ErrRefMoved)
		}
		return fmt.Errorf("update %s: %w", name, err)
	}
	return nil
}

// parseIdent parses "Name <email> 1700000000 +0000".
func parseIdent(id string) Signature {
	lt, gt := strings.IndexByte(id, '<'), strings.IndexByte(id, '>')
	if lt < 0 || gt < lt {
		return Signature{}
	}
	return Signature{Name: strings.TrimSpace(id[:lt]), Email: id[lt+1 : gt]}
}

func short(h Hash) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.String()[:12]
}

// Identity is the author of memory commits: the user's git identity
// (GIT_AUTHOR_*, then user.name/user.email from git config), or a clear
// fallback naming the tool when none is configured.
func (r *Repo) Identity() Signature {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.identity != nil {
		return *r.identity
	}
	var s Signature
	if r.gitCLI != "" {
		// As git resolves it: the environment, then author.* and user.*
		// from config (the snapshot every level and include went into).
		s.Name = firstSet(os.Getenv("GIT_AUTHOR_NAME"), r.ConfigValue("author.name"), r.ConfigValue("user.name"))
		s.Email = firstSet(os.Getenv("GIT_AUTHOR_EMAIL"), r.ConfigValue("author.email"), r.ConfigValue("user.email"), os.Getenv("EMAIL"))
		if !plainIdent(s.Name) || !plainIdent(s.Email) {
			// git's own answer: its guesses where nothing is set, and
			// what it strips from names and emails it would not write.
			if out, err := r.runGit(nil, "var", "GIT_AUTHOR_IDENT"); err == nil {
				s = parseIdent(strings.TrimSpace(string(out)))
			}
		}
	}
	if s.Name == "" || s.Email == "" {
		s.Name, s.Email = os.Getenv("GIT_AUTHOR_NAME"), os.Getenv("GIT_AUTHOR_EMAIL")
		// go-git answers only where git did not (no git CLI). It reads
		// ~/.gitconfig and $XDG_CONFIG_HOME/git/config by itself, ignoring
		// GIT_CONFIG_GLOBAL: when that names another global config, only
		// the repository's own is read, else an identity git would never
		// use leaks in.
		scope := config.GlobalScope
		if _, named := os.LookupEnv("GIT_CONFIG_GLOBAL"); named {
			scope = config.LocalScope
		}
		if r.gitCLI == "" {
			if cfg, err := r.git.ConfigScoped(scope); err == nil {
				if s.Name == "" {
					s.Name = cfg.User.Name
				}
				if s.Email == "" {
					s.Email = cfg.User.Email
				}
			}
		}
	}
	if s.Name == "" {
		s.Name = "git-konteks"
	}
	if s.Email == "" {
		s.Email = "git-konteks@localhost"
	}
	r.identity = &s
	return s
}

// plainIdent reports whether v is a name or email git writes as it is:
// not empty, nothing git strips from its ends (spaces and control
// characters, . , : ; < > " \ '), no angle bracket or newline within.
func plainIdent(v string) bool {
	crud := func(c byte) bool {
		return c <= ' ' || strings.IndexByte(".,:;<>\"\\'", c) >= 0
	}
	if v == "" || crud(v[0]) || crud(v[len(v)-1]) {
		return false
	}
	return !strings.ContainsAny(v, "<>\n\x00")
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// PendingObject returns the content of an object added to w and not yet
// flushed.
func (w *Writer) PendingObject(h Hash) ([]byte, bool) {
	o, ok := w.objs[h]
	return o.data, ok
}

// writeLoose writes one loose object with zw (reset here), which stores
// rather than deflates: go-git's writer deflated at the default level, most
// of a one-file run's write (a 4,096-entry vectors tree among the objects),
// for little, as records and vector shards are zstd frames already and
// trees mostly hashes (stored: +15% bytes on such a run, ~100x less CPU;
// git's core.looseCompression=0 does the same). Object ids do not depend
// on it, and gc deflates anew when it packs them. Written to a temporary
// file in the object's directory and renamed, like git.
func (r *Repo) writeLoose(zw *zlib.Writer, h Hash, t plumbing.ObjectType, data []byte) error {
	hex := h.String()
	dir := filepath.Join(r.CommonDir, "objects", hex[:2])
	final := filepath.Join(dir, hex[2:])
	if _, err := os.Stat(final); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	zw.Reset(tmp)
	fmt.Fprintf(zw, "%s %d\x00", t.Bytes(), len(data))
	if _, err := zw.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o444); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), final)
}
