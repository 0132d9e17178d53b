package extract

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"
	"sync"

	"github.com/go-enry/go-enry/v2"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/secret"
)

// GateVersion versions the built-in gate rules. A change forces the next
// run to re-gate every path (not to re-extract kept files).
//
//	2: PDFs and media pass under their own rule (formats.go)
//	3: credentials are redacted, not whole files dropped; third-party
//	   rules replace linguist's vendor list; unsafe paths are skipped
//	4: a path holding a credential is skipped (secret-path), listed by
//	   its hash
//	5: the detector no longer takes for credentials values that name
//	   their label (variables, header names), code expressions, masked
//	   passwords (xxxxx), $PWD, AWS signature scopes, and the word after
//	   "label:" that a phrase continues
const GateVersion = 5

// DefaultMaxFileSize is the largest file that is remembered.
const DefaultMaxFileSize = 10 << 20

// Skip reasons, as counted in the manifest.
const (
	SkipIgnored   = "ignored"     // .gitignore / .konteksignore
	SkipInternal  = "internal"    // .git, .konteks
	SkipSecret    = "secret-file" // .env, keys, certificates
	SkipSecretTxt = "secret"      // content is mostly credentials (a key file by another name)
	SkipUnsafe    = "unsafe-path" // a control character or a name git refuses in the path
	SkipLockfile  = "lockfile"
	SkipVendored  = "vendored"
	SkipGenerated = "generated"
	SkipMinified  = "minified"
	SkipBinary    = "binary"
	SkipTooLarge  = "too-large"
	SkipEmpty     = "empty"
	SkipSymlink   = "symlink"
	SkipSubmodule = "submodule"
	SkipMissing   = "missing" // blob absent (partial clone)
	SkipLFS       = "lfs-pointer"

	// SkipSecretPath: a credential in the path itself (a token as a file or
	// directory name). Its record would be named by the path, so the file
	// is skipped, and the skip list holds the path's hash
	// (memref.SkipKey).
	SkipSecretPath = "secret-path"
)

// Rule files read from the source tree.
const (
	gitignoreFile     = ".gitignore"
	konteksignoreFile = ".konteksignore"
	gitattributesFile = ".gitattributes"
)

// isRuleFile reports whether p is a file whose change alters gating.
func isRuleFile(p string) bool {
	switch path.Base(p) {
	case gitignoreFile, konteksignoreFile, gitattributesFile:
		return true
	}
	return false
}

// Gate decides which paths of one source tree are remembered. Path rules
// come first (no blob read); content rules run on the bytes.
type Gate struct {
	repo    *gitstore.Repo
	maxSize int64

	mu   sync.Mutex
	dirs map[string]*dirRules
	caps formatCaps // size caps of PDFs and media (formats.go)
}

type dirRules struct {
	tree    *gitstore.Tree // nil when the directory does not exist
	ignored bool           // the directory itself is ignored
	ignore  []gitstore.IgnorePattern
	attrs   []gitstore.AttributeRule
	im      gitstore.IgnoreMatcher
	am      gitstore.AttributeMatcher
}

// NewGate prepares a gate over the source tree root.
func NewGate(repo *gitstore.Repo, root gitstore.Hash, maxSize int64) (*Gate, error) {
	t, err := repo.Tree(root)
	if err != nil {
		return nil, err
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	g := &Gate{repo: repo, maxSize: maxSize, dirs: map[string]*dirRules{}}
	g.dirs[""] = g.load(nil, "", t)
	return g, nil
}

func splitDir(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// load reads the rule files of directory dir (tree t) on top of parent's rules.
func (g *Gate) load(parent *dirRules, dir string, t *gitstore.Tree) *dirRules {
	d := &dirRules{tree: t}
	if parent != nil {
		d.ignore, d.attrs = parent.ignore, parent.attrs
	}
	if t != nil {
		domain := splitDir(dir)
		read := func(name string) []byte {
			e, err := t.FindEntry(name)
			if err != nil || !e.Mode.IsFile() {
				return nil
			}
			b, err := g.repo.BlobBytes(e.Hash, 1<<20)
			if err != nil {
				return nil
			}
			return b
		}
		// Later patterns win, so a .konteksignore can re-include (with !)
		// what the .gitignore of the same directory excludes.
		var own []gitstore.IgnorePattern
		for _, name := range []string{gitignoreFile, konteksignoreFile} {
			own = append(own, gitstore.ParseIgnore(read(name), domain)...)
		}
		if len(own) > 0 {
			d.ignore = append(append([]gitstore.IgnorePattern(nil), d.ignore...), own...)
		}
		if as := gitstore.ParseAttributes(read(gitattributesFile), domain, dir == ""); len(as) > 0 {
			d.attrs = append(append([]gitstore.AttributeRule(nil), d.attrs...), as...)
		}
	}
	d.im = gitstore.NewIgnoreMatcher(d.ignore)
	d.am = gitstore.NewAttributeMatcher(d.attrs)
	return d
}

// rules returns the rules in force inside directory dir.
func (g *Gate) rules(dir string) *dirRules {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.rulesLocked(dir)
}

func (g *Gate) rulesLocked(dir string) *dirRules {
	if d, ok := g.dirs[dir]; ok {
		return d
	}
	parentDir, name := "", dir
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		parentDir, name = dir[:i], dir[i+1:]
	}
	parent := g.rulesLocked(parentDir)
	var t *gitstore.Tree
	if parent.tree != nil {
		if e, err := parent.tree.FindEntry(name); err == nil && !e.Mode.IsFile() {
			t, _ = g.repo.Tree(e.Hash)
		}
	}
	d := g.load(parent, dir, t)
	// Git cannot re-include a file whose parent directory is excluded.
	d.ignored = parent.ignored || (len(parent.ignore) > 0 && parent.im.Match(splitDir(dir), true))
	g.dirs[dir] = d
	return d
}

// Path applies every rule that needs no content. It returns the skip
// reason, or "" when the file goes on to be read.
func (g *Gate) Path(p string, kind gitstore.EntryKind) string {
	switch kind {
	case gitstore.KindSymlink:
		return SkipSymlink
	case gitstore.KindGitlink:
		return SkipSubmodule
	}
	parts := strings.Split(p, "/")
	for _, c := range parts {
		if c == ".git" || c == ".konteks" {
			return SkipInternal
		}
	}
	// Memory mirrors source paths under files/; one its readers refuse
	// (a tab or newline in a name) would make the whole memory unreadable.
	if memory.ValidSourcePath(p) != nil {
		return SkipUnsafe
	}
	if secret.ContainsString(p) {
		return SkipSecretPath
	}
	dir := path.Dir(p)
	if dir == "." {
		dir = ""
	}
	d := g.rules(dir)
	if d.ignored || (len(d.ignore) > 0 && d.im.Match(parts, false)) {
		return SkipIgnored
	}
	base := parts[len(parts)-1]
	if (isSecretName(base) && !scanByValue(parts)) || p == ".kube/config" || strings.HasSuffix(p, "/.kube/config") {
		return SkipSecret
	}
	if lockfiles[base] {
		return SkipLockfile
	}
	if strings.Contains(base, ".min.") {
		return SkipMinified
	}
	vendored, generated, lfs := attrFlags(d, parts)
	if vendored == flagSet || (vendored == flagUnknown && g.thirdParty(parts)) {
		return SkipVendored
	}
	if generated == flagSet {
		return SkipGenerated
	}
	// A file stored in LFS is a small text pointer in the tree: Content
	// reports it as such rather than as the binary it stands for.
	if binaryExt[strings.ToLower(path.Ext(base))] && !binaryFormat(base) && !lfs {
		return SkipBinary
	}
	return ""
}

// Content applies the rules that need the file's bytes.
func (g *Gate) Content(p string, data []byte) string {
	if len(data) == 0 {
		return SkipEmpty
	}
	if isLFSPointer(data) {
		return SkipLFS
	}
	if binaryFormat(p) {
		return g.formatContent(p, data)
	}
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return SkipBinary
	}
	if isMinified(p, data) {
		return SkipMinified
	}
	dir := path.Dir(p)
	if dir == "." {
		dir = ""
	}
	_, generated, _ := attrFlags(g.rules(dir), strings.Split(p, "/"))
	if generated == flagUnknown && enry.IsGenerated(p, data) {
		return SkipGenerated
	}
	return ""
}

// Redact returns the file's content with every credential value replaced
// by a marker (secret.Marker), and the kinds it replaced. A file that is
// a credential by nature (most of its text is key material, or a
// kubeconfig with credentials) is skipped instead: its reason is
// SkipSecretTxt. The value itself is never kept.
func (g *Gate) Redact(p string, data []byte) (out []byte, kinds []string, skip string) {
	ms := secret.FindFile(p, data)
	if len(ms) == 0 {
		return data, nil, ""
	}
	if credentialFile(data, ms) {
		return nil, nil, SkipSecretTxt
	}
	return secret.Redact(data, ms), secret.Kinds(ms), ""
}

// credentialFile reports content that is a credential by nature: key
// material is most of its text, or it is a kubeconfig carrying a user's
// credentials.
func credentialFile(data []byte, ms []secret.Match) bool {
	hit := 0
	for _, m := range ms {
		hit += m.End - m.Start
	}
	text := 0
	for _, c := range data {
		if c > ' ' {
			text++
		}
	}
	if 2*hit >= text {
		return true
	}
	return bytes.Contains(data, []byte("kind: Config")) && bytes.Contains(data, []byte("users:"))
}

type flag uint8

const (
	flagUnknown flag = iota
	flagSet
	flagUnset
)

// attrFlags reads linguist-vendored and linguist-generated for a path,
// and whether it is stored in LFS (filter=lfs). A pattern the matcher
// cannot handle counts as no attribute (gitstore.AttributeMatcher.Match)
// rather than ending the extraction.
func attrFlags(d *dirRules, parts []string) (vendored, generated flag, lfs bool) {
	if len(d.attrs) == 0 {
		return flagUnknown, flagUnknown, false
	}
	m, ok := d.am.Match(parts, []string{"linguist-vendored", "linguist-generated", "filter"})
	if !ok {
		return flagUnknown, flagUnknown, false
	}
	if a, ok := m["filter"]; ok && a.State == gitstore.AttrValue && a.Value == "lfs" {
		lfs = true
	}
	conv := func(name string) flag {
		a, ok := m[name]
		switch {
		case !ok:
			return flagUnknown
		case a.State == gitstore.AttrSet || (a.State == gitstore.AttrValue && (a.Value == "true" || a.Value == "1")):
			return flagSet
		case a.State == gitstore.AttrUnset || (a.State == gitstore.AttrValue && (a.Value == "false" || a.Value == "0")):
			return flagUnset
		}
		return flagUnknown
	}
	return conv("linguist-vendored"), conv("linguist-generated"), lfs
}

// Third-party code is what a project copies in from others, not what it
// writes: linguist's vendor list (made for language statistics) also
// drops cache/, env/, extern/, *.d.ts, .github/workflows, Jenkinsfile and
// test fixtures, which are first-party and often what an agent needs.
// These rules name only dependency trees; a linguist-vendored attribute or
// a .konteksignore line removes anything else.

// depDirs are directories that hold installed dependencies, wherever
// they are.
var depDirs = map[string]bool{
	"vendor": true, "node_modules": true, "bower_components": true, "jspm_packages": true,
	"site-packages": true, "dist-packages": true, "__pypackages__": true, "Pods": true,
	".bundle": true, ".yarn": true, ".pnpm-store": true, ".gradle": true, ".m2": true,
}

// thirdPartyDirs hold copied-in projects when they carry a licence file
// (the sign of code kept under someone else's terms).
var thirdPartyDirs = map[string]bool{
	"third_party": true, "third-party": true, "thirdparty": true, "3rdparty": true, "3rd_party": true,
}

// bundleFiles are dependency bundles and loaders generated by package
// managers.
var bundleFiles = map[string]bool{".pnp.cjs": true, ".pnp.js": true, ".pnp.loader.mjs": true}

// isVendored reports a path inside a dependency tree (no licence check;
// see Gate.thirdParty).
func isVendored(p string) bool {
	parts := strings.Split(p, "/")
	for i, c := range parts[:len(parts)-1] {
		if depDirs[c] {
			return true
		}
		if c == "Checkouts" && i > 0 && parts[i-1] == "Carthage" {
			return true
		}
	}
	return bundleFiles[parts[len(parts)-1]]
}

// thirdParty applies isVendored, and treats third_party/ (and its
// spellings) as third-party when it, or the project directory under it,
// has a licence file.
func (g *Gate) thirdParty(parts []string) bool {
	if isVendored(strings.Join(parts, "/")) {
		return true
	}
	for i, c := range parts[:len(parts)-1] {
		if !thirdPartyDirs[c] {
			continue
		}
		if g.hasLicence(strings.Join(parts[:i+1], "/")) {
			return true
		}
		if i+2 < len(parts) && g.hasLicence(strings.Join(parts[:i+2], "/")) {
			return true
		}
	}
	return false
}

// hasLicence reports whether directory dir of the source tree has a
// LICENSE, LICENCE, COPYING or NOTICE file.
func (g *Gate) hasLicence(dir string) bool {
	d := g.rules(dir)
	if d.tree == nil {
		return false
	}
	for _, e := range d.tree.Entries {
		n := strings.ToUpper(e.Name)
		for _, pre := range []string{"LICENSE", "LICENCE", "COPYING", "NOTICE"} {
			if strings.HasPrefix(n, pre) && e.Mode.IsFile() {
				return true
			}
		}
	}
	return false
}

var lockfiles = map[string]bool{
	"package-lock.json": true, "npm-shrinkwrap.json": true, "yarn.lock": true,
	"pnpm-lock.yaml": true, "bun.lockb": true, "bun.lock": true, "deno.lock": true,
	"Cargo.lock": true, "go.sum": true, "go.work.sum": true, "Gemfile.lock": true,
	"composer.lock": true, "poetry.lock": true, "Pipfile.lock": true, "uv.lock": true,
	"pdm.lock": true, "mix.lock": true, "pubspec.lock": true, "Podfile.lock": true,
	"packages.lock.json": true, "flake.lock": true, "gradle.lockfile": true,
	"Package.resolved": true, "shard.lock": true,
}

// binaryExt lists extensions that are never text, so their blobs are not
// even read.
var binaryExt = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`.png .jpg .jpeg .gif .bmp .ico .icns .webp .tif .tiff .psd .heic
		.mp3 .wav .ogg .flac .aac .m4a .mp4 .webm .mov .avi .mkv .wmv
		.zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .jar .war .ear .whl .egg .apk .ipa .deb .rpm .dmg .iso
		.exe .dll .so .dylib .a .o .obj .lib .class .pyc .pyo .wasm .bin .dat .db .sqlite .sqlite3
		.woff .woff2 .ttf .otf .eot .pdf .doc .docx .xls .xlsx .ppt .pptx .odt .ods
		.syso .pack .idx .parquet .avro .onnx .pt .pth .h5 .npy .npz .pkl`) {
		binaryExt[e] = true
	}
}

// isSecretName matches files that are credentials by nature, by name:
// environment files (.env, .env.production, .env-production, .envrc,
// app.env), key stores and certificates, credential stores of tools, and
// kubeconfigs.
func isSecretName(base string) bool {
	b := strings.ToLower(base)
	if strings.HasPrefix(b, ".env") || strings.HasSuffix(b, ".env") || strings.Contains(b, ".env.") {
		// Templates are meant to be committed and document configuration.
		for _, ok := range []string{"example", "sample", "template", ".dist", "defaults", ".tmpl", ".schema"} {
			if strings.Contains(b, ok) {
				return false
			}
		}
		return true
	}
	switch {
	case b == "kubeconfig" || strings.HasSuffix(b, ".kubeconfig") || strings.HasPrefix(b, "kubeconfig."):
		return true
	case strings.HasSuffix(b, ".tfstate") || strings.HasSuffix(b, ".tfstate.backup"):
		return true // Terraform state holds the secrets of every resource in clear
	}
	for _, pre := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
		if strings.HasPrefix(b, pre) {
			return true
		}
	}
	switch b {
	case ".netrc", "_netrc", ".pgpass", ".htpasswd", ".npmrc", ".pypirc", "credentials", ".git-credentials", ".dockercfg", ".s3cfg", ".boto", "secring.gpg":
		return true
	}
	switch path.Ext(b) {
	case ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".der", ".kdbx", ".gpg", ".asc", ".p8":
		return true
	}
	// .pem, .crt, .cer and .csr files are most often public certificates:
	// they are read, and the detector removes a private key block in one
	// (a file that is mostly key material is skipped as secret text).
	return false
}

// scanByValue reports a secret-named file in a test fixture directory:
// a Terraform state there is test input, read for its values like any
// other file rather than skipped by name.
func scanByValue(parts []string) bool {
	b := strings.ToLower(parts[len(parts)-1])
	if !strings.HasSuffix(b, ".tfstate") && !strings.HasSuffix(b, ".tfstate.backup") {
		return false
	}
	for _, c := range parts[:len(parts)-1] {
		switch c {
		case "test", "tests", "testdata", "test_data", "fixtures", "__fixtures__", "testing":
			return true
		}
	}
	return false
}

func isLFSPointer(data []byte) bool {
	return len(data) < 1024 && bytes.HasPrefix(data, []byte("version https://git-lfs.github.com/spec/"))
}

// isMinified flags JavaScript/CSS bundles: long average lines.
func isMinified(p string, data []byte) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".js", ".mjs", ".cjs", ".css", ".map":
	default:
		return false
	}
	if strings.Contains(path.Base(p), ".min.") {
		return true
	}
	if len(data) < 4096 {
		return false
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	return len(data)/lines > 500
}

// RedactedPrefix starts the record warning that says which credential
// kinds were redacted; the manifest counts records that carry it, and
// `status --redacted` lists them.
const RedactedPrefix = "redacted credentials: "

func redactedWarning(kinds []string) string { return RedactedPrefix + strings.Join(kinds, ", ") }

// hasWarning reports whether f carries a warning starting with prefix.
func hasWarning(f *memory.File, prefix string) bool {
	for _, w := range f.Warnings {
		if strings.HasPrefix(w, prefix) {
			return true
		}
	}
	return false
}

// derivedText passes a text derived from files (the portrait, a directory
// summary, a module) through the detector before it is written: such
// texts copy README paragraphs, package scripts and abstracts, and must
// not carry a credential the files' own records do not.
func (r *run) derivedText(b []byte) []byte {
	out, n := secret.RedactJSON(b)
	if n > 0 {
		r.redactMu.Lock()
		r.stats.RedactedDerived += n
		r.redactMu.Unlock()
	}
	return out
}

// writeDerivedJSON writes v at path p of memory as indented JSON, through
// derivedText.
func (r *run) writeDerivedJSON(p string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	h, err := r.writer.Blob(r.derivedText(append(b, '\n')))
	if err != nil {
		return err
	}
	return r.editor.Set(p, gitstore.ModeRegular, h)
}

// redactRecordText redacts the texts of a record made after the gate
// (media descriptions): abstract and each section's name, summary, doc and
// content. It returns the number of values replaced.
func redactRecordText(f *memory.File) int {
	n := 0
	red := func(s *string) {
		if out, ms := secret.RedactString(*s); len(ms) > 0 {
			*s = out
			n += len(ms)
		}
	}
	red(&f.Abstract)
	for i := range f.Sections {
		s := &f.Sections[i]
		red(&s.Name)
		red(&s.Summary)
		red(&s.Doc)
		red(&s.Content)
	}
	return n
}
