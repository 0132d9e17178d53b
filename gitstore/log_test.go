package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/testgit"
)

// logOutput runs Log's git command for the history of HEAD and returns
// what git printed.
func logOutput(t *testing.T, r *testgit.Repo, opt LogOptions, noBlobs bool) []byte {
	t.Helper()
	args, ok := logArgs(opt, noBlobs)
	if !ok {
		t.Fatal("no walk")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = testgit.Env()
	cmd.Stdin = strings.NewReader(strings.TrimSpace(r.Git("rev-parse", "HEAD")) + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func parseAll(t *testing.T, out []byte, size int, noCounts bool) []*LogCommit {
	t.Helper()
	var cs []*LogCommit
	if err := parseLog(bufio.NewReaderSize(bytes.NewReader(out), size), nil, noCounts, func(c *LogCommit) error {
		cs = append(cs, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestParseLogFieldsLongerThanItsBuffer: a message, name or path longer
// than the reader's buffer is read whole, and the walk parses the same
// with a buffer of 16 bytes as with one of a megabyte; renames, binary
// files, modes, merges and root commits come through.
func TestParseLogFieldsLongerThanItsBuffer(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.go", "package a\n\nfunc A() {}\n\nfunc B() {}\n\nfunc C() {}\n")
	r.Write("bin.dat", "\x00\x01\x02binary")
	r.Commit("root")
	long := strings.Repeat("a long line of the body, ", 4000) // ~100 KB
	r.Git("mv", "a.go", "renamed.go")
	deep := strings.Repeat("dir/", 30) + "file with spaces and ünïcode.txt"
	r.Write(deep, "x\ny\n")
	r.Write("bin.dat", "\x00\x03binary again")
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "Rename a.go\n\n"+long)
	r.Git("checkout", "-q", "-b", "side")
	r.Write("side.txt", "side\n")
	r.Commit("side")
	r.Git("checkout", "-q", "-")
	r.Write("main.txt", "main\n")
	r.Commit("main")
	r.Git("merge", "-q", "--no-ff", "-m", "merge side", "side")

	for _, noBlobs := range []bool{false, true} {
		out := logOutput(t, r, LogOptions{}, noBlobs)
		small := parseAll(t, out, 16, noBlobs)
		big := parseAll(t, out, 1<<20, noBlobs)
		if !reflect.DeepEqual(small, big) {
			t.Fatalf("noBlobs=%v: a 16-byte buffer parses differently", noBlobs)
		}
		if len(big) != 5 {
			t.Fatalf("noBlobs=%v: %d commits, want 5", noBlobs, len(big))
		}
		merge, rename, root := big[0], big[3], big[4]
		if len(merge.Parents) != 2 || len(merge.Changes) != 0 {
			t.Errorf("merge: parents %v changes %v", merge.Parents, merge.Changes)
		}
		if !strings.Contains(rename.Message, strings.TrimSpace(long)) {
			t.Errorf("the long message is cut: %d bytes", len(rename.Message))
		}
		if len(root.Parents) != 0 || len(root.Changes) != 2 || root.AuthorTime == 0 || root.AuthorName == "" {
			t.Errorf("root: %+v", root)
		}
		kinds := map[string]LogChange{}
		for _, ch := range rename.Changes {
			kinds[ch.Path] = ch
		}
		if ch, ok := kinds[deep]; !ok || ch.Kind != 'A' || ch.NewMode != 0o100644 || ch.NewID.IsZero() {
			t.Errorf("the deep path: %+v (all: %+v)", ch, rename.Changes)
		}
		bin := kinds["bin.dat"]
		if noBlobs {
			if ch := kinds["renamed.go"]; ch.Kind != 'A' || ch.Added != LinesUnknown {
				t.Errorf("trees only: renamed.go %+v", ch)
			}
			if bin.Added != LinesUnknown {
				t.Errorf("trees only: bin.dat counted %+v", bin)
			}
		} else {
			if ch := kinds["renamed.go"]; ch.Kind != 'R' || ch.OldPath != "a.go" || ch.Added != 0 || ch.Deleted != 0 {
				t.Errorf("rename: %+v", ch)
			}
			if bin.Kind != 'M' || bin.Added != LinesBinary || bin.Deleted != LinesBinary {
				t.Errorf("binary: %+v", bin)
			}
			if ch := kinds[deep]; ch.Added != 2 {
				t.Errorf("the deep path's count: %+v", ch)
			}
		}
	}
}

// TestStartPipedReadsAll: what git prints through startPiped's pipe
// (bigger than the pipe, read with and without naps) arrives whole and
// in order; a command killed mid-way ends the reading instead of
// leaving it blocked.
func TestStartPipedReadsAll(t *testing.T) {
	r := testgit.New(t)
	var big strings.Builder
	for i := 0; big.Len() < 3<<20; i++ {
		fmt.Fprintf(&big, "line %d of a file bigger than the pipe\n", i)
	}
	r.Write("big.txt", big.String())
	r.Commit("big")
	for _, chunk := range []int{1 << 10, 64 << 10, 4 << 20} {
		cmd := exec.Command("git", "cat-file", "blob", "HEAD:big.txt")
		cmd.Dir, cmd.Env = r.Dir, testgit.Env()
		out, err := startPiped(cmd)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		buf := make([]byte, chunk)
		for {
			n, err := out.Read(buf)
			got.Write(buf[:n])
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		out.Close()
		if got.String() != big.String() {
			t.Fatalf("reads of %d: %d bytes, want %d", chunk, got.Len(), big.Len())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir, cmd.Env = r.Dir, testgit.Env()
	pr, pw := io.Pipe() // git waits for requests on it, printing nothing
	cmd.Stdin = pr
	out, err := startPiped(cmd)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, out)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("reading a killed command: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a killed command blocks")
	}
	pw.Close()
	_ = cmd.Wait()
	out.Close()
}
