package secret

import (
	"bytes"
	"strings"
)

// Labelled secrets: a value assigned to a name that says it is one
// (password=, DB_PASSWORD: "…", "client_secret": "…", token := "…",
// <password>…</password>, client-key-data: …). The label is the whole
// identifier around the keyword; it must end with the keyword or with a
// suffix that keeps it a credential (secret_key_base, api_key_value), so
// token_type, tokenizer and secretName are not labels.

// labelKinds maps each label keyword to the kind of its values.
var labelKinds = map[string]string{
	"password": "password", "passwd": "password", "passphrase": "password", "pwd": "password",
	"secret": "secret", "token": "token",
	"apikey": "api-key", "api_key": "api-key", "api-key": "api-key",
	"accesskey": "access-key", "access_key": "access-key", "access-key": "access-key",
	"accountkey": "azure-storage-key", "sharedaccesskey": "azure-storage-key",
	"privatekey": "private-key-data", "private_key": "private-key-data", "key-data": "private-key-data",
	"secretaccesskey": "aws-secret-key", "secret_access_key": "aws-secret-key", "credentials": "secret", "credential": "secret", "auth": "secret",
}

// labelSuffixes may follow the keyword inside a label.
var labelSuffixes = []string{"key", "value", "data", "base", "b64", "base64", "hash", "str", "text", "s"}

func init() {
	var kws []string
	for k := range labelKinds {
		kws = append(kws, k)
	}
	register(&Rule{
		ID:       "labelled-secret",
		Keywords: kws,
		Scan:     scanLabel,
		True: []string{
			`DB_PASSWORD=hunter2hunter`,
			`password: "c0rrect-h0rse"`,
			`"client_secret": "{a:24}"`,
			`secret_key_base: {h:64}`,
			`SECRET_KEY = 'django-insecure-{a:40}'`,
			`password := "Sup3rS3cret!"`,
			`<password>Tr0ub4dor&3</password>`,
			`    token: {a:40}`,
			`client-key-data: LS0tLS1CRUdJTi{b:60}`,
			`AccountName=x;AccountKey={b:86}==;EndpointSuffix=core.windows.net`,
			`"config": "password=\"hunter2hunter\""`,
			`export API_KEY={a:32}`,
			`POSTGRES_PASSWORD: postgres`,
			`"PGPASSWORD": "postgres"`,
			`Set staging db password to Lk{a:10}7 for now`,
			`the prod postgres password is {L:4}9{a:8}! until Friday`,
			`The API token is now Qz{a:20}3.`,
			`secret: "SuperSecret123"`,
			`pwd = "Tr0ub4dor&3"`,
			`Credential={a:32}`,
			`staging password: Lk{a:8}7Q until the rotation`,
		},
		False: []string{
			`password = os.Getenv("DB_PASSWORD")`,
			`token := p.next()`,
			`token_type: bearer`,
			`secretName: my-app-secret`,
			`tokenizer = load()`,
			`password: ${DB_PASSWORD}`,
			`password: <your password>`,
			`password: "changeme"`,
			`token: "unexpected token"`,
			`password: true`,
			`max_tokens: 4096`,
			`secret: "secret"`,
			`password: "********"`,
			`Password string ` + "`json:\"password\"`",
			`credentials: "same-origin"`,
			`SECRET_KEY_BASE = "action_dispatch.secret_key_base"`,
			`token: 'my-secret-token'`,
			`password: params[:password]`,
			`bin/rails generate model user password:digest`,
			`get "admin/passwords" => "queenbee#passwords"`,
			`password:  "--password",`,
			`# Replace with Credentials: https://console.example.com/project/credentials`,
			`ServiceAccountKey: "mysecret_sa_key",`,
			`the password is required for every login`,
			`Set the token to expire after 24h.`,
			`the password is bcrypt-hashed before it is stored`,
			`the token is sha256-based and rotates daily`,
			`Reset the password to the default from the wiki.`,
			`the secret is stored in Vault under kv2/app`,
			`nextSequenceToken = "nextSequenceToken"`,
			`xhr.withCredentials=withCredentials;xhr.send(data);`,
			`secret_key_base = Rails.application.secret_key_base`,
			`const fakeConnectionToken = "X-Fake-Connection-Token"`,
			`RUN sh -c "[ "$PWD" = "C:/foo/bar" ]"`,
			`ActiveModel::SecurePassword: configurable reset token expiry`,
			`Authorization: AWS4-HMAC-SHA256 Credential=test-access-key-id/20220915/us-west-2/logs/aws4_request, SignedHeaders=host`,
		},
	})
}

// scanLabel judges the keyword hit at at as a label.
func scanLabel(data []byte, at int, kw string, code bool) (int, int, string, bool) {
	kind := labelKinds[kw]
	// The identifier around it.
	end := at + len(kw)
	for end < len(data) && end-at < 64 && isLabelByte(data[end]) {
		end++
	}
	if !labelSuffix(data[at+len(kw) : end]) {
		return 0, 0, "", false
	}
	start := at
	for start > 0 && at-start < 64 && isLabelByte(data[start-1]) {
		start--
	}
	if kw == "pwd" && string(data[start:end]) == "PWD" {
		return 0, 0, "", false // the shell's working directory ($PWD), not a password
	}
	if kw == "pwd" || kw == "auth" {
		// Short keywords count only as the whole label or its last part
		// (DB_PWD, http_auth), never inside a word (cwd, author).
		if at > start && isAlnum(data[at-1]) || end > at+len(kw) {
			return 0, 0, "", false
		}
	}
	i := end
	colon := false // the operator is key: (YAML, JSON, a heading in prose)
	// XML element: <password>value</password>
	if start > 0 && data[start-1] == '<' && i < len(data) && data[i] == '>' {
		vs := i + 1
		ve := vs
		for ve < len(data) && ve-vs < 256 && data[ve] != '<' && data[ve] != '\n' {
			ve++
		}
		return judgeLabelled(data, data[start:end], kw, vs, ve, kind, true, code)
	}
	// Closing quote of a quoted label ("password": …, 'token' => …, \"token\": …).
	if i < len(data) && data[i] == '\\' && i+1 < len(data) && (data[i+1] == '"' || data[i+1] == '\'') {
		i += 2
	} else if i < len(data) && (data[i] == '"' || data[i] == '\'' || data[i] == '`') {
		i++
	}
	i = skipBlanks(data, i)
	// The operator.
	switch {
	case hasAt(data, i, ":="), hasAt(data, i, "=>"), hasAt(data, i, "?="), hasAt(data, i, "||="), hasAt(data, i, "::="):
		for i < len(data) && (data[i] == ':' || data[i] == '=' || data[i] == '>' || data[i] == '?' || data[i] == '|') {
			i++
		}
	case hasAt(data, i, "=="), hasAt(data, i, "!="):
		return 0, 0, "", false
	case !code && i > end && proseLink(data, i) > 0:
		// Prose: "the prod password is X", "set the db password to X".
		return scanProse(data, i+proseLink(data, i), kind)
	case i < len(data) && data[i] == '=':
		i++
	case i < len(data) && data[i] == ':':
		// key: value needs the blank (YAML, JSON, prose); key:value is a
		// word of its own (password:digest, a URL, a namespace).
		if i+1 < len(data) && data[i+1] != ' ' && data[i+1] != '\t' && data[i+1] != '"' && data[i+1] != '\'' {
			return 0, 0, "", false
		}
		i++
		colon = true
	default:
		return 0, 0, "", false
	}
	i = skipBlanks(data, i)
	if i >= len(data) {
		return 0, 0, "", false
	}
	// Quoted value, also inside an escaped string: \"value\".
	q := byte(0)
	if data[i] == '\\' && i+1 < len(data) && (data[i+1] == '"' || data[i+1] == '\'') {
		q = data[i+1]
		i += 2
		vs := i
		for i < len(data) && i-vs < 512 && data[i] != '\n' {
			if data[i] == '\\' && i+1 < len(data) && data[i+1] == q {
				return judgeLabelled(data, data[start:end], kw, vs, i, kind, true, code)
			}
			i++
		}
		return 0, 0, "", false
	}
	if data[i] == '"' || data[i] == '\'' || data[i] == '`' {
		q = data[i]
		i++
		vs := i
		for i < len(data) && i-vs < 512 && data[i] != '\n' {
			if data[i] == '\\' {
				if i+1 < len(data) && data[i+1] != q {
					// an escape ends what could be a value (\n in a literal)
					break
				}
				i += 2
				continue
			}
			if data[i] == q {
				return judgeLabelled(data, data[start:end], kw, vs, i, kind, true, code)
			}
			i++
		}
		return 0, 0, "", false
	}
	vs := i
	for i < len(data) && i-vs < 512 && !endsUnquoted(data[i]) {
		i++
	}
	if colon && !code {
		// "SecurePassword: configurable reset token expiry": a word
		// that a phrase continues after is prose, whose values look
		// made (scanProse); a setting's value ends its line.
		if j := skipBlanks(data, i); j > i && j < len(data) && isAlnum(data[j]) && !madeValue(data[vs:i]) {
			return 0, 0, "", false
		}
	}
	return judgeLabelled(data, data[start:end], kw, vs, i, kind, false, code)
}

// judgeLabelled judges the value data[vs:ve] of the label lab (keyword
// kw): judgeValue's rules, and then the value must not name the thing the
// label holds rather than be it.
func judgeLabelled(data, lab []byte, kw string, vs, ve int, kind string, quoted, code bool) (int, int, string, bool) {
	s, e, k, ok := judgeValue(data, vs, ve, kind, quoted, code)
	if ok && namesLabel(lab, kw, data[vs:ve], quoted, code) {
		return 0, 0, "", false
	}
	return s, e, k, ok
}

// namesLabel reports a value that names what its label holds instead of
// being it:
//   - the label itself, or a path ending in it: nextToken = "nextToken",
//     withCredentials=withCredentials, secret_key_base =
//     Rails.application.secret_key_base;
//   - in code, an unquoted identifier with the keyword among its words: a
//     variable (PrivateKey: testRSA2048PrivateKey);
//   - words only, three or more, the keyword among them: a constant's or
//     a header's name (token = "X-Fake-Connection-Token").
//
// A credential is made up, so it does not spell its own label; a password
// with one word of the label and digits ("Password123") is still judged a
// value.
func namesLabel(lab []byte, kw string, v []byte, quoted, code bool) bool {
	if sameName(lastSegment(lab), lastSegment(v)) {
		return true
	}
	words := identWords(v)
	if !hasWords(words, kw) {
		return false
	}
	ident, letters := true, true
	for _, c := range v {
		switch {
		case isAlnum(c) && !('0' <= c && c <= '9'):
		case '0' <= c && c <= '9':
			letters = false
		case c == '_' || c == '.':
		case c == '-':
			ident = false
		default:
			return false
		}
	}
	return !quoted && code && ident || letters && len(words) >= 3
}

// lastSegment is what follows the last . or : of a name (a field of a
// path, a member of a namespace).
func lastSegment(b []byte) []byte {
	if i := bytes.LastIndexAny(b, ".:"); i >= 0 {
		return b[i+1:]
	}
	return b
}

// sameName compares two names ignoring case and the separators - and _.
func sameName(a, b []byte) bool {
	norm := func(b []byte) []byte {
		out := make([]byte, 0, len(b))
		for _, c := range b {
			if c != '-' && c != '_' {
				out = append(out, lower(c))
			}
		}
		return out
	}
	return len(a) > 0 && bytes.Equal(norm(a), norm(b))
}

// identWords splits a name into its words, lower-cased: at separators, at
// a change of case (testRSA2048PrivateKey: test rsa 2048 private key) and
// between letters and digits.
func identWords(v []byte) []string {
	var out []string
	w := 0
	class := func(c byte) int {
		switch {
		case 'a' <= c && c <= 'z':
			return 1
		case 'A' <= c && c <= 'Z':
			return 2
		case '0' <= c && c <= '9':
			return 3
		}
		return 0
	}
	flush := func(i int) {
		if i > w {
			out = append(out, string(bytes.ToLower(v[w:i])))
		}
		w = i
	}
	for i := 0; i < len(v); i++ {
		c := class(v[i])
		if c == 0 {
			flush(i)
			w = i + 1
			continue
		}
		if i == w {
			continue
		}
		p := class(v[i-1])
		switch {
		case c == 2 && p == 1, c == 3 && p != 3, c != 3 && p == 3:
			flush(i) // fooBar, rsa2048, 2048Private
		case c == 1 && p == 2 && i-1 > w:
			flush(i - 1) // RSAPrivate: RSA Private
		}
	}
	flush(len(v))
	return out
}

// hasWords reports whether consecutive words spell the keyword kw
// (private_key: private key; apikey: api key).
func hasWords(words []string, kw string) bool {
	k := strings.NewReplacer("_", "", "-", "").Replace(kw)
	for i := range words {
		s := ""
		for j := i; j < len(words) && len(s) < len(k); j++ {
			s += words[j]
			if s == k {
				return true
			}
		}
	}
	return false
}

// proseLink returns the length of the word (with its trailing blank)
// that links a label to its value in a sentence, or 0.
func proseLink(data []byte, i int) int {
	for _, w := range []string{"is now ", "now is ", "changed to ", "set to ", "is ", "was ", "to ", "as "} {
		if hasAt(data, i, w) && (i+len(w) == len(data) || data[i+len(w)] != ' ') {
			return len(w)
		}
	}
	return 0
}

// scanProse judges the word at vs as a value a sentence gives a label.
// A sentence names things with words ("the password is required", "set
// the token to expire"), so the value must look made: letters with
// digits or symbols, or random.
func scanProse(data []byte, vs int, kind string) (int, int, string, bool) {
	if vs < len(data) && (data[vs] == '"' || data[vs] == '\'' || data[vs] == '`') {
		return 0, 0, "", false // quoted: the quoted forms are judged as a label's
	}
	ve := vs
	for ve < len(data) && ve-vs < 256 && !endsUnquoted(data[ve]) {
		ve++
	}
	for ve > vs && bytes.IndexByte([]byte(".,:;!?"), data[ve-1]) >= 0 {
		ve-- // the sentence's punctuation
	}
	v := data[vs:ve]
	if len(v) < 8 || !madeValue(v) {
		return 0, 0, "", false
	}
	return judgeValue(data, vs, ve, kind, true, false)
}

// madeValue reports a word a person or machine made up as a credential:
// random-looking, or letters mixed with digits and a capital or a symbol.
func madeValue(v []byte) bool {
	if len(v) >= 16 && randomLooking(v) {
		return true
	}
	lower, upper, digit, symbol := charClasses(v)
	return (lower || upper) && digit && (upper && lower || symbol)
}

// charClasses reports which classes of characters v holds; a symbol is
// anything but a letter, a digit and the separators - _ . /.
func charClasses(v []byte) (lower, upper, digit, symbol bool) {
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		case '0' <= c && c <= '9':
			digit = true
		case c == '-' || c == '_' || c == '.' || c == '/':
		default:
			symbol = true
		}
	}
	return
}

func isLabelByte(c byte) bool { return isWord(c) || c == '-' || c == '.' }

func isAlnum(c byte) bool { return isWord(c) && c != '_' }

func labelSuffix(s []byte) bool {
	for len(s) > 0 {
		for len(s) > 0 && (s[0] == '_' || s[0] == '-' || s[0] == '.') {
			s = s[1:]
		}
		if len(s) == 0 {
			return true
		}
		ok := false
		for _, suf := range labelSuffixes {
			if len(s) >= len(suf) && bytes.EqualFold(s[:len(suf)], []byte(suf)) &&
				(len(s) == len(suf) || !isAlnum(s[len(suf)]) || isUpper(s[len(suf)]) && !isUpper(s[len(suf)-1])) {
				s = s[len(suf):]
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

func hasAt(data []byte, i int, s string) bool {
	return i+len(s) <= len(data) && string(data[i:i+len(s)]) == s
}

func skipBlanks(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	return i
}

// endsUnquoted reports the bytes that end an unquoted value.
func endsUnquoted(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '"', '\'', '`', ',', ';', ')', ']', '}', '<', '>', '&', '\\':
		return true
	}
	return false
}

// notValues are words that stand where a value would, in code and docs.
var notValues = map[string]bool{
	"true": true, "false": true, "null": true, "nil": true, "none": true, "undefined": true,
	"required": true, "optional": true, "string": true, "str": true, "bytes": true, "empty": true,
	"password": true, "passwd": true, "secret": true, "token": true, "changeme": true, "change_me": true,
	"change-me": true, "your-password": true, "yourpassword": true, "mypassword": true, "pass": true,
	"todo": true, "fixme": true, "hidden": true, "masked": true, "default": true, "bearer": true,
	"secretkey": true, "apikey": true, "api_key": true, "notasecret": true,
}

// judgeValue decides whether data[vs:ve] is a credential value.
func judgeValue(data []byte, vs, ve int, kind string, quoted, code bool) (int, int, string, bool) {
	v := data[vs:ve]
	min := 8
	if kind == "password" {
		min = 6
	}
	if len(v) < min || len(v) > 400 {
		return 0, 0, "", false
	}
	lv := string(bytes.ToLower(v))
	if notValues[lv] || placeholder(v) || bytes.ContainsAny(v, " \t") {
		return 0, 0, "", false
	}
	switch v[0] {
	case '$', '%', '{', '[', '(', '!', '&', '*', '@', '<', '#', ':', '.', '-', '_':
		return 0, 0, "", false // a reference, template, YAML tag or anchor, type
	case '/':
		if kind != "azure-storage-key" && kind != "private-key-data" {
			return 0, 0, "", false // a path
		}
	}
	for _, p := range []string{"{{", "}}", "${", "$(", "%s", "%v", "%(", "#{", "your_", "your-", "xxx", "***", "...", "env.", "env(", "environ", "getenv", "secrets.", "vault:", "<", ">"} {
		if bytes.Contains(bytes.ToLower(v), []byte(p)) {
			return 0, 0, "", false
		}
	}
	if bytes.HasSuffix(bytes.ToLower(v), []byte("/aws4_request")) {
		// Credential=KEYID/date/region/service/aws4_request of an AWS
		// signature names the key, it does not hold it (a real key id in
		// it is still found, by aws-access-token).
		return 0, 0, "", false
	}
	if bytes.ContainsAny(v, "([]") || bytes.Contains(v, []byte("://")) {
		return 0, 0, "", false // a call, an index, a URL (credential URLs have their own rule)
	}
	if kind == "azure-storage-key" && len(v) < 40 {
		kind = "secret" // ServiceAccountKey: and the like, judged as any secret
	}
	if nameLike(v) {
		// Lower-case words joined by separators name things (same-origin,
		// action_dispatch.secret_key_base, my-secret-token); a password
		// that spells its own label is a documentation value.
		if kind != "password" || bytes.Contains(v, []byte("pass")) {
			return 0, 0, "", false
		}
	}
	if !quoted && code && (!randomLooking(v) || bytes.ContainsAny(v, "*{")) {
		// An expression in code: a variable, a field, a product or a
		// composite literal (2*maxConcurrency, Bug4Secret{1}); a token
		// left unquoted in a comment is random and holds neither.
		return 0, 0, "", false
	}
	if kind != "password" && !randomLooking(v) && entropy(v) < 3.0 {
		return 0, 0, "", false
	}
	if kind == "password" && onlyLetters(v) && quoted && code && len(v) < 10 {
		// "Password" strings in code are mostly field names and labels.
		return 0, 0, "", false
	}
	return vs, ve, kind, true
}

// randomLooking reports a value that mixes letters and digits or symbols
// with enough entropy to be machine-made.
func randomLooking(v []byte) bool {
	if len(v) < 12 {
		return false
	}
	lower, upper, digit, _ := charClasses(v)
	classes := 0
	for _, b := range []bool{lower, upper, digit} {
		if b {
			classes++
		}
	}
	return classes >= 2 && digit && entropy(v) >= 3.2
}

// nameLike reports lower-case letters joined by at least one separator,
// with no digit or capital: a name, a key, a path, not a secret.
func nameLike(v []byte) bool {
	sep := false
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z':
		case c == '-' || c == '_' || c == '.' || c == '/' || c == '#' || c == ':':
			sep = true
		default:
			return false
		}
	}
	return sep
}

func onlyLetters(v []byte) bool {
	for _, c := range v {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
