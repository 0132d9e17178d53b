package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

// recipeSteps reads the shell lines between the konteks-steps-begin and
// konteks-steps-end markers of a CI recipe: the lines of a YAML block
// scalar (GitHub's `run: |`) or the items of a YAML list (GitLab's
// `script:`).
func recipeSteps(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasSuffix(line, "konteks-steps-begin"):
			in = true
		case strings.HasSuffix(line, "konteks-steps-end"):
			in = false
		case in && line != "":
			steps = append(steps, strings.TrimPrefix(line, "- "))
		}
	}
	if len(steps) == 0 {
		t.Fatalf("%s has no konteks steps", path)
	}
	return steps
}

// TestCIRecipes runs each CI recipe's steps as CI would, in a fresh clone
// of a bare remote with git-konteks on PATH, twice (the second run finds
// memory on the remote), and then checks that a developer's clone fetches
// the memory and recalls from it.
func TestCIRecipes(t *testing.T) {
	t.Parallel()
	recipes, err := filepath.Glob("../../docs/ci/*.yml")
	if err != nil || len(recipes) < 2 {
		t.Fatalf("CI recipes: %v %v", recipes, err)
	}
	path := filepath.Dir(binary) + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, recipe := range recipes {
		t.Run(filepath.Base(recipe), func(t *testing.T) {
			steps := recipeSteps(t, recipe)
			remote, seed := teamRemote(t)
			for round := 0; round < 2; round++ {
				ci := cloneOf(t, remote, "ci")
				for _, step := range steps {
					cmd := exec.Command("sh", "-c", step)
					cmd.Dir = ci.Dir
					cmd.Env = append(testgit.Env(), "PATH="+path)
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("round %d: %s: %v\n%s", round, step, err, out)
					}
				}
				// A developer commits between the two CI runs.
				seed.Write("billing/invoice.go", "package billing\n\n// Invoice totals a customer's monthly charges.\nfunc Invoice() int { return 0 }\n")
				seed.Commit("billing")
				seed.Git("push", "-q", remote, "HEAD:main")
			}
			dev := cloneOf(t, remote, "dev")
			dev.Git("reset", "-q", "--hard", "HEAD~1") // the commit CI extracted last
			run(t, dev.Dir, "init", "--no-hooks")
			if out := run(t, dev.Dir, "recall", "how are monthly invoices computed"); !strings.Contains(out, "billing/invoice.go") {
				t.Fatalf("the developer's clone cannot recall CI's memory:\n%s", out)
			}
		})
	}
}
