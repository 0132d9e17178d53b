package secret

import (
	"bytes"
	"encoding/base64"
)

// Rules a regexp does not express well: key blocks (with real or escaped
// newlines, split over string literals), PuTTY key files, credential URLs,
// JWTs (checked by decoding their header) and AWS secret keys, which have
// no prefix and are found next to a key id.

func init() {
	register(
		&Rule{
			ID:       "private-key",
			Keywords: []string{"-----BEGIN"},
			Scan:     scanKeyBlock,
			True: []string{
				"-----BEGIN RSA PRIVATE KEY-----\n{b:64}\n{b:64}\n-----END RSA PRIVATE KEY-----",
				"-----BEGIN OPENSSH PRIVATE KEY-----\n{b:70}\n-----END OPENSSH PRIVATE KEY-----",
				`{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\n{b:64}\n{b:64}\n-----END PRIVATE KEY-----\n"}`,
				"const key = \"-----BEGIN EC PRIVATE KEY-----\\n\" +\n\t\"{b:64}\\n\" +\n\t\"-----END EC PRIVATE KEY-----\\n\"",
				"-----BEGIN RSA PRIVATE KEY-----\r\nProc-Type: 4,ENCRYPTED\r\nDEK-Info: AES-128-CBC,ABC\r\n\r\n{b:64}\r\n-----END RSA PRIVATE KEY-----",
				"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{b:64}\n-----END PGP PRIVATE KEY BLOCK-----",
			},
			False: []string{
				`if block.Type == "RSA PRIVATE KEY" {`,
				"// -----BEGIN PRIVATE KEY----- marks a PKCS#8 key\nfunc parse() {}",
				"-----BEGIN CERTIFICATE-----\n{b:64}\n-----END CERTIFICATE-----",
				"-----BEGIN PUBLIC KEY-----\n{b:64}\n-----END PUBLIC KEY-----",
			},
		},
		&Rule{
			ID:       "putty-private-key",
			Keywords: []string{"PuTTY-User-Key-File-"},
			Scan:     scanPuTTY,
			True: []string{
				"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\nPublic-Lines: 2\n{b:64}\n{b:8}\nPrivate-Lines: 1\n{b:44}\nPrivate-MAC: {h:64}\n",
			},
			False: []string{"the PuTTY-User-Key-File- header starts a .ppk file"},
		},
		&Rule{
			ID:       "credential-url",
			Keywords: []string{"://"},
			Scan:     scanURL,
			True: []string{
				"postgres://app:{a:16}@db.internal:5432/app",
				`DATABASE_URL="mysql://root:Sup3rS3cret@localhost/db"`,
				"https://deploy:{a:20}@git.example.org/repo.git",
				"redis://:{a:24}@cache:6379/0",
				`"url": "amqp://guest:Gu3st-Pa55@rabbit\n"`,
				"https://user:xK{a:8}@proxy.corp.internal:4443",
			},
			False: []string{
				"https://github.com/konteks/git-konteks",
				"postgres://user:password@localhost/db",
				"postgres://${DB_USER}:${DB_PASS}@db/app",
				"http://user:<password>@host/",
				"ssh://git@github.com/x/y.git",
				"mysql://root:%s@%s/db",
				"https://user:xxxxx@proxy.corp.internal:4443", // the mask of a redacted URL
				"http://:*****@host.tld/",
			},
		},
		&Rule{
			ID:       "jwt",
			Keywords: []string{"eyJ"},
			Pattern:  `(ey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*)`,
			Max:      8192,
			Valid:    jwtValid,
			True: []string{
				"Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.{w:43}",
				`"id_token":"eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJpc3MiOiJodHRwczovL2FjY291bnRzLmdvb2dsZS5jb20iLCJzdWIiOiIxMTAxNjk0ODQ0NzQzODYyNzY3MzQifQ.{w:86}"`,
			},
			False: []string{
				"eyJub3QiOiJhIGp3dCJ9.eyJzdGlsbCI6Im5vdCJ9.abc", // decodes, but no alg/typ header
				"eyJfoo.eyJbar.baz",
			},
		},
		&Rule{
			ID:       "aws-access-token",
			Keywords: []string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"},
			Pattern:  `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}`,
			Max:      20,
			Glued:    true,
			Entropy:  3,
			Near:     awsSecretNear,
			True: []string{
				"aws_access_key_id = AKIA{U:16}",
				"keyAKIA{U:16}",
				`{"k":"x\nASIA{U:16}"}`,
				"AKIA{U:16},{b:40}",
			},
			False: []string{
				"aws key AKIAIOSFODNN7EXAMPLE from the documentation",
				"AKIAAAAAAAAAAAAAAAAA",
				"AKIA{U:17}",
			},
		},
		&Rule{
			ID:       "aws-secret-key",
			Keywords: []string{"aws"},
			Scan:     scanAWSSecretLabel,
			True: []string{
				"aws_secret_access_key = {b:40}",
				`AWS_SECRET_ACCESS_KEY: "{b:40}"`,
				`"SecretAccessKey": "{b:40}"`,
				"aws secret: {b:40}",
			},
			False: []string{
				"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
				"aws_region = us-east-1",
			},
		},
	)
}

// scanKeyBlock finds a private key block: a BEGIN line naming a private
// key, then key material (40 base64 characters in a row), up to its END
// line. Newlines may be real or escaped, lines may be split over string
// literals joined with +.
func scanKeyBlock(data []byte, at int, _ string, _ bool) (int, int, string, bool) {
	i := at + len("-----BEGIN")
	hdrEnd := -1
	for j := i; j < len(data) && j-i < 100; j++ {
		if hasAt(data, j, "-----") {
			hdrEnd = j
			break
		}
		c := data[j]
		if !(c == ' ' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return 0, 0, "", false
		}
	}
	if hdrEnd < 0 {
		return 0, 0, "", false
	}
	hdr := bytes.ToUpper(data[i:hdrEnd])
	if !bytes.Contains(hdr, []byte("PRIVATE KEY")) {
		return 0, 0, "", false
	}
	body := hdrEnd + 5
	// The block ends at its END line (or, without one, where key
	// material stops).
	limit := min(len(data), body+64<<10)
	end := -1
	if k := bytes.Index(data[body:limit], []byte("-----END")); k >= 0 {
		end = body + k
	}
	stop := limit
	if end >= 0 {
		stop = end
	}
	run, best, last := 0, 0, body
	for j := body; j < stop; j++ {
		c := data[j]
		switch {
		case 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=':
			run++
			best = max(best, run)
			last = j + 1
		case c == '\\' && j+1 < stop:
			j++ // an escape (\n) separates lines
			run = 0
		case c == '\n' || c == '\r' || c == ' ' || c == '\t' || c == '"' || c == '\'' || c == ',' || c == ':' || c == '-':
			run = 0
		default:
			if end < 0 {
				stop = j
			}
			run = 0
		}
	}
	if best < 40 {
		return 0, 0, "", false
	}
	if end < 0 {
		return at, last, "", true
	}
	// Through the END line's closing dashes.
	e := end + len("-----END")
	for e < len(data) && e-end < 100 && !hasAt(data, e, "-----") {
		e++
	}
	if hasAt(data, e, "-----") {
		e += 5
	}
	return at, e, "", true
}

// scanPuTTY finds a PuTTY key file through its Private-MAC line.
func scanPuTTY(data []byte, at int, _ string, _ bool) (int, int, string, bool) {
	limit := min(len(data), at+32<<10)
	k := bytes.Index(data[at:limit], []byte("Private-Lines:"))
	if k < 0 {
		return 0, 0, "", false
	}
	e := at + k
	if m := bytes.Index(data[e:limit], []byte("Private-MAC:")); m >= 0 {
		e += m
		for e < len(data) && data[e] != '\n' {
			e++
		}
		return at, e, "", true
	}
	for e < limit && !(data[e] == '\n' && e+1 < limit && data[e+1] == '\n') {
		e++
	}
	return at, e, "", true
}

// scanURL finds the password of a URL with user:password@host.
func scanURL(data []byte, at int, _ string, _ bool) (int, int, string, bool) {
	// A scheme before ://.
	s := at
	for s > 0 && at-s < 32 {
		c := data[s-1]
		if isAlnum(c) || c == '+' || c == '.' || c == '-' {
			s--
			continue
		}
		break
	}
	if at-s < 2 || !('a' <= lower(data[s]) && lower(data[s]) <= 'z') {
		return 0, 0, "", false
	}
	// The authority, up to the first /, ?, # or end of the token.
	a := at + 3
	e := a
	at2 := -1
	for e < len(data) && e-a < 512 {
		c := data[e]
		if c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '`' || c == '\\' || c == '<' || c == '>' {
			break
		}
		if c == '@' {
			at2 = e
		}
		e++
	}
	if at2 < 0 {
		return 0, 0, "", false
	}
	colon := bytes.IndexByte(data[a:at2], ':')
	if colon < 0 {
		return 0, 0, "", false
	}
	ps, pe := a+colon+1, at2
	pw := data[ps:pe]
	if len(pw) < 3 || pe+1 >= e {
		return 0, 0, "", false
	}
	lp := string(bytes.ToLower(pw))
	if notValues[lp] || placeholder(pw) || pw[0] == '$' || pw[0] == '%' || pw[0] == '{' || pw[0] == '*' ||
		bytes.ContainsAny(pw, "{}$%*") && len(pw) < 8 || bytes.Contains(pw, []byte("${")) || bytes.Contains(pw, []byte("%s")) {
		return 0, 0, "", false
	}
	switch lp {
	case "pass", "pw", "pwd", "passw0rd", "secret", "x", "xxx", "foo", "bar", "baz", "mypass", "pass123", "passwd":
		return 0, 0, "", false
	}
	return ps, pe, "", true
}

// jwtValid checks that a token's first two parts decode to JSON objects
// and the first is a JOSE header.
func jwtValid(tok []byte) bool {
	parts := bytes.SplitN(tok, []byte("."), 3)
	if len(parts) < 3 {
		return false
	}
	dec := func(p []byte) []byte {
		out, err := base64.RawURLEncoding.DecodeString(string(bytes.TrimRight(p, "=")))
		if err != nil {
			return nil
		}
		return out
	}
	h, c := dec(parts[0]), dec(parts[1])
	if len(h) == 0 || h[0] != '{' || len(c) == 0 || c[0] != '{' {
		return false
	}
	return bytes.Contains(h, []byte(`"alg"`)) || bytes.Contains(h, []byte(`"typ"`))
}

// awsSecretNear finds a bare 40-character AWS secret key within a line or
// two of an AWS key id (credential CSVs, config lines).
func awsSecretNear(data []byte, m Match) []Match {
	lo, hi := max(m.Start-200, 0), min(m.End+200, len(data))
	var out []Match
	for i := lo; i < hi; {
		if !isB64(data[i]) {
			i++
			continue
		}
		j := i
		for j < len(data) && isB64(data[j]) {
			j++
		}
		if j-i == 40 && (i == 0 || !isB64(data[i-1]) || escapedAt(data, i)) && awsSecretLike(data[i:j]) {
			out = append(out, Match{Kind: "aws-secret-key", Start: i, End: j})
		}
		i = j
	}
	return out
}

func isB64(c byte) bool { return isAlnum(c) || c == '+' || c == '/' }

func awsSecretLike(v []byte) bool {
	lower, upper, digit, _ := charClasses(v)
	return lower && upper && digit && entropy(v) >= 4.0 && !placeholder(v)
}

// scanAWSSecretLabel finds a 40-character secret key after a label that
// names AWS and a secret (aws_secret_access_key, AWS_SECRET, SecretAccessKey
// in an AWS context).
func scanAWSSecretLabel(data []byte, at int, _ string, _ bool) (int, int, string, bool) {
	hi := min(len(data), at+80)
	win := bytes.ToLower(data[at:hi])
	if !bytes.Contains(win, []byte("secret")) {
		return 0, 0, "", false
	}
	for i := at; i < hi; i++ {
		if isB64(data[i]) && (i == 0 || !isB64(data[i-1]) || escapedAt(data, i)) {
			j := i
			for j < len(data) && isB64(data[j]) {
				j++
			}
			if j-i == 40 && awsSecretLike(data[i:j]) {
				return i, j, "", true
			}
			i = j
		}
	}
	return 0, 0, "", false
}
