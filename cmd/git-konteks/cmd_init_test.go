package main

import (
	"strings"
	"testing"
	"time"
)

func TestInitSetsUpHooksSharingAndMemory(t *testing.T) {
	t.Parallel()
	remote := bareRemote(t, mixedRepo(t))

	// The first clone publishes memory; the second gets it through init.
	a := cloneOf(t, remote, "a")
	out := run(t, a.Dir, "init")
	for _, want := range []string{"hooks: installed", "refs/konteks-remotes/origin", "has no memory yet", "full extraction"} {
		if !strings.Contains(out, want) {
			t.Fatalf("init output lacks %q:\n%s", want, out)
		}
	}
	run(t, a.Dir, "remember", "--kind", "fact", "The HTTP handler lives in cmd/app/main.go and serves /get")
	run(t, a.Dir, "push")

	b := cloneOf(t, remote, "b")
	out = run(t, b.Dir, "init")
	// Derived memory from an untrusted peer is not adopted (docs/trust.md):
	// b takes a's durable memory and extracts its own.
	if !strings.Contains(out, "merged memory from origin (adopted)") || !strings.Contains(out, "not signed by a trusted signer") || !strings.Contains(out, "full extraction") {
		t.Fatalf("second init:\n%s", out)
	}
	if got := listMemories(t, b.Dir); len(got) != 1 {
		t.Fatalf("b has %d memories after init", len(got))
	}
	// A plain git fetch now brings remote memory along; the hook-driven
	// runner (or the next konteks command) merges it.
	run(t, a.Dir, "remember", "--kind", "fact", "Config lives in config/app.yaml and config/app.json")
	run(t, a.Dir, "push")
	b.Git("fetch", "-q", "origin")
	if b.Git("rev-parse", "refs/konteks-remotes/origin/main") != a.Git("rev-parse", "refs/konteks") {
		t.Fatal("git fetch did not bring the remote memory")
	}
	run(t, b.Dir, "fetch")
	if got := listMemories(t, b.Dir); len(got) != 2 {
		t.Fatalf("b has %d memories after fetch", len(got))
	}
	// With the hooks installed, a fetch that moved memory has the
	// background runner warm recall's caches.
	waitForLog(t, b, "caches warmed", 30*time.Second, "fetch did not warm the caches in the background")
	// Running init again changes nothing.
	before := b.Git("config", "--get-all", "remote.origin.fetch")
	run(t, b.Dir, "init")
	if after := b.Git("config", "--get-all", "remote.origin.fetch"); after != before {
		t.Fatalf("init added refspecs twice:\n%s", after)
	}
	// A config that would overwrite refs/konteks is refused, with a reason.
	b.Git("config", "--add", "remote.origin.fetch", "+refs/*:refs/*")
	_, errOut, err := tryRun(b.Dir, nil, "init")
	if err == nil || !strings.Contains(errOut, "writes refs/konteks directly") || !strings.Contains(errOut, "git config --unset") {
		t.Fatalf("forcing refspec not refused: %v\n%s", err, errOut)
	}
}
