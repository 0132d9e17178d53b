package extract

import (
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/secret"
)

func gateOver(t *testing.T, files map[string]string) *Gate {
	t.Helper()
	r := testgit.New(t)
	r.WriteFiles(files)
	r.Git("add", "-A")
	r.Commit("tree")
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGate(repo, head.TreeHash, 0)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestThirdPartyRules: dependency trees and licensed third_party/ code are
// vendored; first-party directories linguist's list dropped are kept.
func TestThirdPartyRules(t *testing.T) {
	files := map[string]string{
		"third_party/zlib/LICENSE":       "zlib licence\n",
		"third_party/zlib/inflate.c":     "int inflate(void);\n",
		"third_party/ours/helper.go":     "package ours\n",
		"web/node_modules/x/index.js":    "module.exports = 1\n",
		"vendor/github.com/a/b/b.go":     "package b\n",
		"internal/cache/lru.go":          "package cache\n",
		"env/setup.sh":                   "echo hi\n",
		"extern/glue.c":                  "int glue;\n",
		"types/index.d.ts":               "export {}\n",
		".github/workflows/ci.yml":       "on: push\n",
		"Jenkinsfile":                    "pipeline {}\n",
		"tests/fixtures/app/config.yml":  "a: 1\n",
		"web/app.min.css":                "a{}\n",
		"secrets/.env-production":        "A=1\n",
		".envrc":                         "export A=1\n",
		"app.env":                        "A=1\n",
		".env.example":                   "A=\n",
		"deploy/kubeconfig":              "kind: Config\n",
		"home/.kube/config":              "kind: Config\n",
		"infra/terraform.tfstate":        "{}\n",
		"docker-compose.yml":             "services: {}\n",
		"config/secrets.yaml":            "a: 1\n",
		"third_party/LICENSE-notes.txt":  "x\n",
		"3rdparty/nolicence/thing/a.txt": "x\n",
	}
	g := gateOver(t, files)
	want := map[string]string{
		"third_party/zlib/inflate.c":     SkipVendored,
		"third_party/ours/helper.go":     SkipVendored, // third_party/ itself has a licence file
		"web/node_modules/x/index.js":    SkipVendored,
		"vendor/github.com/a/b/b.go":     SkipVendored,
		"internal/cache/lru.go":          "",
		"env/setup.sh":                   "",
		"extern/glue.c":                  "",
		"types/index.d.ts":               "",
		".github/workflows/ci.yml":       "",
		"Jenkinsfile":                    "",
		"tests/fixtures/app/config.yml":  "",
		"web/app.min.css":                SkipMinified,
		"secrets/.env-production":        SkipSecret,
		".envrc":                         SkipSecret,
		"app.env":                        SkipSecret,
		".env.example":                   "",
		"deploy/kubeconfig":              SkipSecret,
		"home/.kube/config":              SkipSecret,
		"infra/terraform.tfstate":        SkipSecret,
		"docker-compose.yml":             "",
		"config/secrets.yaml":            "",
		"3rdparty/nolicence/thing/a.txt": "",
	}
	for p, w := range want {
		if got := g.Path(p, gitstore.KindFile); got != w {
			t.Errorf("%s: %q, want %q", p, got, w)
		}
	}
	for _, p := range []string{"a\tb.go", "new\nline.md", "bell\a.txt"} {
		if got := g.Path(p, gitstore.KindFile); got != SkipUnsafe {
			t.Errorf("%q: %q, want %q", p, got, SkipUnsafe)
		}
	}
}

// TestRedactOrSkip: a credential in ordinary config is redacted; a file
// that is mostly a key, or a kubeconfig, is skipped.
func TestRedactOrSkip(t *testing.T) {
	g := gateOver(t, map[string]string{"x": "x\n"})
	key := secret.Expand("-----BEGIN RSA PRIVATE KEY-----\n{b:64}\n{b:64}\n-----END RSA PRIVATE KEY-----\n", 1)
	conf := "db:\n  host: db.internal\n  port: 5432\n  user: app\n  password: Pl4in-Secret-9\n  pool: 10\n"
	out, kinds, skip := g.Redact("config/db.yaml", []byte(conf))
	if skip != "" || len(kinds) != 1 || kinds[0] != "password" || !strings.Contains(string(out), "password: «redacted:password»\n  pool: 10") {
		t.Fatalf("config: %q %v %q", out, kinds, skip)
	}
	if _, _, skip := g.Redact("server_key", []byte(key)); skip != SkipSecretTxt {
		t.Fatalf("key file: %q", skip)
	}
	kube := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\nusers:\n- name: admin\n  user:\n    token: kub3-t0ken-9f8e7d6c5b4a\n" + strings.Repeat("# comment line\n", 20)
	if _, _, skip := g.Redact("deploy/cluster.yaml", []byte(kube)); skip != SkipSecretTxt {
		t.Fatalf("kubeconfig: %q", skip)
	}
	code := "package tls\n\n// testKey is a throwaway key for tests.\nconst testKey = `" + key + "`\n\nfunc load() {}\n" + strings.Repeat("// more code\n", 20)
	out, kinds, skip = g.Redact("crypto/tls/key_test.go", []byte(code))
	if skip != "" || len(kinds) != 1 || strings.Contains(string(out), "BEGIN") || strings.Count(string(out), "\n") != strings.Count(code, "\n") {
		t.Fatalf("code: %q %v %q", out, kinds, skip)
	}
}

func TestRedactRecordText(t *testing.T) {
	tok := secret.Expand("ghp_{a:36}", 2)
	f := &memory.File{Abstract: "screenshot", Sections: []memory.Section{{Content: "the screen shows " + tok, Summary: "a token " + tok}}}
	if n := redactRecordText(f); n != 2 || strings.Contains(f.Sections[0].Content+f.Sections[0].Summary, tok) {
		t.Fatalf("%d %+v", n, f.Sections[0])
	}
}
