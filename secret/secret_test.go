package secret

import (
	"bytes"
	"strings"
	"testing"
)

// TestRuleExamples runs every rule's own examples: each true example is
// found (and its value redacted), each false one is not.
func TestRuleExamples(t *testing.T) {
	for ri, r := range Rules() {
		for i, tmpl := range r.True {
			s := Expand(tmpl, uint64(ri*100+i))
			ms := Find([]byte(s))
			if len(ms) == 0 {
				t.Errorf("%s: missed %q", r.ID, s)
				continue
			}
			red := string(Redact([]byte(s), ms))
			if !strings.Contains(red, "«redacted:") {
				t.Errorf("%s: no marker in %q", r.ID, red)
			}
		}
		for i, tmpl := range r.False {
			s := Expand(tmpl, uint64(ri*100+i+50))
			if ms := Find([]byte(s)); len(ms) > 0 {
				t.Errorf("%s: false positive %q: %v (%q)", r.ID, s, ms, s[ms[0].Start:ms[0].End])
			}
		}
	}
}

// TestRulePatternsCompile compiles every rule's pattern, which the
// detector does only on a rule's first keyword hit: a pattern that does
// not compile fails here, not in the middle of someone's extraction.
func TestRulePatternsCompile(t *testing.T) {
	for _, r := range Rules() {
		if r.Pattern == "" {
			continue
		}
		func() {
			defer func() {
				if e := recover(); e != nil {
					t.Errorf("%s: pattern does not compile: %v", r.ID, e)
				}
			}()
			if r.regexp() == nil {
				t.Errorf("%s: no compiled pattern", r.ID)
			}
		}()
	}
}

func TestKindsCount(t *testing.T) {
	kinds := map[string]bool{}
	for _, s := range Samples() {
		for _, m := range Find([]byte(s.Text)) {
			kinds[m.Kind] = true
		}
	}
	if len(kinds) < 60 {
		t.Fatalf("only %d kinds found in the samples: %v", len(kinds), kinds)
	}
}

// TestNoHitLimit plants a real key after many decoy mentions of its
// keyword, and a real private key after many decoy headers.
func TestNoHitLimit(t *testing.T) {
	key := Expand("AKIA{U:16}", 7)
	decoy := strings.Repeat("AKIA is the prefix of AWS key ids. ", 5000)
	if !Contains([]byte(decoy + key)) {
		t.Fatal("key after 5000 decoys missed")
	}
	pem := Expand("-----BEGIN RSA PRIVATE KEY-----\n{b:64}\n-----END RSA PRIVATE KEY-----", 3)
	decoy = strings.Repeat("-----BEGIN RSA PRIVATE KEY-----\n", 3000)
	if !Contains([]byte(decoy + pem)) {
		t.Fatal("key block after 3000 headers missed")
	}
}

func TestEscapesAndGlue(t *testing.T) {
	for _, s := range []string{
		Expand(`{"msg":"see\nghp_{a:36}"}`, 1),
		Expand(`"line one\nxoxb-{d:12}-{d:12}-{a:24}"`, 2),
		Expand("keyAKIA{U:16}", 3),
		Expand(`"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEv{b:60}\n{b:64}\n-----END PRIVATE KEY-----\n"`, 4),
	} {
		if !Contains([]byte(s)) {
			t.Errorf("missed %q", s)
		}
	}
}

func TestRedactKeepsLines(t *testing.T) {
	src := []byte(Expand("a\n-----BEGIN RSA PRIVATE KEY-----\n{b:64}\n{b:64}\n-----END RSA PRIVATE KEY-----\nb\n", 5))
	ms := FindFile("key.go", src)
	if len(ms) != 1 || ms[0].Kind != "private-key" {
		t.Fatalf("matches %v", ms)
	}
	out := Redact(src, ms)
	if bytes.Count(out, []byte("\n")) != bytes.Count(src, []byte("\n")) {
		t.Fatalf("line count changed:\n%s", out)
	}
	if !bytes.Contains(out, []byte("«redacted:private-key»")) || bytes.Contains(out, []byte("BEGIN")) {
		t.Fatalf("not redacted:\n%s", out)
	}
}

func TestCodeContext(t *testing.T) {
	// In code, an unquoted word is an expression; in config, a value.
	if ms := FindFile("main.go", []byte("password = hunter2hunter\n")); len(ms) != 0 {
		t.Errorf("code: %v", ms)
	}
	if ms := FindFile("app.conf", []byte("password = hunter2hunter\n")); len(ms) != 1 {
		t.Errorf("config: %v", ms)
	}
	if ms := FindFile("main.go", []byte(`password := "hunter2hunter"`)); len(ms) != 1 {
		t.Errorf("code literal: %v", ms)
	}
	// Expressions whose words say what they hold: a variable named for
	// the key, a product, a composite literal.
	for _, src := range []string{
		"PrivateKey:  testRSA2048PrivateKey,\n",
		"config.Certificates[0].PrivateKey = testEd25519PrivateKey\n",
		"tokens = 2*maxCompilerConcurrency + minTokens*cfg.BuildP\n",
		"Secret: Bug4Secret{1},\n",
	} {
		if ms := FindFile("main.go", []byte(src)); len(ms) != 0 {
			t.Errorf("code expression %q: %v", src, ms)
		}
	}
	// A random token left unquoted in a comment is still a value, and a
	// literal with the label's word and digits is a (weak) password.
	for _, src := range []string{
		Expand("// token = {a:8}7Xq{a:12}\n", 6),
		`password := "Password2024"` + "\n",
	} {
		if ms := FindFile("main.go", []byte(src)); len(ms) != 1 {
			t.Errorf("code value %q: %v", src, ms)
		}
	}
}

// BenchmarkFind measures the detector on ordinary Go source.
func BenchmarkFind(b *testing.B) {
	data := bytes.Repeat([]byte("func (p *parser) next() token.Token {\n\tp.tok = p.scanner.Scan() // the next token\n\treturn p.tok\n}\n"), 20000)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		FindFile("x.go", data)
	}
}
