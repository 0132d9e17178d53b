package graph

import (
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
)

func rec(lang, pre string) *memory.File {
	return &memory.File{Kind: "code", Language: lang, Sections: []memory.Section{{Symbol: "preamble", Content: pre}, {Symbol: "function", Name: "f"}}}
}

func TestImportsAndResolution(t *testing.T) {
	r := testgit.New(t)
	r.WriteFiles(map[string]string{
		"go.mod":                                   "module example.com/m\n\ngo 1.22\n",
		"internal/store/store.go":                  "package store\n",
		"src/main/java/com/acme/App.java":          "package com.acme;\n",
		"src/main/java/com/acme/util/Strings.java": "package com.acme.util;\n",
		"crate/src/lib.rs":                         "mod net;\n",
		"crate/src/net.rs":                         "pub fn f() {}\n",
		"crate/src/net/http.rs":                    "pub fn g() {}\n",
		"c/include/x.h":                            "int x;\n",
		"c/src/main.c":                             "#include \"../include/x.h\"\n",
		"py/pkg/__init__.py":                       "",
		"py/pkg/mod.py":                            "",
	})
	r.Commit("tree")
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := repo.Resolve("HEAD")
	res := NewResolver(repo, head.TreeHash)
	cases := []struct {
		path, lang, pre string
		want            map[string]string // import -> entity
	}{
		{"cmd/x/main.go", "Go", "package main\n\nimport (\n\t\"fmt\"\n\tst \"example.com/m/internal/store\"\n)\n",
			map[string]string{"fmt": "ext:fmt", "example.com/m/internal/store": "dir:internal/store"}},
		{"src/main/java/com/acme/App.java", "Java", "package com.acme;\n\nimport com.acme.util.Strings;\nimport java.util.List;\n",
			map[string]string{"com.acme.util.Strings": "file:src/main/java/com/acme/util/Strings.java", "java.util.List": "ext:java.util.List"}},
		{"crate/src/net.rs", "Rust", "use crate::net::http;\nmod http;\n",
			map[string]string{"crate::net::http": "file:crate/src/net/http.rs", "mod:http": "file:crate/src/net/http.rs"}},
		{"c/src/main.c", "C", "#include \"../include/x.h\"\n#include <stdio.h>\n",
			map[string]string{"../include/x.h": "file:c/include/x.h"}},
		{"py/pkg/a.py", "Python", "from . import mod\nfrom .mod import thing\nimport requests\n",
			map[string]string{".": "file:py/pkg/__init__.py", ".mod": "file:py/pkg/mod.py", "requests": "ext:requests"}},
	}
	for _, c := range cases {
		f := rec(c.lang, c.pre)
		got := map[string]string{}
		for _, imp := range Imports(f) {
			got[imp] = res.Resolve(c.path, f, imp)
		}
		for imp, want := range c.want {
			if got[imp] != want {
				t.Errorf("%s: import %q resolved to %q, want %q (all: %v)", c.path, imp, got[imp], want, got)
			}
		}
	}
	// Bare JS specifiers are external packages; scoped ones keep the scope.
	js := rec("JavaScript", "import a from '@scope/pkg/deep'\nconst b = require('lodash/fp')\nexport { c } from './missing'\n")
	for _, imp := range Imports(js) {
		to := res.Resolve("web/x.js", js, imp)
		switch imp {
		case "@scope/pkg/deep":
			if to != "ext:@scope/pkg" {
				t.Errorf("%s -> %s", imp, to)
			}
		case "lodash/fp":
			if to != "ext:lodash" {
				t.Errorf("%s -> %s", imp, to)
			}
		case "./missing":
			if to != "" {
				t.Errorf("unresolvable relative import resolved to %s", to)
			}
		}
	}
}
