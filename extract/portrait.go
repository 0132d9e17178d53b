package extract

import (
	"encoding/json"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	toml "github.com/pelletier/go-toml/v2"
	"gopkg.in/yaml.v3"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/graph"
	"github.com/konteks/git-konteks/memory"
)

// Project is the portrait of the repository, project.json in memory.
type Project struct {
	Name         string              `json:"name"`
	Description  string              `json:"description,omitempty"`
	Languages    []LangShare         `json:"languages"`
	Tech         []string            `json:"tech,omitempty"`
	Packages     []Package           `json:"packages,omitempty"`
	Workspaces   []string            `json:"workspaces,omitempty"`
	EntryPoints  []string            `json:"entry_points,omitempty"`
	Scripts      []Script            `json:"scripts,omitempty"`
	Dependencies map[string][]string `json:"dependencies,omitempty"` // by manager
	CI           []string            `json:"ci,omitempty"`
	Docker       []string            `json:"docker,omitempty"` // Dockerfile: base images
}

// LangShare is a language's share of the remembered bytes.
type LangShare struct {
	Language string `json:"language"`
	Percent  int    `json:"percent"`
}

// Package is one package manifest.
type Package struct {
	Path        string `json:"path"` // directory ("" for the root)
	Manager     string `json:"manager"`
	Name        string `json:"name,omitempty"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
}

// Script is a runnable command the project declares.
type Script struct {
	Name    string `json:"name"`
	Command string `json:"command,omitempty"`
	Source  string `json:"source"` // the file that declares it
}

// Patterns of the manifest, build and CI files the portrait reads.
var (
	reGoVersion     = regexp.MustCompile(`(?m)^go\s+(\S+)`)
	reGoRequire     = regexp.MustCompile(`(?m)^\s*(?:require\s+)?([a-z0-9][\w.-]*\.[a-z]{2,}/[^\s]+)\s+v[0-9]`)
	reGoWorkUse     = regexp.MustCompile(`(?m)^\s*(?:use\s+)?(\./[^\s)]*)`)
	rePySetupName   = regexp.MustCompile(`(?m)\bname\s*[=:]\s*['"]?([\w.-]+)`)
	reGem           = regexp.MustCompile(`(?m)^\s*gem\s+['"]([^'"]+)`)
	reMavenArtifact = regexp.MustCompile(`<artifactId>([^<]+)</artifactId>`)
	reMavenVersion  = regexp.MustCompile(`<version>([^<]+)</version>`)
	reGradleDep     = regexp.MustCompile(`(?m)^\s*(?:implementation|api|compile)\s*\(?\s*['"]([^'":]+:[^'":]+)`)
	reSwiftName     = regexp.MustCompile(`name:\s*"([^"]+)"`)
	reMixApp        = regexp.MustCompile(`app:\s*:(\w+)`)
	reMixVersion    = regexp.MustCompile(`version:\s*"([^"]+)"`)
	reMakeTarget    = regexp.MustCompile(`(?m)^([A-Za-z0-9][\w.-]*)\s*:([^=]|$)`)
	reDockerFrom    = regexp.MustCompile(`(?mi)^\s*FROM\s+(\S+)`)
)

// portraitFiles are the names that feed the portrait.
var portraitFiles = map[string]string{
	"go.mod": "go", "go.work": "go", "package.json": "npm", "pnpm-workspace.yaml": "pnpm", "nx.json": "nx", "turbo.json": "turbo",
	"Cargo.toml": "cargo", "pyproject.toml": "python", "setup.py": "python", "setup.cfg": "python",
	"composer.json": "composer", "Gemfile": "bundler", "pom.xml": "maven", "build.gradle": "gradle", "build.gradle.kts": "gradle",
	"Package.swift": "swift", "mix.exs": "mix", "Makefile": "make", "Dockerfile": "docker",
	".gitlab-ci.yml": "ci", ".travis.yml": "ci", "azure-pipelines.yml": "ci", "Jenkinsfile": "ci", "README.md": "readme", "README": "readme", "README.rst": "readme",
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
	return ok || strings.HasPrefix(b, "requirements") && strings.HasSuffix(b, ".txt")
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
	pr, err := buildPortrait(r.repo, r.target.TreeHash)
	if err != nil {
		return err
	}
	pr.Languages = langs
	r.project = pr
	r.portraitRefreshed = true
	b, err := json.MarshalIndent(pr, "", "  ")
	if err != nil {
		return err
	}
	h, err := r.writer.Blob(r.derivedText(append(b, '\n')))
	if err != nil {
		return err
	}
	return r.editor.Set(memory.ProjectPath, filemode.Regular, h)
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
// root and one or two levels down.
func buildPortrait(repo *gitstore.Repo, tree gitstore.Hash) (*Project, error) {
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
		if e.Kind == gitstore.KindFile && isPortraitInput(e.Path) {
			inputs = append(inputs, e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	read := func(e gitstore.Entry) []byte {
		if isSecretName(path.Base(e.Path)) {
			return nil
		}
		b, err := repo.BlobBytes(e.Hash, 1<<20)
		if err != nil {
			return nil
		}
		return b
	}
	for _, e := range inputs {
		dir := path.Dir(e.Path)
		if dir == "." {
			dir = ""
		}
		b := read(e)
		if b == nil {
			continue
		}
		base := path.Base(e.Path)
		switch {
		case strings.HasPrefix(e.Path, ".github/workflows/") || strings.HasPrefix(e.Path, ".circleci/") || portraitFiles[base] == "ci":
			pr.CI = append(pr.CI, e.Path)
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
				continue
			}
			pr.Packages = append(pr.Packages, Package{Path: dir, Manager: "npm", Name: pj.Name, Version: pj.Version, Description: pj.Description})
			for _, k := range sortedKeys(pj.Scripts) {
				pr.Scripts = append(pr.Scripts, Script{Name: k, Command: pj.Scripts[k], Source: e.Path})
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
				continue
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
				continue
			}
			p := py.Project
			if p.Name == "" {
				p.Name, p.Version, p.Description = py.Tool.Poetry.Name, py.Tool.Poetry.Version, py.Tool.Poetry.Description
				p.Scripts = py.Tool.Poetry.Scripts
				for _, k := range sortedKeys(py.Tool.Poetry.Dependencies) {
					p.Dependencies = append(p.Dependencies, k)
				}
			}
			pr.Packages = append(pr.Packages, Package{Path: dir, Manager: "python", Name: p.Name, Version: p.Version, Description: p.Description})
			for _, d := range p.Dependencies {
				pr.Dependencies["python"] = append(pr.Dependencies["python"], reqName(d))
			}
			for _, k := range sortedKeys(p.Scripts) {
				pr.Scripts = append(pr.Scripts, Script{Name: k, Command: p.Scripts[k], Source: e.Path})
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
					pr.Scripts = append(pr.Scripts, Script{Name: k, Source: e.Path})
				}
			}
		case base == "Gemfile":
			for _, m := range reGem.FindAllSubmatch(b, -1) {
				pr.Dependencies["bundler"] = append(pr.Dependencies["bundler"], string(m[1]))
			}
		case base == "pom.xml":
			pkg := Package{Path: dir, Manager: "maven"}
			if m := reMavenArtifact.FindSubmatch(b); m != nil {
				pkg.Name = string(m[1])
			}
			if m := reMavenVersion.FindSubmatch(b); m != nil {
				pkg.Version = string(m[1])
			}
			pr.Packages = append(pr.Packages, pkg)
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
			pkg := Package{Path: dir, Manager: "mix"}
			if m := reMixApp.FindSubmatch(b); m != nil {
				pkg.Name = string(m[1])
			}
			if m := reMixVersion.FindSubmatch(b); m != nil {
				pkg.Version = string(m[1])
			}
			pr.Packages = append(pr.Packages, pkg)
		case base == "Makefile" && dir == "":
			for _, m := range reMakeTarget.FindAllSubmatch(b, -1) {
				pr.Scripts = append(pr.Scripts, Script{Name: "make " + string(m[1]), Source: e.Path})
			}
		case base == "Dockerfile":
			for _, m := range reDockerFrom.FindAllSubmatch(b, -1) {
				pr.Docker = append(pr.Docker, e.Path+": "+string(m[1]))
			}
		case portraitFiles[base] == "readme" && dir == "":
			if pr.Description == "" {
				pr.Description = firstParagraph(string(b), 500)
			}
		}
	}
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
		pr.Name = "(unnamed)"
	}
	if len(pr.Scripts) > 100 {
		pr.Scripts = pr.Scripts[:100]
	}
	return pr, nil
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

func firstParagraph(s string, max int) string {
	p := proseOf(s)
	if rs := []rune(p); len(rs) > max {
		p = string(rs[:max-1]) + "…"
	}
	return p
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
