package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// ObjectInfo is one object as `git cat-file --batch-check` describes it.
type ObjectInfo struct {
	Hash Hash
	Type string // commit, tree, blob, tag
	Size int64  // inflated size, known without inflating the object
}

// NewObjects lists every object reachable from tips and not from exclude
// (`git rev-list --objects tips --not exclude`), with its type and size,
// without reading any blob's content. It is how what a peer sent is
// checked before anything reads it: the cost follows what is new.
func (r *Repo) NewObjects(ctx context.Context, tips, exclude []Hash, fn func(ObjectInfo) error) error {
	if r.gitCLI == "" {
		return errors.New("checking fetched memory needs the git command")
	}
	var revs bytes.Buffer
	for _, h := range tips {
		fmt.Fprintln(&revs, h)
	}
	for _, h := range exclude {
		if !h.IsZero() {
			fmt.Fprintf(&revs, "^%s\n", h)
		}
	}
	list := r.command(ctx, "rev-list", "--objects", "--no-object-names", "--stdin")
	list.Stdin = &revs
	check := r.command(ctx, "cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)")
	pr, pw := io.Pipe()
	var listErr, checkErr bytes.Buffer
	list.Stdout, list.Stderr = pw, &listErr
	check.Stdin, check.Stderr = pr, &checkErr
	out, err := check.StdoutPipe()
	if err != nil {
		return err
	}
	if err := check.Start(); err != nil {
		return err
	}
	if err := list.Start(); err != nil {
		pw.Close()
		check.Wait()
		return err
	}
	go func() { pw.CloseWithError(list.Wait()) }()
	sc := bufio.NewScanner(out)
	var ferr error
	for sc.Scan() {
		if ferr != nil {
			continue // drain so both processes end
		}
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			ferr = fmt.Errorf("list objects: unexpected line %q", sc.Text())
			continue
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || f[1] == "missing" {
			ferr = fmt.Errorf("list objects: object %s is missing", f[0])
			continue
		}
		ferr = fn(ObjectInfo{Hash: plumbing.NewHash(f[0]), Type: f[1], Size: size})
		if ferr != nil && list.Process != nil {
			list.Process.Kill() // stop listing; the scan drains what is left
		}
	}
	werr := check.Wait()
	if ferr != nil {
		return ferr
	}
	if werr != nil || ctx.Err() != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("list objects: %w: %s %s", werr, strings.TrimSpace(listErr.String()), strings.TrimSpace(checkErr.String()))
	}
	return sc.Err()
}

// RawObject reads an object's uncompressed content as stored (for a tree,
// the binary entry list; for a commit, its headers and message), refusing
// one over limit bytes. The bytes are the caller's.
func (r *Repo) RawObject(h Hash, limit int64) (typ string, data []byte, err error) {
	typ, data, shared, err := r.rawObject(h, limit)
	if shared {
		data = bytes.Clone(data)
	}
	return typ, data, err
}

// rawObject is RawObject for this package's parsers, which only read the
// bytes: shared reports that other readers share them.
func (r *Repo) rawObject(h Hash, limit int64) (typ string, data []byte, shared bool, err error) {
	obj, err := r.storage.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return "", nil, false, fmt.Errorf("read object %s: %w", h, err)
	}
	if limit > 0 && obj.Size() > limit {
		return "", nil, false, fmt.Errorf("object %s is %d bytes, over the %d byte limit", h, obj.Size(), limit)
	}
	if b, shared, ok := content(obj); ok {
		return obj.Type().String(), b, shared, nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return "", nil, false, fmt.Errorf("read object %s: %w", h, err)
	}
	defer rd.Close()
	data, err = io.ReadAll(io.LimitReader(rd, obj.Size()+1))
	if err != nil {
		return "", nil, false, fmt.Errorf("read object %s: %w", h, err)
	}
	return obj.Type().String(), data, false, nil
}

// RawObjectSize is the inflated size of an object, read from its header
// (by git's cat-file --batch-check: its content is not read).
func (r *Repo) RawObjectSize(h Hash) (int64, error) {
	if n, found, handled := r.storage.cat.size(h); handled {
		if !found {
			return 0, fmt.Errorf("read object %s: %w", h, plumbing.ErrObjectNotFound)
		}
		return n, nil
	}
	obj, err := r.storage.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, fmt.Errorf("read object %s: %w", h, err)
	}
	return obj.Size(), nil
}
