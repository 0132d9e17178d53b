package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// objCat serves go-git's object reads from a `git cat-file` process where
// the git command is installed.
//
// go-git reads a packed object by its offset and, for every read, asks the
// pack index for the hash at that offset: the first read from a pack makes
// it build a reverse map of the whole index (on rails, 1.25 million
// objects: 85 MB and a third of a second) on top of the index itself
// (another 35 MB). git reads the index in place. With objCat, a command
// that reads a commit and a few trees costs what git's own reading costs,
// and an extraction's memory stays bounded by its work in flight, not by
// the number of objects in the repository. Objects git does not find are
// not found (nothing is fetched from a promisor remote); go-git is used
// when git is absent or its process fails.
//
// One process answers both kinds of question, `cat-file --batch-command`
// (git 2.36; MinGitVersion is newer): "contents <id>" for an object,
// "info <id>" for its type and size alone (has, size). It was two
// processes, --batch and --batch-check, so that a size or an existence
// check never waited behind an object being read; but each question is
// one round trip to a process that answers one at a time either way,
// every caller of has and size asks in a loop of its own (a writer's
// flush, a peer check, a log's exclusions), and no caller holds a read
// open while it checks. What the second process cost was certain: 5-7 ms
// of CPU to start, in every command that checks an object (a one-file
// extraction's flush does).
type objCat struct {
	gitDir string
	bin    string // the git Open chose (never one older than MinGitVersion), "" for none

	mu       sync.Mutex // held for a whole question and its answer
	started  bool
	disabled bool
	p        *objCatProc
	recent   recentObjects
	asked    int // questions sent to git
}

// recentObjects keeps the trees and commits a process read last, by id.
// A one-file extraction walks the same few trees again and again (the
// path to the changed file in the commit and its parent, the memory
// tree's shards, the history's parts) as one stage after another reads
// them: on rails, 98 questions to git for 65 objects. An object never
// changes under its id, so a second read (or size) is answered here. The
// bytes are shared by every reader, which only read them: go-git decodes
// them, this package's raw readers parse them, and RawObject hands its
// caller a copy. Bounded in bytes, emptied when full.
type recentObjects struct {
	objs  map[plumbing.Hash]*catObject
	bytes int
}

const (
	maxRecentObject = 64 << 10 // the largest object kept
	maxRecentBytes  = 4 << 20  // the most kept at once
)

// get is the object h when it is kept and of type t (or t is any).
func (r *recentObjects) get(t plumbing.ObjectType, h plumbing.Hash) *catObject {
	if o := r.objs[h]; o != nil && (t == plumbing.AnyObject || o.t == t) {
		return o
	}
	return nil
}

func (r *recentObjects) keep(o *catObject) {
	if o.t != plumbing.TreeObject && o.t != plumbing.CommitObject || len(o.cont) > maxRecentObject {
		return
	}
	o.shared = true
	if r.objs == nil || r.bytes+len(o.cont) > maxRecentBytes {
		r.objs, r.bytes = make(map[plumbing.Hash]*catObject), 0
	}
	r.objs[o.h] = o
	r.bytes += len(o.cont)
}

type objCatProc struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	w   io.WriteCloser
	out *bufio.Reader
}

func newObjCat(gitDir, bin string) *objCat {
	return &objCat{gitDir: gitDir, bin: bin, disabled: bin == ""}
}

func (c *objCat) startProc() (*objCatProc, error) {
	cmd := gitCommand(context.Background(), c.bin, c.gitDir, "cat-file", "--batch-command")
	cmd.Stderr = io.Discard
	in, out, err := startDuplex(cmd)
	if err != nil {
		return nil, err
	}
	return &objCatProc{cmd: cmd, in: bufio.NewWriterSize(in, 128), w: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

func (p *objCatProc) close() {
	if p == nil {
		return
	}
	p.w.Close()
	_ = p.cmd.Wait()
}

// errCatDown reports that git's process is unusable; go-git takes over.
var errCatDown = errors.New("git cat-file is not running")

// ask sends one command ("info" or "contents") for an object id and
// reads the header line: type and size, or ok false for a missing object.
// Without --buffer, git answers each command as it reads it.
func (p *objCatProc) ask(cmd string, h plumbing.Hash) (typ string, size int64, ok bool, err error) {
	p.in.WriteString(cmd)
	p.in.WriteByte(' ')
	p.in.WriteString(h.String())
	p.in.WriteByte('\n')
	if err := p.in.Flush(); err != nil {
		return "", 0, false, errCatDown
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		return "", 0, false, errCatDown
	}
	f := strings.Fields(line)
	if len(f) == 2 && f[1] == "missing" || len(f) == 2 && f[1] == "ambiguous" {
		return "", 0, false, nil
	}
	if len(f) != 3 || f[0] != h.String() {
		return "", 0, false, errCatDown
	}
	n, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return "", 0, false, errCatDown
	}
	return f[1], n, true, nil
}

// proc is git's process, started on first use; nil when go-git must
// answer. c.mu is held.
func (c *objCat) proc() *objCatProc {
	if c.disabled {
		return nil
	}
	if !c.started {
		c.started = true
		p, err := c.startProc()
		if err != nil {
			c.disabled = true
			return nil
		}
		c.p = p
	}
	return c.p
}

// object reads h; handled is false when go-git must read it instead.
func (c *objCat) object(t plumbing.ObjectType, h plumbing.Hash) (obj plumbing.EncodedObject, err error, handled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o := c.recent.get(t, h); o != nil {
		cp := *o // the wrapper is the caller's (SetType), the bytes are shared
		return &cp, nil, true
	}
	p := c.proc()
	if p == nil {
		return nil, nil, false
	}
	c.asked++
	typ, size, ok, err := p.ask("contents", h)
	if err != nil {
		c.down()
		return nil, nil, false
	}
	if !ok {
		return nil, plumbing.ErrObjectNotFound, true
	}
	ot, perr := plumbing.ParseObjectType(typ)
	cont := make([]byte, size)
	if _, err := io.ReadFull(p.out, cont); err != nil {
		c.down()
		return nil, nil, false
	}
	if b, err := p.out.ReadByte(); err != nil || b != '\n' {
		c.down()
		return nil, nil, false
	}
	if perr != nil || (t != plumbing.AnyObject && ot != t) {
		return nil, plumbing.ErrObjectNotFound, true
	}
	o := &catObject{h: h, t: ot, cont: cont}
	c.recent.keep(o)
	return o, nil, true
}

// catObject is an object git cat-file read: its content in one slice of
// exactly its size (go-git's MemoryObject grows one by appending, copying
// a large blob several times over), and its id as asked, which git found
// it by, so nothing hashes the content again. It is read-only: a tree or
// a commit is shared with later readers (recentObjects); a blob is owned
// by whoever asked for it (see Repo.BlobBytes).
type catObject struct {
	h      plumbing.Hash
	t      plumbing.ObjectType
	cont   []byte
	shared bool // cont is kept in recentObjects
}

func (o *catObject) Hash() plumbing.Hash           { return o.h }
func (o *catObject) Type() plumbing.ObjectType     { return o.t }
func (o *catObject) SetType(t plumbing.ObjectType) { o.t = t }
func (o *catObject) Size() int64                   { return int64(len(o.cont)) }
func (o *catObject) SetSize(int64)                 {}
func (o *catObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.cont)), nil
}
func (o *catObject) Writer() (io.WriteCloser, error) {
	return nil, errors.New("an object read from the object database is read-only")
}

// content is the object's bytes when obj came from git cat-file, not
// copied; shared reports that other readers share them.
func content(obj plumbing.EncodedObject) (b []byte, shared, ok bool) {
	if o, ok := obj.(*catObject); ok {
		return o.cont, o.shared, true
	}
	return nil, false, false
}

// has reports whether the object database holds h; handled as in object.
func (c *objCat) has(h plumbing.Hash) (found, handled bool) {
	_, found, handled = c.size(h)
	return found, handled
}

// size is the inflated size of h from git's object header, nothing of its
// content read; found and handled as in has.
func (c *objCat) size(h plumbing.Hash) (size int64, found, handled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o := c.recent.objs[h]; o != nil {
		return int64(len(o.cont)), true, true
	}
	p := c.proc()
	if p == nil {
		return 0, false, false
	}
	c.asked++
	_, size, ok, err := p.ask("info", h)
	if err != nil {
		c.down()
		return 0, false, false
	}
	return size, ok, true
}

// down gives up on git's process after a protocol error: go-git serves
// the rest. c.mu is held.
func (c *objCat) down() {
	c.disabled = true
	c.p.close()
	c.p = nil
}

// close ends git's process.
func (c *objCat) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.p.close()
	c.p = nil
	c.disabled = true
}
