package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-enry/go-enry/v2"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/secret"
)

// TestGateOnRepos measures the gate on real repositories
// (KONTEKS_GATE_REPOS: git dirs separated by ':'), for docs/gate.md:
// what linguist's vendor list dropped and the third-party rules keep,
// by the first directory of the path, and what the credential detector
// redacts or skips, with its time next to the time to read the blobs.
func TestGateOnRepos(t *testing.T) {
	list := os.Getenv("KONTEKS_GATE_REPOS")
	if list == "" {
		t.Skip("KONTEKS_GATE_REPOS not set")
	}
	fmt.Println("| repository | files | linguist vendored | now vendored | kept now (by where) | redacted files (kinds) | skipped as secret | detector ms / MB |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, dir := range strings.Split(list, ":") {
		repo, tree, g := openGate(t, dir)
		files, oldV, newV := 0, 0, 0
		kept := map[string]int{}
		kinds := map[string]int{}
		redacted, secretSkip := 0, 0
		var detect time.Duration
		var bytesRead int64
		err := repo.WalkTree(tree, nil, func(e gitstore.Entry) error {
			if e.Kind != gitstore.KindFile {
				return nil
			}
			files++
			old := enry.IsVendor(e.Path) && !(strings.Contains(e.Path, "testdata/") && !enry.IsVendor(strings.ReplaceAll(e.Path, "testdata/", "tdata/")))
			reason := g.Path(e.Path, e.Kind)
			if old {
				oldV++
			}
			if reason == SkipVendored {
				newV++
			}
			if old && reason != SkipVendored {
				kept[keptWhere(e.Path)]++
			}
			if reason != "" {
				return nil
			}
			b, err := repo.BlobBytes(e.Hash, DefaultMaxFileSize)
			if err != nil || g.Content(e.Path, b) != "" {
				return nil
			}
			bytesRead += int64(len(b))
			t0 := time.Now()
			_, ks, skip := g.Redact(e.Path, b)
			detect += time.Since(t0)
			if os.Getenv("KONTEKS_GATE_SHOW") != "" {
				for _, m := range secret.FindFile(e.Path, b) {
					lo := max(0, m.Start-40)
					fmt.Printf("  %s %s: %q\n", e.Path, m.Kind, b[lo:min(len(b), m.End+10)])
				}
			}
			if skip != "" {
				secretSkip++
			}
			if len(ks) > 0 {
				redacted++
				for _, k := range ks {
					kinds[k]++
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("| %s | %d | %d | %d | %s | %d (%s) | %d | %.1f |\n", filepath.Base(filepath.Dir(dir)), files, oldV, newV, counts(kept), redacted, counts(kinds), secretSkip,
			float64(detect.Milliseconds())/(float64(bytesRead)/1e6))
	}
}

// keptWhere names the rule of linguist's list a kept path fell under.
func keptWhere(p string) string {
	for _, k := range []string{".github/", "cache/", "env/", "extern/", "fixtures/", "testdata/", "test/", "tests/", "docs/", "examples/", "web/", "ui/"} {
		if strings.HasPrefix(p, k) || strings.Contains(p, "/"+k) {
			return strings.TrimSuffix(k, "/")
		}
	}
	switch {
	case strings.HasSuffix(p, ".d.ts"):
		return "*.d.ts"
	case strings.HasPrefix(filepath.Base(p), "."):
		return "dotfiles"
	}
	return "other"
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
