package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPackageMap: every package of the module has a row in
// docs/architecture.md (a `dir/...` row covers dir and the packages under
// it), and every row names at least one package.
func TestPackageMap(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		rows = append(rows, m[1])
	}
	if len(rows) == 0 {
		t.Fatal("docs/architecture.md has no package table")
	}

	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	mod := exec.Command("go", "list", "-m")
	mod.Dir = root
	modPath, err := mod.Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	prefix := strings.TrimSpace(string(modPath)) + "/"

	covers := func(row, pkg string) bool {
		if dir, ok := strings.CutSuffix(row, "/..."); ok {
			return pkg == dir || strings.HasPrefix(pkg, dir+"/")
		}
		return pkg == row
	}
	used := map[string]bool{}
	for _, line := range strings.Fields(string(out)) {
		pkg := strings.TrimPrefix(line, prefix)
		found := false
		for _, r := range rows {
			if covers(r, pkg) {
				found, used[r] = true, true
			}
		}
		if !found {
			t.Errorf("package %s has no row in docs/architecture.md", pkg)
		}
	}
	for _, r := range rows {
		if !used[r] {
			t.Errorf("docs/architecture.md lists %s, which is no package", r)
		}
	}
}
