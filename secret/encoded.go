package secret

import (
	"bytes"
	"encoding/base64"
)

// Credentials in a disguise the keyword pass does not see: a token split
// across adjacent string literals ("ghp_abc" + "def…", "ghp_abc" "def…")
// and a token or labelled value inside a base64 run. Each is undone and
// the result scanned again (once: no disguise inside a disguise); a hit
// redacts the whole run. Neither has a gitleaks rule: gitleaks scans
// text as written (its decoder covers base64 from v8.21 with the id of
// the rule found inside; here the kind names the disguise, so a redaction
// marker says why a run that looks harmless was removed).

func init() {
	register(&Rule{
		ID: "joined-literals",
		True: []string{
			`token := "ghp_{a:18}" + "{a:18}"`,
			`key = ("sk_live_{a:12}"` + "\n" + `       "{a:12}")`,
			`const k = "AKIA{U:8}" + "{U:8}";`,
			`$pw = 'password=Zq8' . 'vR2mN4pLr7Tf';`,
		},
		False: []string{
			`msg := "hello " + "world, how are you"`,
			`path = "src/" "main.go"`,
			`fmt.Println("token" + ": " + tok)`,
			`query := "SELECT id " + "FROM users " + "WHERE name = ?"`,
		},
	}, &Rule{
		ID: "base64-encoded",
		True: []string{
			b64("github_token: ghp_{a:36}"),
			"data:\n  password: " + b64("postgres://app:Zx8vQ2mN4pLr7TfW@db.internal:5432/app"),
			"echo " + b64("AKIA{U:16}") + " | base64 -d",
		},
		False: []string{
			"data:\n  config: " + b64("listen: 0.0.0.0:8080\nworkers: 4\n"),
			"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
			"sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
		},
	})
}

// b64 encodes an example template's text; {x:n} fragments stay
// templates, so they are expanded first by Expand's caller: here the
// template is expanded with a fixed seed before encoding.
func b64(tmpl string) string {
	return base64.StdEncoding.EncodeToString([]byte(Expand(tmpl, 41)))
}

// disguised finds credentials in joined literals and base64 runs of data.
func disguised(data []byte) []Match {
	var ms []Match
	joined(data, func(s, e int, text []byte) {
		if len(find1(text)) > 0 {
			ms = append(ms, Match{Kind: "joined-literals", Start: s, End: e})
		}
	})
	base64Runs(data, func(s, e int, dec []byte) {
		if len(find1(dec)) > 0 {
			ms = append(ms, Match{Kind: "base64-encoded", Start: s, End: e})
		}
	})
	return ms
}

// find1 is the keyword pass alone, on undone text.
func find1(data []byte) []Match { return findKeywords(data, false) }

// literal returns the end (past the closing quote) of the string literal
// opening at i, or -1: one line, at most 512 bytes, backslash escapes.
func literal(data []byte, i int) int {
	q := data[i]
	for j := i + 1; j < len(data) && j-i < 512; j++ {
		switch data[j] {
		case '\\':
			j++
		case '\n':
			return -1
		case q:
			return j + 1
		}
	}
	return -1
}

// joined calls f for each run of two or more string literals joined by
// blanks, newlines or a concatenation operator (+ . .. ~ &), with the
// run's span (inside its outer quotes) and the literals' text joined.
func joined(data []byte, f func(s, e int, text []byte)) {
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c != '"' && c != '\'' {
			continue
		}
		if i > 0 && isWord(data[i-1]) {
			continue // an apostrophe in a word, a prefix such as b"..."
		}
		end := literal(data, i)
		if end < 0 {
			continue
		}
		start := i
		var text []byte
		text = append(text, data[i+1:end-1]...)
		n := 1
		for {
			j := end
			ops := 0
			for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\r' || data[j] == '\n' || data[j] == '+' || data[j] == '.' || data[j] == '~' || data[j] == '&') {
				if data[j] != ' ' && data[j] != '\t' && data[j] != '\r' && data[j] != '\n' {
					ops++
				}
				j++
			}
			if j >= len(data) || data[j] != '"' && data[j] != '\'' || ops > 2 || j-end > 64 {
				break
			}
			e := literal(data, j)
			if e < 0 {
				break
			}
			text = append(text, data[j+1:e-1]...)
			end = e
			n++
		}
		if n >= 2 && len(text) >= 16 {
			f(start+1, end-1, text)
		}
		i = end - 1
	}
}

func isB64Run(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// base64Runs calls f for each run of at least 24 base64 characters
// that decodes (standard or URL alphabet, padded or not) to text.
func base64Runs(data []byte, f func(s, e int, dec []byte)) {
	for i := 0; i < len(data); {
		if !isB64Run(data[i]) {
			i++
			continue
		}
		s := i
		for i < len(data) && isB64Run(data[i]) {
			i++
		}
		e := i
		for i < len(data) && data[i] == '=' && i-e < 2 {
			i++
		}
		if e-s < 24 || e-s > 1<<20 {
			continue
		}
		run := bytes.TrimRight(data[s:i], "=")
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			dec, err := enc.DecodeString(string(run))
			if err == nil && textual(dec) {
				f(s, i, dec)
				break
			}
		}
	}
}

// textual reports decoded bytes that read as text: printable ASCII,
// tabs and newlines, nothing else.
func textual(b []byte) bool {
	if len(b) < 16 {
		return false
	}
	for _, c := range b {
		if c < ' ' && c != '\n' && c != '\t' && c != '\r' || c > '~' {
			return false
		}
	}
	return true
}

// Signing keys of minisign and OpenBSD's signify: a base64 line whose
// first bytes name the algorithms ("Ed" "Sc" "B2" encrypted or "Ed"
// "\0\0" "B2" unencrypted for minisign, "Ed" "BK" for signify). gitleaks
// has no rule for either; the ids follow its naming.
func init() {
	register(
		tok("minisign-secret-key", kw("RWRTY0Iy", "RWQAAEIy"), `RW(?:RTY0Iy|QAAEIy)[A-Za-z0-9+/]{150,300}={0,2}`, 320, 3,
			ex("untrusted comment: minisign encrypted secret key\nRWRTY0Iy{b:204}", "RWQAAEIy{b:204}"),
			ex("untrusted comment: minisign public key 5A1F\nRWQ{b:53}", "RWRTY0Iy")),
		tok("signify-secret-key", kw("RWRCSw"), `RWRCSw[A-Za-z0-9+/]{120,200}={0,2}`, 220, 3,
			ex("untrusted comment: signify secret key\nRWRCSwAAAA{b:126}=="),
			ex("untrusted comment: signify public key\nRWQ{b:53}")),
	)
}
