package extract

import (
	"encoding/json"
	"path"
	"sort"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"gopkg.in/yaml.v3"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/graph"
	"github.com/konteks/git-konteks/internal/lazyre"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/secret"
)

// The portrait and module artifacts are memory's data model (package
// memory); extraction fills them.
type (
	Project      = memory.Project
	LangShare    = memory.LangShare
	Package      = memory.Package
	PackageGroup = memory.PackageGroup
	Script       = memory.Script
	Module       = memory.Module
)

// RootModule names the module of the files at the repository root.
const RootModule = memory.RootModule

// maxGroupNames bounds the names a package group lists.
const maxGroupNames = 8

// Patterns of the manifest, build and CI files the portrait reads.
var (
	reGoVersion     = lazyre.New(`(?m)^go\s+(\S+)`)
	reGoRequire     = lazyre.New(`(?m)^\s*(?:require\s+)?([a-z0-9][\w.-]*\.[a-z]{2,}/[^\s]+)\s+v[0-9]`)
	reGoWorkUse     = lazyre.New(`(?m)^\s*(?:use\s+)?(\./[^\s)]*)`)
	rePySetupName   = lazyre.New(`(?m)\bname\s*[=:]\s*['"]?([\w.-]+)`)
	reGem           = lazyre.New(`(?m)^\s*gem\s+['"]([^'"]+)`)
	reMavenArtifact = lazyre.New(`<artifactId>([^<]+)</artifactId>`)
	reMavenVersion  = lazyre.New(`<version>([^<]+)</version>`)
	reGradleDep     = lazyre.New(`(?m)^\s*(?:implementation|api|compile)\s*\(?\s*['"]([^'":]+:[^'":]+)`)
	reSwiftName     = lazyre.New(`name:\s*"([^"]+)"`)
	reMixApp        = lazyre.New(`app:\s*:(\w+)`)
	reMixVersion    = lazyre.New(`version:\s*"([^"]+)"`)
	reMakeTarget    = lazyre.New(`(?m)^([A-Za-z0-9][\w.-]*)\s*:([^=]|$)`)
	reDockerFrom    = lazyre.New(`(?mi)^\s*FROM\s+(\S+)`)
)

// portraitFiles are the names that feed the portrait.
var portraitFiles = map[string]string{
	"go.mod": "go", "go.work": "go", "package.json": "npm", "pnpm-workspace.yaml": "pnpm", "nx.json": "nx", "turbo.json": "turbo",
	"Cargo.toml": "cargo", "pyproject.toml": "python", "setup.py": "python", "setup.cfg": "python",
	"composer.json": "composer", "Gemfile": "bundler", "pom.xml": "maven", "build.gradle": "gradle", "build.gradle.kts": "gradle",
	"Package.swift": "swift", "mix.exs": "mix", "Makefile": "make", "Dockerfile": "docker",
	".gitlab-ci.yml": "ci", ".travis.yml": "ci", "azure-pipelines.yml": "ci", "Jenkinsfile": "ci",
}

func isPortraitInput(p string) bool {
	if strings.HasPrefix(p, ".github/workflows/") || strings.HasPrefix(p, ".circleci/") {
		return true
	}
	if strings.Count(p, "/") > 2 {
		return false
	}
	b := path.Base(p)
	_, ok := portraitFiles[b]
	return ok || isReadme(b) || strings.HasPrefix(b, "requirements") && strings.HasSuffix(b, ".txt")
}

// portrait refreshes project.json when one of its inputs changed, on a
// first or full run, or when the language ranking moved.
func (r *run) portrait() error {
	old := r.readProject()
	refresh := old == nil || r.mode == ModeRebuild || r.mode == ModeFull
	for p := range r.changedSource {
		refresh = refresh || isPortraitInput(p)
	}
	langs := languageShares(r.totals.Languages)
	if !refresh && !sameLangs(old.Languages, langs) {
		refresh = true
	}
	if !refresh {
		r.project = old
		return nil
	}
	// The gate's decisions hold for the portrait too: nothing it skipped
	// (a secret, an ignored or generated file) is read.
	pr, err := buildPortrait(r.repo, r.target.TreeHash, func(p string) bool {
		_, skipped := r.skipped[memref.SkipKey(p)]
		return skipped
	})
	if err != nil {
		return err
	}
	pr.Languages = langs
	r.project = pr
	r.portraitRefreshed = true
	return r.writeDerivedJSON(memory.ProjectPath, pr)
}

func (r *run) readProject() *Project {
	h, _, ok, err := r.editor.Get(memory.ProjectPath)
	if err != nil || !ok || h.IsZero() {
		return nil
	}
	b, err := r.repo.BlobBytes(h, 4<<20)
	if err != nil {
		return nil
	}
	var p Project
	if json.Unmarshal(b, &p) != nil {
		return nil
	}
	return &p
}

func languageShares(bytesBy map[string]int64) []LangShare {
	var total int64
	for _, n := range bytesBy {
		total += n
	}
	out := []LangShare{}
	if total == 0 {
		return out
	}
	for l, n := range bytesBy {
		if pct := int(n * 100 / total); pct >= 1 && l != "" {
			out = append(out, LangShare{Language: l, Percent: pct})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Percent != out[j].Percent {
			return out[i].Percent > out[j].Percent
		}
		return out[i].Language < out[j].Language
	})
	if len(out) > 8 {
		out = out[:8]
	}
	return out
}

func sameLangs(a, b []LangShare) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// buildPortrait reads the package manifests, build and CI files at the
// root and one or two levels down, and the root README. skipped says
// which paths the gate left out; none of them is read, and a file whose
// bytes hold a credential is not read either. A symbolic link among these
// files is followed inside the repository (see linkTarget). Packages
// under an example or test directory are grouped (PackageGroups), and
// their dependencies and scripts are not the project's.
func buildPortrait(repo *gitstore.Repo, tree gitstore.Hash, skipped func(string) bool) (*Project, error) {
	pr := &Project{Dependencies: map[string][]string{}}
	var inputs []gitstore.Entry
	err := repo.WalkTree(tree, func(dir string) bool {
		switch dir {
		case ".github", ".github/workflows", ".circleci":
			return false
		}
		depth := strings.Count(dir, "/") + 1
		return depth > 2 || isVendored(dir+"/x") || strings.HasPrefix(path.Base(dir), ".")
	}, func(e gitstore.Entry) error {
		if (e.Kind == gitstore.KindFile || e.Kind == gitstore.KindSymlink) && isPortraitInput(e.Path) {
			inputs = append(inputs, e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	root, err := repo.Tree(tree)
	if err != nil {
		return nil, err
	}
	read := func(e gitstore.Entry) []byte {
		p, h := e.Path, e.Hash
		if e.Kind == gitstore.KindSymlink {
			var ok bool
			if p, h, ok = linkTarget(repo, root, e.Path, e.Hash); !ok {
				return nil
			}
		}
		if isSecretName(path.Base(p)) || skipped != nil && skipped(p) {
			return nil
		}
		b, err := repo.BlobBytes(h, 1<<20)
		if err != nil || secret.Contains(b) {
			return nil
		}
		return b
	}
	groups := map[[3]string]*PackageGroup{}
	var readmes []gitstore.Entry
	for _, e := range inputs {
		dir := path.Dir(e.Path)
		if dir == "." {
			dir = ""
		}
		base := path.Base(e.Path)
		if isReadme(base) {
			if dir == "" {
				readmes = append(readmes, e)
			}
			continue
		}
		if strings.HasPrefix(e.Path, ".github/workflows/") || strings.HasPrefix(e.Path, ".circleci/") || portraitFiles[base] == "ci" {
			// A CI file is named, never read: the gate may well skip it
			// (a workflow holding a deploy key), its path says enough.
			pr.CI = append(pr.CI, e.Path)
			continue
		}
		b := read(e)
		if b == nil {
			continue
		}
		gdir, role := sampleDir(dir)
		if role == "" {
			readInput(pr, e.Path, dir, base, b)
			continue
		}
		// An example's or a test's package: counted in its group only.
		tmp := &Project{Dependencies: map[string][]string{}}
		readInput(tmp, e.Path, dir, base, b)
		for _, pkg := range tmp.Packages {
			k := [3]string{gdir, role, pkg.Manager}
			g := groups[k]
			if g == nil {
				g = &PackageGroup{Path: gdir, Role: role, Manager: pkg.Manager}
				groups[k] = g
			}
			g.Count++
			name := pkg.Name
			if name == "" {
				name = path.Base(pkg.Path)
			}
			g.Names = append(g.Names, name)
		}
	}
	for _, g := range groups {
		g.Names = uniqSorted(g.Names)
		if len(g.Names) > maxGroupNames {
			g.Names = g.Names[:maxGroupNames]
		}
		pr.PackageGroups = append(pr.PackageGroups, *g)
	}
	sort.Slice(pr.PackageGroups, func(i, j int) bool {
		a, b := pr.PackageGroups[i], pr.PackageGroups[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Manager < b.Manager
	})
	sort.SliceStable(readmes, func(i, j int) bool {
		return readmeRank(path.Base(readmes[i].Path)) < readmeRank(path.Base(readmes[j].Path))
	})
	var readme readmeText
	for _, e := range readmes {
		if b := read(e); b != nil {
			if readme = readReadme(string(b)); readme.Description != "" || readme.Title != "" {
				break
			}
		}
	}
	pr.Description = readme.Description
	// Entry points by convention.
	if err := repo.WalkTree(tree, func(dir string) bool { return strings.Count(dir, "/") > 1 }, func(e gitstore.Entry) error {
		switch {
		case e.Path == "main.go", strings.HasPrefix(e.Path, "cmd/") && path.Base(e.Path) == "main.go",
			path.Base(e.Path) == "__main__.py", e.Path == "src/main.rs", e.Path == "main.py", e.Path == "manage.py",
			strings.HasPrefix(e.Path, "bin/") && e.Kind == gitstore.KindFile:
			pr.EntryPoints = append(pr.EntryPoints, e.Path)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for k, v := range pr.Dependencies {
		v = uniqSorted(v)
		if len(v) > 100 {
			v = v[:100]
		}
		if len(v) == 0 {
			delete(pr.Dependencies, k)
			continue
		}
		pr.Dependencies[k] = v
	}
	pr.Workspaces = uniqSorted(pr.Workspaces)
	pr.EntryPoints = uniqSorted(pr.EntryPoints)
	pr.Tech = techSignals(pr)
	for _, p := range pr.Packages {
		if p.Path == "" && p.Name != "" && pr.Name == "" {
			pr.Name = p.Name
		}
		if p.Path == "" && pr.Description == "" {
			pr.Description = p.Description
		}
	}
	if pr.Name == "" {
		pr.Name = readmeName(readme.Title)
	}
	if pr.Name == "" {
		pr.Name = "(unnamed)"
	}
	if len(pr.Scripts) > 100 {
		pr.Scripts = pr.Scripts[:100]
	}
	return pr, nil
}

// readInput adds what one manifest, build, CI or container file (at path
// p, in directory dir) says to pr.
func readInput(pr *Project, p, dir, base string, b []byte) {
	switch {
	case base == "go.mod":
		pkg := Package{Path: dir, Manager: "go"}
		if m := graph.GoModule.FindSubmatch(b); m != nil {
			pkg.Name = string(m[1])
		}
		if m := reGoVersion.FindSubmatch(b); m != nil {
			pkg.Version = "go " + string(m[1])
		}
		pr.Packages = append(pr.Packages, pkg)
		for _, m := range reGoRequire.FindAllSubmatch(b, -1) {
			pr.Dependencies["go"] = append(pr.Dependencies["go"], string(m[1]))
		}
	case base == "go.work":
		for _, m := range reGoWorkUse.FindAllSubmatch(b, -1) {
			pr.Workspaces = append(pr.Workspaces, path.Clean(path.Join(dir, string(m[1]))))
		}
	case base == "package.json":
		var pj struct {
			Name, Version, Description string
			Scripts                    map[string]string
			Dependencies               map[string]string
			DevDependencies            map[string]string `json:"devDependencies"`
			Workspaces                 json.RawMessage
			Bin                        json.RawMessage
			Main                       string
		}
		if json.Unmarshal(b, &pj) != nil {
			return
		}
		pr.Packages = append(pr.Packages, Package{Path: dir, Manager: "npm", Name: pj.Name, Version: pj.Version, Description: pj.Description})
		for _, k := range sortedKeys(pj.Scripts) {
			pr.Scripts = append(pr.Scripts, Script{Name: k, Command: pj.Scripts[k], Source: p})
		}
		pr.Dependencies["npm"] = append(pr.Dependencies["npm"], sortedKeys(pj.Dependencies)...)
		pr.Dependencies["npm-dev"] = append(pr.Dependencies["npm-dev"], sortedKeys(pj.DevDependencies)...)
		var ws []string
		if json.Unmarshal(pj.Workspaces, &ws) != nil {
			var obj struct{ Packages []string }
			json.Unmarshal(pj.Workspaces, &obj)
			ws = obj.Packages
		}
		pr.Workspaces = append(pr.Workspaces, ws...)
		if pj.Main != "" {
			pr.EntryPoints = append(pr.EntryPoints, path.Join(dir, pj.Main))
		}
	case base == "pnpm-workspace.yaml":
		var y struct{ Packages []string }
		if yaml.Unmarshal(b, &y) == nil {
			pr.Workspaces = append(pr.Workspaces, y.Packages...)
		}
	case base == "Cargo.toml":
		var c struct {
			Package      struct{ Name, Version, Description string }
			Dependencies map[string]any
			Workspace    struct{ Members []string }
			Bin          []struct{ Name, Path string }
		}
		if toml.Unmarshal(b, &c) != nil {
			return
		}
		if c.Package.Name != "" {
			pr.Packages = append(pr.Packages, Package{Path: dir, Manager: "cargo", Name: c.Package.Name, Version: c.Package.Version, Description: c.Package.Description})
		}
		pr.Dependencies["cargo"] = append(pr.Dependencies["cargo"], sortedKeys(c.Dependencies)...)
		pr.Workspaces = append(pr.Workspaces, c.Workspace.Members...)
	case base == "pyproject.toml":
		var py struct {
			Project struct {
				Name, Version, Description string
				Dependencies               []string
				Scripts                    map[string]string
			}
			Tool struct {
				Poetry struct {
					Name, Version, Description string
					Dependencies               map[string]any
					Scripts                    map[string]string
				}
			}
		}
		if toml.Unmarshal(b, &py) != nil {
			return
		}
		pp := py.Project
		if pp.Name == "" {
			pp.Name, pp.Version, pp.Description = py.Tool.Poetry.Name, py.Tool.Poetry.Version, py.Tool.Poetry.Description
			pp.Scripts = py.Tool.Poetry.Scripts
			for _, k := range sortedKeys(py.Tool.Poetry.Dependencies) {
				pp.Dependencies = append(pp.Dependencies, k)
			}
		}
		pr.Packages = append(pr.Packages, Package{Path: dir, Manager: "python", Name: pp.Name, Version: pp.Version, Description: pp.Description})
		for _, d := range pp.Dependencies {
			pr.Dependencies["python"] = append(pr.Dependencies["python"], reqName(d))
		}
		for _, k := range sortedKeys(pp.Scripts) {
			pr.Scripts = append(pr.Scripts, Script{Name: k, Command: pp.Scripts[k], Source: p})
		}
	case base == "setup.py" || base == "setup.cfg":
		if m := rePySetupName.FindSubmatch(b); m != nil {
			pr.Packages = append(pr.Packages, Package{Path: dir, Manager: "python", Name: string(m[1])})
		}
	case strings.HasPrefix(base, "requirements"):
		for _, l := range strings.Split(string(b), "\n") {
			if n := reqName(l); n != "" {
				pr.Dependencies["python"] = append(pr.Dependencies["python"], n)
			}
		}
	case base == "composer.json":
		var c struct {
			Name, Description string
			Require           map[string]string
			Scripts           map[string]any
		}
		if json.Unmarshal(b, &c) == nil {
			pr.Packages = append(pr.Packages, Package{Path: dir, Manager: "composer", Name: c.Name, Description: c.Description})
			pr.Dependencies["composer"] = append(pr.Dependencies["composer"], sortedKeys(c.Require)...)
			for _, k := range sortedKeys(c.Scripts) {
				pr.Scripts = append(pr.Scripts, Script{Name: k, Source: p})
			}
		}
	case base == "Gemfile":
		for _, m := range reGem.FindAllSubmatch(b, -1) {
			pr.Dependencies["bundler"] = append(pr.Dependencies["bundler"], string(m[1]))
		}
	case base == "pom.xml":
		pr.Packages = append(pr.Packages, Package{Path: dir, Manager: "maven", Name: submatch(reMavenArtifact, b), Version: submatch(reMavenVersion, b)})
	case base == "build.gradle" || base == "build.gradle.kts":
		pr.Packages = append(pr.Packages, Package{Path: dir, Manager: "gradle", Name: path.Base("/" + dir)})
		for _, m := range reGradleDep.FindAllSubmatch(b, -1) {
			pr.Dependencies["gradle"] = append(pr.Dependencies["gradle"], string(m[1]))
		}
	case base == "Package.swift":
		if m := reSwiftName.FindSubmatch(b); m != nil {
			pr.Packages = append(pr.Packages, Package{Path: dir, Manager: "swift", Name: string(m[1])})
		}
	case base == "mix.exs":
		pr.Packages = append(pr.Packages, Package{Path: dir, Manager: "mix", Name: submatch(reMixApp, b), Version: submatch(reMixVersion, b)})
	case base == "Makefile" && dir == "":
		for _, m := range reMakeTarget.FindAllSubmatch(b, -1) {
			pr.Scripts = append(pr.Scripts, Script{Name: "make " + string(m[1]), Source: p})
		}
	case base == "Dockerfile":
		for _, m := range reDockerFrom.FindAllSubmatch(b, -1) {
			pr.Docker = append(pr.Docker, p+": "+string(m[1]))
		}
	}
}

// submatch is re's first group in b: "" when re does not match.
func submatch(re *lazyre.Regexp, b []byte) string {
	if m := re.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

// techSignals names well-known frameworks found among the dependencies.
func techSignals(pr *Project) []string {
	known := map[string]string{
		"react": "React", "next": "Next.js", "vue": "Vue", "svelte": "Svelte", "@angular/core": "Angular", "express": "Express",
		"django": "Django", "flask": "Flask", "fastapi": "FastAPI", "torch": "PyTorch", "tensorflow": "TensorFlow", "numpy": "NumPy",
		"tokio": "Tokio", "serde": "Serde", "actix-web": "Actix", "rails": "Rails", "laravel/framework": "Laravel",
		"github.com/gin-gonic/gin": "Gin", "github.com/spf13/cobra": "Cobra", "github.com/urfave/cli/v2": "urfave/cli",
		"google.golang.org/grpc": "gRPC", "github.com/go-git/go-git/v5": "go-git", "github.com/blevesearch/bleve/v2": "Bleve",
	}
	var out []string
	for _, deps := range pr.Dependencies {
		for _, d := range deps {
			if n, ok := known[d]; ok {
				out = append(out, n)
			}
		}
	}
	if len(pr.Docker) > 0 {
		out = append(out, "Docker")
	}
	return uniqSorted(out)
}

func reqName(line string) string {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "-") {
		return ""
	}
	if i := strings.IndexAny(line, "<>=!~[; @"); i > 0 {
		line = line[:i]
	}
	return strings.ToLower(strings.TrimSpace(line))
}

// sampleDir says whether a package directory is an example's or a
// test's: the directory up to its examples (or tests) part and the role,
// or "" for the project's own packages.
func sampleDir(dir string) (string, string) {
	parts := strings.Split(dir, "/")
	for i, seg := range parts {
		switch strings.ToLower(seg) {
		case "example", "examples", "_examples", "sample", "samples", "demo", "demos", "tutorial", "tutorials":
			return strings.Join(parts[:i+1], "/"), "examples"
		case "test", "tests", "testdata", "test_data", "fixtures", "e2e", "integration-tests", "benches", "benchmarks":
			return strings.Join(parts[:i+1], "/"), "tests"
		}
	}
	return "", ""
}

// maxLinkHops bounds a chain of symbolic links.
const maxLinkHops = 8

// linkTarget follows the symbolic link at path p (blob h) inside the tree
// root to the file it names: the target is read from the object database,
// resolved against the link's directory, and followed again when it is a
// link itself, at most maxLinkHops times. ok is false for a target outside
// the repository (absolute or above its root), a directory, a missing
// path, or a loop.
func linkTarget(repo *gitstore.Repo, root *gitstore.Tree, p string, h gitstore.Hash) (string, gitstore.Hash, bool) {
	seen := map[string]bool{p: true}
	for hop := 0; hop < maxLinkHops; hop++ {
		b, err := repo.BlobBytes(h, 4096)
		if err != nil {
			return "", gitstore.ZeroHash, false
		}
		target := strings.TrimRight(string(b), "\n")
		if target == "" || strings.HasPrefix(target, "/") || strings.ContainsAny(target, "\x00\n\\") {
			return "", gitstore.ZeroHash, false
		}
		next := path.Join(path.Dir(p), target)
		if next == ".." || strings.HasPrefix(next, "../") || next == "." || seen[next] || memory.ValidSourcePath(next) != nil {
			return "", gitstore.ZeroHash, false
		}
		seen[next] = true
		e, err := root.FindEntry(next)
		if err != nil {
			return "", gitstore.ZeroHash, false
		}
		switch e.Mode {
		case gitstore.ModeSymlink:
			p, h = next, e.Hash
			continue
		case gitstore.ModeRegular, gitstore.ModeExecutable, gitstore.ModeDeprecated:
			return next, e.Hash, true
		}
		return "", gitstore.ZeroHash, false
	}
	return "", gitstore.ZeroHash, false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func uniqSorted(xs []string) []string {
	sort.Strings(xs)
	out := xs[:0]
	for i, x := range xs {
		if x != "" && (i == 0 || x != xs[i-1]) {
			out = append(out, x)
		}
	}
	return out
}
