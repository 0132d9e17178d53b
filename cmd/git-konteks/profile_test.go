package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/testgit"
)

// TestCPUProfilePerProcess: with %p in KONTEKS_CPUPROFILE the command and
// the background runner it starts each write a profile of their own,
// named by pid, instead of one overwriting the other's.
func TestCPUProfilePerProcess(t *testing.T) {
	t.Parallel()
	r := runnerRepo(t)
	profiles := t.TempDir()
	cmd := exec.Command(binary, "extract", "--quiet")
	cmd.Dir = r.Dir
	cmd.Env = append(testgit.Env(), "KONTEKS_CPUPROFILE="+filepath.Join(profiles, "cpu-%p.pprof"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("extract: %v\n%s", err, out)
	}
	mine := filepath.Join(profiles, "cpu-"+strconv.Itoa(cmd.Process.Pid)+".pprof")
	// A profile is written when its process ends: gzip from its first byte.
	written := func(path string) bool {
		b, err := os.ReadFile(path)
		return err == nil && bytes.HasPrefix(b, []byte{0x1f, 0x8b})
	}
	if !written(mine) {
		t.Fatalf("extract (pid %d) wrote no profile of its own", cmd.Process.Pid)
	}
	deadline := time.Now().Add(scaled(60 * time.Second))
	for {
		names, _ := filepath.Glob(filepath.Join(profiles, "cpu-*.pprof"))
		others := 0
		for _, n := range names {
			if n != mine && written(n) {
				others++
			}
		}
		if others > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background runner wrote no profile of its own: %v", names)
		}
		time.Sleep(100 * time.Millisecond)
	}
	waitRunner(t, r.Dir, func() bool { return true })
}
