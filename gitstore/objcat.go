package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// objCat serves go-git's object reads from `git cat-file` processes where
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
type objCat struct {
	gitDir string
	bin    string // the git Open chose (never one older than MinGitVersion), "" for none

	mu       sync.Mutex
	started  bool
	disabled bool
	cmd      *exec.Cmd
	in       io.WriteCloser
	out      *bufio.Reader

	checkMu sync.Mutex
	check   *objCatProc
}

type objCatProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func newObjCat(gitDir, bin string) *objCat {
	return &objCat{gitDir: gitDir, bin: bin, disabled: bin == ""}
}

func (c *objCat) startProc(mode string) (*objCatProc, error) {
	cmd := gitCommand(context.Background(), c.bin, c.gitDir, "cat-file", mode)
	cmd.Stderr = io.Discard
	in, out, err := startDuplex(cmd)
	if err != nil {
		return nil, err
	}
	return &objCatProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

func (p *objCatProc) close() {
	if p == nil {
		return
	}
	p.in.Close()
	_ = p.cmd.Wait()
}

// errCatDown reports that git's process is unusable; go-git takes over.
var errCatDown = errors.New("git cat-file is not running")

// ask sends one object id and reads the header line: type and size, or
// ok false for a missing object.
func (p *objCatProc) ask(h plumbing.Hash) (typ string, size int64, ok bool, err error) {
	if _, err := fmt.Fprintf(p.in, "%s\n", h); err != nil {
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

// object reads h; handled is false when go-git must read it instead.
func (c *objCat) object(t plumbing.ObjectType, h plumbing.Hash) (obj plumbing.EncodedObject, err error, handled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.disabled {
		return nil, nil, false
	}
	if !c.started {
		c.started = true
		p, err := c.startProc("--batch")
		if err != nil {
			c.disabled = true
			return nil, nil, false
		}
		c.cmd, c.in, c.out = p.cmd, p.in, p.out
	}
	p := &objCatProc{cmd: c.cmd, in: c.in, out: c.out}
	typ, size, ok, err := p.ask(h)
	if err != nil {
		c.down(p)
		return nil, nil, false
	}
	if !ok {
		return nil, plumbing.ErrObjectNotFound, true
	}
	ot, perr := plumbing.ParseObjectType(typ)
	cont := make([]byte, size)
	if _, err := io.ReadFull(c.out, cont); err != nil {
		c.down(p)
		return nil, nil, false
	}
	if b, err := c.out.ReadByte(); err != nil || b != '\n' {
		c.down(p)
		return nil, nil, false
	}
	if perr != nil || (t != plumbing.AnyObject && ot != t) {
		return nil, plumbing.ErrObjectNotFound, true
	}
	return &catObject{h: h, t: ot, cont: cont}, nil, true
}

// catObject is an object git cat-file read: its content in one slice of
// exactly its size (go-git's MemoryObject grows one by appending, copying
// a large blob several times over), and its id as asked, which git found
// it by, so nothing hashes the content again. It is read-only, and owned
// by whoever asked for it: no cache keeps it (see Repo.BlobBytes).
type catObject struct {
	h    plumbing.Hash
	t    plumbing.ObjectType
	cont []byte
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

// content is the object's bytes when obj came from git cat-file, shared,
// not copied.
func content(obj plumbing.EncodedObject) ([]byte, bool) {
	if o, ok := obj.(*catObject); ok {
		return o.cont, true
	}
	return nil, false
}

// has reports whether the object database holds h; handled as in object.
func (c *objCat) has(h plumbing.Hash) (found, handled bool) {
	_, found, handled = c.size(h)
	return found, handled
}

// size is the inflated size of h from git's object header, nothing of its
// content read; found and handled as in has.
func (c *objCat) size(h plumbing.Hash) (size int64, found, handled bool) {
	c.checkMu.Lock()
	defer c.checkMu.Unlock()
	c.mu.Lock()
	disabled := c.disabled
	c.mu.Unlock()
	if disabled {
		return 0, false, false
	}
	if c.check == nil {
		p, err := c.startProc("--batch-check")
		if err != nil {
			return 0, false, false
		}
		c.check = p
	}
	_, size, ok, err := c.check.ask(h)
	if err != nil {
		c.check.close()
		c.check = nil
		return 0, false, false
	}
	return size, ok, true
}

// down gives up on git's process after a protocol error: go-git serves
// the rest.
func (c *objCat) down(p *objCatProc) {
	c.disabled = true
	p.close()
	c.cmd, c.in, c.out = nil, nil, nil
}

// close ends git's processes.
func (c *objCat) close() {
	c.mu.Lock()
	if c.cmd != nil {
		(&objCatProc{cmd: c.cmd, in: c.in, out: c.out}).close()
		c.cmd = nil
	}
	c.disabled = true
	c.mu.Unlock()
	c.checkMu.Lock()
	c.check.close()
	c.check = nil
	c.checkMu.Unlock()
}
