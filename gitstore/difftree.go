package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// A DiffStream diffs commits with rename detection (and line counts when
// asked) in one long-lived `git diff-tree --stdin` process, each as soon
// as it is handed over: a history walk that finds a commit it must diff
// again passes it on and goes on walking, and git diffs it meanwhile. One
// process for the whole walk instead of one per batch: starting git costs
// more than diffing most commits.
//
// Each commit is listed as Log lists it (same format, same parser). A
// commit git cannot diff (a blob missing from a damaged object store)
// stops the process: Close reports it, and the commits not delivered are
// the caller's to diff another way.
type DiffStream struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	errb bytes.Buffer
	done chan struct{}
	perr error
	werr error // first write error
}

// StartDiff starts a DiffStream: with line counts (-M --numstat) when
// counts is set, renames only (-M) otherwise. fn is called, from the
// stream's own goroutine, for each commit diffed, in the order handed
// over; an error from it stops the stream.
func (r *Repo) StartDiff(ctx context.Context, counts bool, fn func(*LogCommit) error) (*DiffStream, error) {
	if r.gitCLI == "" {
		return nil, ErrNoCLI
	}
	args := []string{
		"-c", "core.quotePath=false",
		"diff-tree", "--stdin", "-r", "-z", "--no-color", "--no-abbrev", "--no-relative",
		"--no-ext-diff", "--no-textconv", "--root", "--raw", "-M",
		"--format=%x1e%H%x00%P%x00%an%x00%ae%x00%at%x00%B%x00",
	}
	if counts {
		args = append(args, "--numstat")
	}
	cmd := r.command(ctx, args...)
	ownGroup(cmd)
	d := &DiffStream{cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &d.errb
	in, out, err := startDuplex(cmd)
	if err != nil {
		return nil, fmt.Errorf("git diff-tree: %w", err)
	}
	d.in = in
	shallow := r.shallowCommits()
	go func() {
		defer close(d.done)
		// As in Log, the commit printed last is held back until git
		// exits cleanly: it may have been cut short.
		var last *LogCommit
		d.perr = parseLog(bufio.NewReaderSize(out, 64<<10), shallow, !counts, func(c *LogCommit) error {
			if last != nil {
				if err := fn(last); err != nil {
					return err
				}
			}
			last = c
			return nil
		})
		if d.perr != nil {
			_ = cmd.Process.Kill()
			_, _ = io.Copy(io.Discard, out)
		}
		d.werr = cmd.Wait()
		if d.perr == nil && d.werr == nil && last != nil {
			d.perr = fn(last)
		}
	}()
	return d, nil
}

// Add hands commit h over to be diffed. An error means git stopped (Close
// says why); the commits not delivered by then are not diffed.
func (d *DiffStream) Add(h Hash) error {
	_, err := io.WriteString(d.in, h.String()+"\n")
	return err
}

// Close waits until every commit handed over is diffed and git has exited.
func (d *DiffStream) Close() error {
	_ = d.in.Close()
	<-d.done
	if d.perr != nil {
		return d.perr
	}
	if d.werr != nil {
		msg := strings.TrimSpace(d.errb.String())
		if strings.Contains(msg, "unable to read") || strings.Contains(msg, "could not read") || strings.Contains(msg, "promisor") {
			return fmt.Errorf("git diff-tree: %w: %s", ErrMissingObjects, msg)
		}
		return fmt.Errorf("git diff-tree: %w: %s", d.werr, msg)
	}
	return nil
}
