package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/manifest"
)

// binary is the git-konteks built once for every test in this package:
// tests run the real program, as a user would.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "konteks-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "git-konteks")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build git-konteks:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs git-konteks in dir and returns stdout; it fails the test on a
// non-zero exit.
func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, errOut, err := tryRun(dir, nil, args...)
	if err != nil {
		t.Fatalf("git-konteks %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// tryRun runs git-konteks with extra environment and returns stdout,
// stderr and the error.
func tryRun(dir string, env []string, args ...string) (string, string, error) {
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// extractJSON runs an extraction and decodes its JSON report.
func extractJSON(t testing.TB, dir string, args ...string) extractReport {
	t.Helper()
	var rep extractReport
	out := run(t, dir, append([]string{"extract", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("decode extract report: %v\n%s", err, out)
	}
	return rep
}

type extractReport struct {
	Commit   string             `json:"commit"`
	Previous string             `json:"previous"`
	UpToDate bool               `json:"up_to_date"`
	Manifest *manifest.Manifest `json:"manifest"`
}

type showReport struct {
	Path     string `json:"path"`
	Blob     string `json:"blob"`
	Kind     string `json:"kind"`
	Language string `json:"language"`
	Parser   string `json:"parser"`
	Lines    int    `json:"lines"`
	Sections []struct {
		Anchor    string `json:"anchor"`
		Kind      string `json:"kind"`
		Symbol    string `json:"symbol"`
		Name      string `json:"name"`
		QName     string `json:"qname"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
		Parser    string `json:"parser"`
		Content   string `json:"content"`
	} `json:"sections"`
}

// text joins the content of every section.
func (r showReport) text() string {
	var b strings.Builder
	for _, s := range r.Sections {
		b.WriteString(s.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

func show(t testing.TB, dir, path string) showReport {
	t.Helper()
	var rep showReport
	out := run(t, dir, "show", "--json", path)
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("decode show: %v\n%s", err, out)
	}
	return rep
}

// memoryFiles lists the source paths that have records in refs/konteks.
func memoryFiles(t testing.TB, r *testgit.Repo) []string {
	t.Helper()
	out := r.Git("ls-tree", "-r", "--name-only", "refs/konteks", "files/")
	var paths []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" {
			paths = append(paths, strings.TrimPrefix(l, "files/"))
		}
	}
	return paths
}

func execGit(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), env...)
	return cmd
}
