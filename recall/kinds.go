package recall

import (
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/internal/lazyre"
)

// A commit message, or a task written like one, often names the kind of
// change and not the file: "bump to globset 0.4.18", "update dev
// dependencies", "start version 3.2.0" change the project's manifests,
// version files and changelog; "docs: ...", "fix typo in the guide" change
// its documentation. Neither kind of file says such words of itself
// (Cargo.toml says "dependencies" once, README.md never says "docs"), so
// the words of the task's first line that state the kind lift the files of
// that kind (see Ranking.Packaging and Ranking.Docs).

// Kinds a task's first line can state.
const (
	kindPackaging = 1 << iota // manifests, version files, changelogs
	kindDocs                  // documentation
	kindCI                    // continuous integration: workflows, pipelines
	kindTests                 // test code
)

// kindWords are the words that state a kind, analysed as the index
// analyses them; analysed on first use, not at every command's start.
var kindWords = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	add := func(kind int, words string) {
		for _, w := range strings.Fields(words) {
			for _, t := range index.QueryTerms(w) {
				m[t.Text] |= kind
			}
		}
	}
	add(kindPackaging, `bump bumps bumped release releases releasing version versions deps dependency
	dependencies upgrade upgrades downgrade pin pinned unpin packaging extras requirements publish
	bundle bundler setuptools pypi rubygems wheel wheels sdist sdists hatch hatchling flit poetry`)
	// The words of a change to documentation, not of a question about
	// what documentation says: an issue "documentation issue for netrc
	// support" is about the code the docs describe.
	add(kindDocs, `docs readme markdown typo typos grammar spelling mkdocs sphinx`)
	add(kindCI, `ci workflow workflows pipeline pipelines`)
	return m
})

// versionNumber matches a release number in a task's first line ("0.4.18",
// "v1.2", "ignore-0.4.25"): a release changes the manifests that carry it.
var versionNumber = lazyre.New(`(?:^|[^0-9A-Za-z.])v?\d+\.\d+(?:\.\d+)*(?:$|[^0-9A-Za-z.])`)

// packagingPhrase matches the phrases of packaging that are not one
// word: a project's build system or build backend, and the Python
// packaging standards by number (PEP 440 versions, 508 dependency
// specifiers, 517 and 518 the build system, 621 project metadata, 639
// licence metadata, 660 editable installs, 735 dependency groups).
var packagingPhrase = lazyre.New(`(?i)\bbuild[ -](system|backend)s?\b|\bpep[ -]?(440|508|517|518|621|639|660|735)\b`)

// taskKinds is the kinds the first line of a task states.
func taskKinds(q string) int {
	first, _, _ := strings.Cut(q, "\n")
	k := 0
	for _, t := range index.QueryTerms(first) {
		k |= kindWords()[t.Text]
	}
	if versionNumber.MatchString(first) || packagingPhrase.MatchString(first) {
		k |= kindPackaging
	}
	if m := commitType.FindStringSubmatch(first); m != nil {
		for _, w := range m[1:] {
			switch strings.ToLower(w) {
			case "test", "tests":
				k |= kindTests
			case "ci":
				k |= kindCI
			case "build":
				// "build: changes that affect the build system or
				// external dependencies" (conventional commits).
				k |= kindPackaging
			}
		}
	}
	return k
}

// commitType matches the type of a conventional commit's subject
// ("test: ...", "fix(test): ...", "ci!: ..."): its type and its scope,
// either of which may name a kind of file.
var commitType = lazyre.New(`^\s*([a-zA-Z]+)(?:\(([a-zA-Z]+)\))?!?:`)

// pathKinds is the kinds a file is of, by its path: the manifests,
// version files and changelogs of the common ecosystems (Go, Rust,
// Python, JavaScript, Ruby, the JVM, PHP, Elixir), and documentation
// (Markdown and the other prose formats, docs directories, READMEs, the
// documentation tools' configuration).
func pathKinds(p, kind string) int {
	lp := strings.ToLower(p)
	dir, base := path.Split(lp)
	ext := path.Ext(base)
	k := 0
	switch base {
	case "go.mod", "cargo.toml", "pyproject.toml", "setup.py", "setup.cfg", "pipfile", "tox.ini", "manifest.in",
		"package.json", "gemfile", "build.gradle", "build.gradle.kts", "pom.xml", "composer.json", "mix.exs",
		"__version__.py", "_version.py", "version.py", "version.rb", "version.go", "version.txt", "version",
		"makefile", "rakefile", "justfile":
		k |= kindPackaging
	}
	switch {
	case ext == ".gemspec",
		strings.HasPrefix(base, "requirements") && (ext == ".txt" || ext == ".in"),
		(strings.HasPrefix(dir, "requirements/") || strings.Contains(dir, "/requirements/")) && (ext == ".txt" || ext == ".in"):
		k |= kindPackaging
	}
	if isChangelog(p) {
		k |= kindPackaging
	}
	switch {
	case kind == "markdown" || kind == "rst" || kind == "asciidoc" || kind == "org",
		strings.HasPrefix(lp, "docs/") || strings.HasPrefix(lp, "doc/") || strings.Contains(lp, "/docs/"),
		strings.HasPrefix(base, "readme"),
		base == "mkdocs.yml" || base == "mkdocs.yaml" || base == ".readthedocs.yml" || base == ".readthedocs.yaml":
		k |= kindDocs
	}
	switch {
	case strings.HasPrefix(lp, ".github/workflows/") || strings.HasPrefix(lp, ".github/actions/") ||
		strings.HasPrefix(lp, ".circleci/") || strings.HasPrefix(lp, ".buildkite/"),
		base == ".travis.yml" || base == ".gitlab-ci.yml" || base == "appveyor.yml" || base == ".appveyor.yml" ||
			base == "azure-pipelines.yml" || base == "jenkinsfile" || base == ".cirrus.yml":
		k |= kindCI
	}
	if k&kindCI != 0 && (strings.Contains(base, "release") || strings.Contains(base, "publish")) {
		k |= kindPackaging // a release pipeline is release tooling
	}
	if IsTestPath(p) {
		k |= kindTests
	}
	return k
}

// isChangelog reports whether a path is a changelog or release notes
// (CHANGELOG.md, CHANGES.rst, HISTORY.md, NEWS, ...).
func isChangelog(p string) bool {
	base := strings.ToLower(path.Base(p))
	ext := path.Ext(base)
	if ext != "" && ext != ".md" && ext != ".rst" && ext != ".txt" && ext != ".adoc" {
		return false
	}
	switch strings.TrimSuffix(base, ext) {
	case "changelog", "changes", "history", "news", "releases", "releasing", "release-notes", "release_notes":
		return true
	}
	return false
}

// rootManifests are the names of the files that declare a project's
// packaging, at the root of its tree (or of a package's directory):
// where its build system, metadata, dependencies and extras are written.
var rootManifests = []string{"pyproject.toml", "setup.py", "setup.cfg", "package.json", "Cargo.toml", "go.mod",
	"Gemfile", "composer.json", "pom.xml", "build.gradle", "build.gradle.kts", "mix.exs"}

// docsConfigs are the configuration files of the documentation tools,
// which hold a documentation site's navigation, theme and extensions.
var docsConfigs = []string{"mkdocs.yml", "mkdocs.yaml", "docs/conf.py", "doc/conf.py", ".readthedocs.yaml",
	".readthedocs.yml", "docusaurus.config.js", "docusaurus.config.ts", "book.toml", "docs/book.toml"}

// kindFloor lifts the files that declare a kind to at least a share of
// the best candidate's score when the task's first line states the kind:
// a change to how a project is built, packaged or released is declared
// in its root manifests (ManifestFloor; and in those of a package
// directory the task names by a hyphenated word, "rack-protection"), and
// adding, moving or configuring documentation changes the documentation
// tool's configuration (DocsFloor), whether or not the task's other
// words are in the file. A file no candidate held enters by its first
// section; a file the floor placed says why in via.
func (s *Searcher) kindFloor(hs []index.Hit, q string, rk *Ranking, via map[int]string) []index.Hit {
	if len(hs) == 0 || rk.ManifestFloor <= 0 && rk.DocsFloor <= 0 {
		return hs
	}
	kinds := taskKinds(q)
	if kinds&(kindPackaging|kindDocs) == 0 {
		return hs
	}
	top := 0.0
	for _, h := range hs {
		top = max(top, h.Score)
	}
	best := s.bestSections(hs)
	lift := func(p string, v float64, why string) { hs = s.liftFile(hs, best, p, v, why, via) }
	if v := rk.ManifestFloor * top; v > 0 && kinds&kindPackaging != 0 {
		dirs := []string{""}
		for _, h := range hyphenMentions(q) {
			dirs = append(dirs, h+"/")
		}
		var gemspecs []string
		for p := range best {
			if d, b := path.Split(p); strings.HasSuffix(b, ".gemspec") && slices.Contains(dirs, d) {
				gemspecs = append(gemspecs, p)
			}
		}
		sort.Strings(gemspecs)
		const why = "a manifest: the task speaks of packaging"
		for _, d := range dirs {
			for _, m := range rootManifests {
				lift(d+m, v, why)
			}
		}
		for _, p := range gemspecs {
			lift(p, v, why)
		}
	}
	if v := rk.DocsFloor * top; v > 0 && kinds&kindDocs != 0 {
		for _, p := range docsConfigs {
			lift(p, v, "the documentation's configuration: the task speaks of docs")
		}
	}
	return hs
}

// kindPrior multiplies the candidates of the kinds the task's first line
// states: Packaging for manifests, version files and changelogs, Docs for
// documentation, CI for workflows, TestType for test code (a commit of
// type test).
func (s *Searcher) kindPrior(hs []index.Hit, q string, rk *Ranking) {
	want := taskKinds(q)
	if want&kindPackaging == 0 && rk.Changelog > 0 && rk.Changelog != 1 {
		for i := range hs {
			if isChangelog(s.ix.Doc(hs[i].Doc).Path) {
				hs[i].Score *= rk.Changelog
			}
		}
	}
	if want == 0 {
		return
	}
	weights := []struct {
		kind int
		w    float64
	}{{kindPackaging, rk.Packaging}, {kindDocs, rk.Docs}, {kindCI, rk.CI}, {kindTests, rk.TestType}}
	for i := range hs {
		d := s.ix.Doc(hs[i].Doc)
		got := pathKinds(d.Path, d.Kind) & want
		if got == 0 {
			continue
		}
		for _, k := range weights {
			if got&k.kind != 0 && k.w > 0 {
				hs[i].Score *= k.w
			}
		}
	}
}
