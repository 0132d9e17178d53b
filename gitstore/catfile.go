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

// Blob is one blob read from the object database. Data is nil when the
// blob is Missing (a partial clone) or TooLarge (over the reader's limit;
// Size still tells its size).
type Blob struct {
	ID       Hash
	Size     int64
	Data     []byte
	Missing  bool
	TooLarge bool
}

// BlobReader streams blobs in request order.
type BlobReader interface {
	// ReadBlobs reads ids in order and calls fn for each. Blobs over
	// maxSize are reported TooLarge without being held in memory. An error
	// from fn stops the read and is returned.
	ReadBlobs(ctx context.Context, ids []Hash, maxSize int64, fn func(Blob) error) error
	Close() error
}

// NewBlobReader returns the fastest reader available: one long-lived,
// pipelined `git cat-file` process when the git CLI is installed (zoekt's
// approach, several times faster than go-git's pack reader), go-git
// otherwise.
//
// expect is how many blobs the caller will read: below smallBatch, go-git
// reads them directly, since starting a process costs more than it saves.
func (r *Repo) NewBlobReader(expect int) BlobReader {
	if r.gitCLI != "" && expect >= smallBatch {
		return &catFile{repo: r}
	}
	return &goGitReader{repo: r}
}

// smallBatch is the number of blobs below which go-git beats spawning
// `git cat-file`.
const smallBatch = 32

// catFile drives `git cat-file --batch-command --buffer`, writing a batch
// of "contents <id>" commands followed by "flush", while a reader consumes
// the responses.
type catFile struct {
	repo *Repo

	once     sync.Once
	startErr error
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	stdout   *bufio.Reader
	broken   error
}

// startDuplex starts cmd with a pipe to its standard input and one from
// its standard output: the long-lived git processes (cat-file, diff-tree)
// that are fed object names and answer as they go.
func startDuplex(cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		in.Close()
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

func (c *catFile) start() error {
	c.once.Do(func() {
		cmd := c.repo.command(context.Background(), "cat-file", "--batch-command", "--buffer")
		ownGroup(cmd)
		cmd.Stderr = io.Discard
		in, out, err := startDuplex(cmd)
		if err != nil {
			c.startErr = fmt.Errorf("start git cat-file: %w", err)
			return
		}
		c.cmd, c.stdin, c.stdout = cmd, in, bufio.NewReaderSize(out, 1<<16)
	})
	return c.startErr
}

func (c *catFile) ReadBlobs(ctx context.Context, ids []Hash, maxSize int64, fn func(Blob) error) error {
	if c.broken != nil {
		return c.broken
	}
	if err := c.start(); err != nil {
		return err
	}
	// In a partial clone, ask go-git first: git before 2.44 ignores
	// GIT_NO_LAZY_FETCH and would try to fetch a missing blob.
	var missing map[Hash]bool
	if c.repo.IsPartialClone() {
		missing = map[Hash]bool{}
		kept := ids[:0:0]
		for _, id := range ids {
			if c.repo.HasObject(id) {
				kept = append(kept, id)
			} else {
				missing[id] = true
			}
		}
		if len(missing) > 0 {
			all := ids
			ids = kept
			return c.readWithMissing(ctx, all, ids, missing, maxSize, fn)
		}
	}
	return c.read(ctx, ids, maxSize, fn)
}

func (c *catFile) readWithMissing(ctx context.Context, all, present []Hash, missing map[Hash]bool, maxSize int64, fn func(Blob) error) error {
	// Read the present ones in order, interleaving the missing reports so
	// callers still see request order.
	got := make(chan Blob, 1)
	errc := make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		errc <- c.read(ctx, present, maxSize, func(b Blob) error {
			select {
			case got <- b:
				return nil
			case <-stop:
				return context.Canceled
			}
		})
		close(got)
	}()
	defer close(stop)
	for _, id := range all {
		if missing[id] {
			if err := fn(Blob{ID: id, Missing: true}); err != nil {
				return err
			}
			continue
		}
		b, ok := <-got
		if !ok {
			return <-errc
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	for range got {
	}
	return <-errc
}

func (c *catFile) read(ctx context.Context, ids []Hash, maxSize int64, fn func(Blob) error) error {
	if len(ids) == 0 {
		return nil
	}
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(c.stdin, 1<<16)
		var err error
		for _, id := range ids {
			if _, err = w.WriteString("contents " + id.String() + "\n"); err != nil {
				break
			}
		}
		if err == nil {
			_, err = w.WriteString("flush\n")
		}
		if err == nil {
			err = w.Flush()
		}
		werr <- err
	}()
	var ferr error
	for i, id := range ids {
		b, err := c.readOne(id, maxSize)
		if err != nil {
			c.broken = fmt.Errorf("git cat-file: %w", err)
			c.Close()
			return c.broken
		}
		if ferr == nil {
			if ctx.Err() != nil {
				ferr = ctx.Err()
			} else {
				ferr = fn(b)
			}
		}
		// After an error keep draining so the process stays in step.
		_ = i
	}
	if err := <-werr; err != nil {
		c.broken = fmt.Errorf("git cat-file: write: %w", err)
		return c.broken
	}
	return ferr
}

func (c *catFile) readOne(want Hash, maxSize int64) (Blob, error) {
	line, err := c.stdout.ReadString('\n')
	if err != nil {
		return Blob{}, fmt.Errorf("read header: %w", err)
	}
	line = strings.TrimSuffix(line, "\n")
	f := strings.Fields(line)
	if len(f) == 2 && f[1] == "missing" {
		return Blob{ID: want, Missing: true}, nil
	}
	if len(f) != 3 || f[0] != want.String() {
		return Blob{}, fmt.Errorf("unexpected header %q for %s", line, want)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return Blob{}, fmt.Errorf("bad size in header %q", line)
	}
	b := Blob{ID: want, Size: size}
	if f[1] != "blob" || (maxSize > 0 && size > maxSize) {
		if _, err := io.CopyN(io.Discard, c.stdout, size+1); err != nil {
			return Blob{}, err
		}
		if f[1] != "blob" {
			return Blob{}, fmt.Errorf("%s is a %s, not a blob", want, f[1])
		}
		b.TooLarge = true
		return b, nil
	}
	b.Data = make([]byte, size+1)
	if _, err := io.ReadFull(c.stdout, b.Data); err != nil {
		return Blob{}, err
	}
	if b.Data[size] != '\n' {
		return Blob{}, errors.New("missing object terminator")
	}
	b.Data = b.Data[:size]
	return b, nil
}

func (c *catFile) Close() error {
	if c.cmd == nil {
		return nil
	}
	c.stdin.Close()
	err := c.cmd.Wait()
	c.cmd = nil
	return err
}

// goGitReader reads blobs through go-git's object storage; the fallback
// when no git CLI is installed.
type goGitReader struct{ repo *Repo }

func (g *goGitReader) ReadBlobs(ctx context.Context, ids []Hash, maxSize int64, fn func(Blob) error) error {
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := Blob{ID: id}
		obj, err := g.repo.storage.EncodedObject(plumbing.BlobObject, id)
		switch {
		case errors.Is(err, plumbing.ErrObjectNotFound):
			b.Missing = true
		case err != nil:
			return fmt.Errorf("read blob %s: %w", id, err)
		default:
			b.Size = obj.Size()
			if maxSize > 0 && b.Size > maxSize {
				b.TooLarge = true
				break
			}
			rd, err := obj.Reader()
			if err != nil {
				return fmt.Errorf("read blob %s: %w", id, err)
			}
			var buf bytes.Buffer
			buf.Grow(int(b.Size))
			_, err = buf.ReadFrom(rd)
			rd.Close()
			if err != nil {
				return fmt.Errorf("read blob %s: %w", id, err)
			}
			b.Data = buf.Bytes()
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

func (g *goGitReader) Close() error { return nil }
