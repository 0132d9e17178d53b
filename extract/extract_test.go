package extract

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
)

// TestRefMovedDuringRunKeepsTheirDurable: a `remember` that lands while an
// extraction runs must survive; the extraction commits on top of it.
func TestRefMovedDuringRunKeepsTheirDurable(t *testing.T) {
	r := testgit.New(t)
	for i := 0; i < 50; i++ {
		r.Write("f"+strings.Repeat("x", i%5)+string(rune('a'+i%26))+".txt", strings.Repeat("line\n", i+1))
	}
	r.Commit("files")
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), repo, Options{}); err != nil {
		t.Fatal(err)
	}
	r.Write("new.txt", "new\n")
	r.Commit("more")

	var once sync.Once
	var theirs gitstore.Hash
	opt := Options{Mode: ModeFull, Progress: func(Progress) {
		once.Do(func() {
			// Another writer adds a durable memory to refs/konteks now.
			tip, _ := repo.ReadRef(memory.Ref)
			c, _ := repo.Commit(tip)
			w := repo.NewWriter()
			b, _ := w.Blob([]byte("a durable memory\n"))
			ed := repo.NewTreeEditor(c.TreeHash)
			ed.Set("durable/memories/aa/one", gitstore.ModeRegular, b)
			tree, _ := ed.Write(w)
			theirs, _ = w.Commit(gitstore.CommitSpec{Tree: tree, Parents: []gitstore.Hash{tip}, Author: gitstore.Signature{Name: "o", Email: "o@example.invalid"}, Message: "remember\n"})
			w.Flush()
			if err := repo.UpdateRef(memory.Ref, theirs, tip, "remember"); err != nil {
				t.Error(err)
			}
		})
	}}
	res, err := Run(context.Background(), repo, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The concurrent commit is replaced, not stacked on (no remote holds
	// it), and its durable memory is carried over.
	if tip := r.Git("rev-parse", "refs/konteks"); tip != res.Commit.String() || theirs.IsZero() {
		t.Fatalf("refs/konteks is %s, want the extraction's commit %s on top of %s", tip, res.Commit, theirs)
	}
	if got := r.Git("cat-file", "-p", "refs/konteks:durable/memories/aa/one"); got != "a durable memory" {
		t.Fatalf("durable memory lost: %q", got)
	}
	if res.Manifest.Totals.Included != 51 {
		t.Fatalf("included %d", res.Manifest.Totals.Included)
	}
}

func TestDetectLanguageAndKind(t *testing.T) {
	cases := []struct{ path, content, lang, kind string }{
		{"main.go", "package main", "Go", "code"},
		{"lib/x.h", "#include <stdio.h>\nint f(void);", "C", "code"},
		// enry's content heuristics (built on first use) tell .h files apart.
		{"lib/y.h", "#import <Foundation/Foundation.h>\n@interface Y : NSObject\n@end\n", "Objective-C", "code"},
		{"lib/z.h", "#include <vector>\n#include <string>\nclass Z { public: std::string s; };\n", "C++", "code"},
		{"README.md", "# hi", "Markdown", "markdown"},
		{"a/b.json", "{}", "JSON", "json"},
		{"ci.yml", "a: 1", "YAML", "yaml"},
		{"Cargo.toml", "[package]", "TOML", "toml"},
		{"bin/tool", "#!/usr/bin/env python3\nprint(1)", "Python", "code"},
		{"Makefile", "all:\n\techo", "Makefile", "code"},
		{"notes.txt", "hello", "Text", "text"},
		{"docs/api.rst", "API\n===", "reStructuredText", "rst"},
		{"docs/guide.adoc", "= Guide", "AsciiDoc", "asciidoc"},
		{"notes.org", "* Notes", "Org", "org"},
		{"LICENSE", "MIT", "Text", "text"},
	}
	for _, c := range cases {
		lang := detectLanguage(c.path, []byte(c.content))
		if lang != c.lang || fileKind(lang) != c.kind {
			t.Errorf("%s: got %q/%s, want %q/%s", c.path, lang, fileKind(lang), c.lang, c.kind)
		}
	}
}

func TestAbstractSkipsLicenceHeaders(t *testing.T) {
	pre := "// Copyright 2009 The Go Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style\n// license that can be found in the LICENSE file.\n\n// Package http provides HTTP client and server implementations.\npackage http\n"
	if got := leadingDoc(pre); !strings.HasPrefix(strings.TrimSpace(got), "Package http provides") {
		t.Fatalf("leading doc: %q", got)
	}
	if got := leadingDoc("/*\n * SPDX-License-Identifier: MIT\n */\npackage x\n"); got != "" {
		t.Fatalf("a licence alone is no doc: %q", got)
	}
}

// TestDocAbstractSkipsTitles: a document's abstract is its first prose,
// not its title, an adornment, explicit markup or an attribute line.
func TestDocAbstractSkipsTitles(t *testing.T) {
	for p, content := range map[string]string{
		"docs/quickstart.rst": ".. currentmodule:: flask\n\nQuickstart\n==========\n\nEager to get started? This page helps.\n",
		"docs/over.rst":       "=====\n API\n=====\n\n.. module:: flask\n\nEager to get started? This page helps.\n",
		"docs/guide.adoc":     "= Guide\nJane Doe\n:toc:\n\nEager to get started? This page helps.\n",
		"docs/old.adoc":       "Guide\n=====\n\nEager to get started? This page helps.\n",
		"notes.org":           "#+TITLE: Notes\n\n* Notes\nEager to get started? This page helps.\n",
	} {
		if f := buildRecord(p, "", []byte(content)); f.Abstract != "Eager to get started?" {
			t.Errorf("%s: kind %s abstract %q", p, f.Kind, f.Abstract)
		}
	}
	f := buildRecord("docs/api.rst", "", []byte("API\n===\n\n.. data:: request\n\n   A proxy to the request.\n"))
	if f.Abstract != "A proxy to the request." {
		t.Errorf("directive doc abstract %q", f.Abstract)
	}
}

// TestCheckpointsFollowWork: checkpoints are spaced by the work done (files
// and the bytes of their records), never by time, so the same repository
// gets the same checkpoints on a slow or busy machine.
func TestCheckpointsFollowWork(t *testing.T) {
	r := testgit.New(t)
	for i := 0; i < 20; i++ {
		r.Write(string(rune('a'+i))+".txt", strings.Repeat("some words of text\n", 50+i))
	}
	r.Commit("files")
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opt  Options
		want bool
	}{
		{Options{Mode: ModeFull}, false},
		{Options{Mode: ModeFull, CheckpointEvery: 1 << 30, CheckpointBytes: 1}, true},
		{Options{Mode: ModeFull, CheckpointEvery: 5}, true},
	} {
		r.Git("update-ref", "-d", memory.Ref)
		res, err := Run(context.Background(), repo, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := res.Manifest.Timings["checkpoint"]; got != c.want {
			t.Errorf("every %d files, %d bytes: checkpoint %v, want %v", c.opt.CheckpointEvery, c.opt.CheckpointBytes, got, c.want)
		}
	}
}

// TestFreshOnlyForSmallRuns: a run that makes a few records hands them
// over for the index update (Result.Fresh, each the record stored under
// its blob); a run that makes more than freshMax hands over none, so a
// full extraction's build does not hold some of them besides.
func TestFreshOnlyForSmallRuns(t *testing.T) {
	r := testgit.New(t)
	for i := 0; i < freshMax+6; i++ {
		r.Write(fmt.Sprintf("pkg/f%03d.go", i), fmt.Sprintf("package pkg\n\n// F%d answers.\nfunc F%d() int { return %d }\n", i, i, i))
	}
	r.Commit("many")
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := Run(ctx, repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Fresh != nil {
		t.Fatalf("a run of %d records handed %d over", freshMax+6, len(res.Fresh))
	}
	r.Write("pkg/f001.go", "package pkg\n\n// F1 answers twice.\nfunc F1() int { return 2 }\n")
	r.Write("pkg/new.go", "package pkg\n\n// New is new.\nfunc New() {}\n")
	r.Commit("two")
	if res, err = Run(ctx, repo, Options{}); err != nil {
		t.Fatal(err)
	}
	if len(res.Fresh) != 2 {
		t.Fatalf("a run of two records handed %d over", len(res.Fresh))
	}
	for h, f := range res.Fresh {
		raw, err := repo.BlobBytes(h, memory.MaxCompressedSize)
		if err != nil {
			t.Fatal(err)
		}
		want, err := memory.DecodeSections(raw)
		if err != nil || !reflect.DeepEqual(f, want) {
			t.Fatalf("record %s handed over is not the one stored (%v)", h, err)
		}
	}
}
