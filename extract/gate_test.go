package extract

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/secret"
)

func gateOver(t *testing.T, files map[string]string) *Gate {
	t.Helper()
	r := testgit.New(t)
	r.WriteFiles(files)
	r.Git("add", "-A", "-f")
	r.Commit("tree")
	_, _, g := openGate(t, r.Dir)
	return g
}

// openGate opens the repository at dir and the gate over its HEAD's tree.
func openGate(t *testing.T, dir string) (*gitstore.Repo, gitstore.Hash, *Gate) {
	t.Helper()
	repo, err := gitstore.Open(dir)
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
	return repo, head.TreeHash, g
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

// TestMalformedRuleFiles: lines git would refuse or that the
// matchers mishandle (a directory pattern in .gitattributes once made
// every extraction panic) are skipped; the good lines around them still
// apply.
func TestMalformedRuleFiles(t *testing.T) {
	g := gateOver(t, map[string]string{
		".gitattributes": "/x/ export-ignore\n\"\"\n\"\" linguist-vendored\n*.txt !\n!neg linguist-vendored\n" +
			"\"unterminated linguist-generated\n[attr]mine -diff\n//\n/ linguist-vendored\ngen/** linguist-generated\n",
		"sub/.gitattributes": "[attr]macro -diff\ndeep/ linguist-vendored\n\"\"\nkept.go linguist-generated\n",
		".gitignore":         "!\n/\n\\\n[\n!/\na/**/**\n\\ \nskipme.txt\n",
		"x/y/z.txt":          "hello\n",
		"x/a.txt":            "hello\n",
		"gen/out.go":         "package gen\n",
		"sub/deep/file.go":   "package deep\n",
		"sub/kept.go":        "package sub\n",
		"a/b/c.go":           "package b\n",
		"skipme.txt":         "x\n",
		"plain.go":           "package main\n",
	})
	want := map[string]string{
		"x/y/z.txt":        "",
		"x/a.txt":          "",
		"gen/out.go":       SkipGenerated,
		"sub/deep/file.go": "",
		"sub/kept.go":      SkipGenerated,
		"skipme.txt":       SkipIgnored,
		"plain.go":         "",
	}
	for p, w := range want {
		if got := g.Path(p, gitstore.KindFile); got != w {
			t.Errorf("%s: skip %q, want %q", p, got, w)
		}
		if got := g.Content(p, []byte("package x\n")); got != "" {
			t.Errorf("%s: content skip %q", p, got)
		}
	}
}

// FuzzRuleFiles: no .gitignore or .gitattributes content, and no path,
// makes the gate's matchers panic.
func FuzzRuleFiles(f *testing.F) {
	f.Add("/x/ export-ignore\n\"\"\n[attr]m -diff\n", "!\n/\n[\n", "x/y/z.txt")
	f.Add("gen/** linguist-generated\n", "a/**/**\n**/\n", "gen/a.go")
	f.Fuzz(func(t *testing.T, attrs, ignore, p string) {
		parts := strings.Split(p, "/")
		for _, domain := range [][]string{nil, parts[:len(parts)-1]} {
			d := &dirRules{
				ignore: gitstore.ParseIgnore([]byte(ignore), domain),
				attrs:  gitstore.ParseAttributes([]byte(attrs), domain, domain == nil),
			}
			d.im = gitstore.NewIgnoreMatcher(d.ignore)
			d.am = gitstore.NewAttributeMatcher(d.attrs)
			attrFlags(d, parts)
			d.im.Match(parts, false)
			d.im.Match(parts, true)
		}
	})
}

// testCert is a PEM certificate from a fixed key: public material a
// project commits, which the gate reads rather than skips by name.
func testCert(t *testing.T) (cert, key string) {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test.example"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<32, 0)}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, priv.Public(), priv)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}))
}

// TestReadByValue: public certificates, Terraform state under a test
// fixture directory and LFS pointers of binary types reach the content
// rules, which keep the certificate, remove a credential value, skip a
// private key and name an LFS pointer as one.
func TestReadByValue(t *testing.T) {
	cert, key := testCert(t)
	state := `{"resources": [{"attributes": {"password": "Zx8vQ2mN4pLr7TfW"}}]}` + "\n"
	pointer := "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
	files := map[string]string{
		".gitattributes":                   "*.png filter=lfs diff=lfs merge=lfs -text\n",
		"certs/server.crt":                 cert,
		"certs/ca.pem":                     cert,
		"certs/server.pem":                 key,
		"test/fixtures/basic.tfstate":      state,
		"infra/terraform.tfstate":          state,
		"assets/logo.png":                  pointer,
		"assets/raw.zip":                   pointer,
		"modules/x/testdata/other.tfstate": state,
	}
	g := gateOver(t, files)
	for p, w := range map[string]string{
		"certs/server.crt": "", "certs/ca.pem": "", "certs/server.pem": "",
		"test/fixtures/basic.tfstate": "", "modules/x/testdata/other.tfstate": "",
		"infra/terraform.tfstate": SkipSecret, "assets/logo.png": "", "assets/raw.zip": SkipBinary,
	} {
		if got := g.Path(p, gitstore.KindFile); got != w {
			t.Errorf("%s: path skip %q, want %q", p, got, w)
		}
	}
	if got := g.Content("assets/logo.png", []byte(pointer)); got != SkipLFS {
		t.Errorf("LFS pointer: content skip %q, want %q", got, SkipLFS)
	}
	for _, p := range []string{"certs/server.crt", "certs/ca.pem"} {
		if out, kinds, skip := g.Redact(p, []byte(files[p])); skip != "" || len(kinds) != 0 || string(out) != files[p] {
			t.Errorf("%s: certificate changed: skip %q kinds %v", p, skip, kinds)
		}
	}
	if _, _, skip := g.Redact("certs/server.pem", []byte(key)); skip != SkipSecretTxt {
		t.Errorf("private key: skip %q, want %q", skip, SkipSecretTxt)
	}
	out, kinds, skip := g.Redact("test/fixtures/basic.tfstate", []byte(state))
	if skip != "" || len(kinds) == 0 || strings.Contains(string(out), "Zx8vQ2mN4pLr7TfW") {
		t.Errorf("tfstate fixture: skip %q kinds %v out %s", skip, kinds, out)
	}
}
