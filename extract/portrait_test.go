package extract

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

func TestReadReadme(t *testing.T) {
	tests := []struct {
		name, in, title, desc string
	}{
		{"news banner and badges",
			"# Widget Framework\n\n<img align=\"right\" src=\"logo.png\">\n\n[![Build](https://ci/badge.svg)](https://ci)\n[![Docs](https://docs/badge.svg)](https://docs)\n\n" +
				"## 📰 Widget 2.4.0 is now available!\n\nWe're excited to announce the release of **[Widget 2.4.0](https://x/blog)**! Check out the notes.\n\n---\n\n" +
				"Widget is a fast [HTTP](https://x) framework written in Go. It is small.\n\n**Why choose Widget?**\n",
			"Widget Framework", "Widget is a fast HTTP framework written in Go."},
		{"html header",
			"<p align=\"center\">\n  <a href=\"https://x\"><img src=\"logo.png\"></a>\n</p>\n\n<p align=\"center\"><strong>Widget</strong> <em>- A tagline in HTML.</em></p>\n\n" +
				"Widget is a fully featured client library for Python 3. It includes more.\n",
			"", "Widget is a fully featured client library for Python 3."},
		{"setext title", "widget (wd)\n-----------\nwidget is a line-oriented tool that searches a directory for a pattern. By default it skips.\n",
			"widget (wd)", "widget is a line-oriented tool that searches a directory for a pattern."},
		{"bold tagline and toc", "<a href=\"x\"><img src=\"l.svg\"></a>\n\n**Fast, unopinionated, minimalist web framework for [Node.js](https://nodejs.org).**\n\n## Table of contents\n\n- [Installation](#installation)\n",
			"", "Fast, unopinionated, minimalist web framework for Node.js."},
		{"note and quote first", "# Tool: fast search\n\n    \"an indented epigraph\" - someone\n\n**Note:** This is the maintained fork of the original repository.\n\n> Quoted text here is no description.\n\nTool is a text search engine intended for use with source code. (Say it like this.)\n",
			"Tool: fast search", "Tool is a text search engine intended for use with source code."},
		{"list intro", "# Lib\n\nLib is a DSL for quickly creating web applications in Ruby:\n\n```ruby\nget '/'\n```\n",
			"Lib", "Lib is a DSL for quickly creating web applications in Ruby."},
		{"restructuredtext", ".. image:: https://badge/x.svg\n   :target: https://x\n\n=====\nWidget\n=====\n\n.. note:: An old note.\n\n``Widget`` is a `small <https://x>`_ library for talking to :class:`Servers`.\n",
			"Widget", "Widget is a small library for talking to Servers."},
		{"release notes heading", "# App\n\n## Release notes\n\nVersion 3 brings a new engine and many fixes for users.\n\n## About\n\nApp keeps a list of your tasks in a text file.\n",
			"App", "App keeps a list of your tasks in a text file."},
		{"nothing real", "# X\n\n[![a](b)](c)\n\n- one\n- two\n", "X", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readReadme(tt.in)
			if got.Description != tt.desc || tt.title != "" && got.Title != tt.title {
				t.Errorf("got title %q desc %q\nwant title %q desc %q", got.Title, got.Description, tt.title, tt.desc)
			}
		})
	}
	if n := readmeName("Welcome to Rails"); n != "Rails" {
		t.Errorf("name %q", n)
	}
	if n := readmeName("Zoekt: fast code search"); n != "Zoekt" {
		t.Errorf("name %q", n)
	}
	if n := readmeName("A framework for building things quickly and well"); n != "" {
		t.Errorf("a sentence became a name: %q", n)
	}
}

// portraitOf extracts r and returns its project.json.
func portraitOf(t *testing.T, r *testgit.Repo) *Project {
	t.Helper()
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), repo, Options{}); err != nil {
		t.Fatal(err)
	}
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := memref.Project(repo, mem.Tree)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

func symlink(t *testing.T, r *testgit.Repo, target, link string) {
	t.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(link))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// TestPortraitFollowsSymlinksAndGroupsExamples: a workspace whose README
// is a link into its main crate (as axum's is) gets the crate's name and
// description; links out of the repository or in a loop are not
// followed; example crates are one group.
func TestPortraitFollowsSymlinksAndGroupsExamples(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.Git("config", "konteks.embed.provider", "none")
	files := map[string]string{
		"Cargo.toml":          "[workspace]\nmembers = [\"widget\", \"examples/*\"]\n",
		"widget/Cargo.toml":   "[package]\nname = \"widget\"\nversion = \"0.8.0\"\n\n[dependencies]\ntokio = \"1\"\n",
		"widget/README.md":    "# widget\n\n`widget` is a routing library that focuses on ergonomics and modularity.\n",
		"widget/src/lib.rs":   "pub fn route() {}\n",
		"examples/README.md":  "# Examples\n",
		"docs/guide/loop.txt": "x\n",
	}
	for _, ex := range []string{"chat", "cors", "hello-world"} {
		files["examples/"+ex+"/Cargo.toml"] = "[package]\nname = \"example-" + ex + "\"\n\n[dependencies]\nexample-only-dep = \"1\"\n"
		files["examples/"+ex+"/src/main.rs"] = "fn main() {}\n"
	}
	r.WriteFiles(files)
	symlink(t, r, "widget/README.md", "README.md")
	symlink(t, r, "../../../../etc/hostname", "docs/README.md")
	symlink(t, r, "b", "docs/a")
	symlink(t, r, "a", "docs/b")
	r.Commit("workspace")
	pr := portraitOf(t, r)
	if pr.Name != "widget" || pr.Description != "widget is a routing library that focuses on ergonomics and modularity." {
		t.Errorf("name %q description %q", pr.Name, pr.Description)
	}
	if len(pr.PackageGroups) != 1 {
		t.Fatalf("groups %+v", pr.PackageGroups)
	}
	g := pr.PackageGroups[0]
	if g.Path != "examples" || g.Role != "examples" || g.Manager != "cargo" || g.Count != 3 || strings.Join(g.Names, ",") != "example-chat,example-cors,example-hello-world" {
		t.Errorf("group %+v", g)
	}
	for _, p := range pr.Packages {
		if strings.HasPrefix(p.Path, "examples") {
			t.Errorf("example listed as a package: %+v", p)
		}
	}
	for _, d := range pr.Dependencies["cargo"] {
		if d == "example-only-dep" {
			t.Errorf("an example's dependency became the project's: %v", pr.Dependencies)
		}
	}

	// A README link that leaves the repository is not followed.
	repo, _ := gitstore.Open(r.Dir)
	head, _ := repo.Resolve("HEAD")
	root, _ := repo.Tree(head.TreeHash)
	for _, link := range []string{"docs/README.md", "docs/a"} {
		e, err := root.FindEntry(link)
		if err != nil {
			t.Fatal(err)
		}
		if p, _, ok := linkTarget(repo, root, link, e.Hash); ok {
			t.Errorf("%s followed to %s", link, p)
		}
	}
	if p, _, ok := linkTarget(repo, root, "README.md", mustEntry(t, root, "README.md")); !ok || p != "widget/README.md" {
		t.Errorf("README.md -> %q %v", p, ok)
	}
}

func mustEntry(t *testing.T, root *gitstore.Tree, p string) gitstore.Hash {
	t.Helper()
	e, err := root.FindEntry(p)
	if err != nil {
		t.Fatal(err)
	}
	return e.Hash
}

// TestPortraitCopiesNothingTheGateSkipped: a README holding a credential,
// a manifest the repository ignores and a secret-named file are all left
// out of memory by the gate, and so the portrait copies no text of them.
func TestPortraitCopiesNothingTheGateSkipped(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.Git("config", "konteks.embed.provider", "none")
	r.WriteFiles(map[string]string{
		"README.md":         "# Leaky\n\nLeaky deploys with the token ghp_0123456789abcdefghijklmnopqrstuvwxyz in its config.\n",
		".konteksignore":    "web/package.json\n",
		"web/package.json":  `{"name":"hidden-web","description":"The private web client of the hidden project","scripts":{"deploy":"push --secret-flag"}}`,
		"go.mod":            "module example.com/leaky\n\ngo 1.22\n",
		"main.go":           "package main\n\nfunc main() {}\n",
		"docs/README.md":    "# Docs\n\nThe documentation of the hidden project lives here for now.\n",
		".env/Dockerfile":   "FROM secret-registry.example/base\n",
		"deploy/Dockerfile": "FROM golang:1.22\n",
	})
	symlink(t, r, "README.md", "docs/LINK.md")
	r.Commit("leaky")
	pr := portraitOf(t, r)
	b, _ := json.Marshal(pr)
	for _, leak := range []string{"ghp_", "token", "hidden", "private", "secret"} {
		if strings.Contains(string(b), leak) {
			t.Errorf("portrait copies %q from a skipped file: %s", leak, b)
		}
	}
	if pr.Name != "example.com/leaky" || pr.Description != "" {
		t.Errorf("name %q description %q", pr.Name, pr.Description)
	}
	if len(pr.Docker) != 1 {
		t.Errorf("docker %v", pr.Docker)
	}
}
