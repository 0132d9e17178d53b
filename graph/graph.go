// Package graph is the project graph: entities (files, symbols,
// directories, external packages) and edges (contains, defines, imports).
// Records store imports as written, so a record depends only on its own
// file; resolution against the source tree happens here, when the graph is
// read, and so always reflects the tree memory describes.
package graph

import (
	"path"
	"strings"
	"sync"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/lazyre"
	"github.com/konteks/git-konteks/memory"
)

// Preamble returns the content of a record's preamble section (imports,
// package clause), or the whole content for single-section files.
func Preamble(f *memory.File) string {
	for _, s := range f.Sections {
		if s.Symbol == "preamble" {
			return s.Content
		}
	}
	if len(f.Sections) == 1 {
		return f.Sections[0].Content
	}
	return ""
}

var (
	rePyImport    = lazyre.New(`(?m)^\s*(?:from\s+(\.*[\w.]*)\s+import\b|import\s+([\w.]+(?:\s*,\s*[\w.]+)*))`)
	reJSImport    = lazyre.New(`(?m)(?:^\s*import\s+(?:[^'"]*?\s+from\s+)?|^\s*export\s+[^'"]*?\s+from\s+|\brequire\(\s*|\bimport\(\s*)['"]([^'"]+)['"]`)
	reJavaImport  = lazyre.New(`(?m)^\s*import\s+(?:static\s+)?([\w.]+?)(?:\.\*)?\s*;?\s*$`)
	reJavaPackage = lazyre.New(`(?m)^\s*package\s+([\w.]+)`)
	reRustUse     = lazyre.New(`(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+((?:crate|self|super)(?:::\w+)+)`)
	reRustMod     = lazyre.New(`(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;`)
	reCInclude    = lazyre.New(`(?m)^\s*#\s*include\s+"([^"]+)"`)
	// GoModule finds the module path in a go.mod file.
	GoModule = lazyre.New(`(?m)^module\s+"?([^\s"]+)`)
)

// Imports lists the imports a code file names, as written.
func Imports(f *memory.File) []string {
	pre := Preamble(f)
	var out []string
	switch f.Language {
	case "Go":
		out = goImports(pre)
	case "Python":
		for _, m := range rePyImport.FindAllStringSubmatch(pre, -1) {
			if m[1] != "" {
				out = append(out, m[1])
				continue
			}
			for _, x := range strings.Split(m[2], ",") {
				out = append(out, strings.TrimSpace(x))
			}
		}
	case "JavaScript", "TypeScript", "TSX", "JSX", "Vue", "Svelte":
		for _, m := range reJSImport.FindAllStringSubmatch(pre, -1) {
			out = append(out, m[1])
		}
	case "Java", "Kotlin", "Scala":
		for _, m := range reJavaImport.FindAllStringSubmatch(pre, -1) {
			out = append(out, m[1])
		}
	case "Rust":
		for _, m := range reRustUse.FindAllStringSubmatch(pre, -1) {
			out = append(out, m[1])
		}
		for _, m := range reRustMod.FindAllStringSubmatch(pre, -1) {
			out = append(out, "mod:"+m[1])
		}
	case "C", "C++", "Objective-C":
		for _, m := range reCInclude.FindAllStringSubmatch(pre, -1) {
			out = append(out, m[1])
		}
	}
	if len(out) > 500 {
		out = out[:500]
	}
	return out
}

// Resolver answers "does this path exist in the source tree" for import
// resolution, safely from many workers, caching answers.
type Resolver struct {
	repo *gitstore.Repo
	tree gitstore.Hash

	mu     sync.Mutex
	exists map[string]int8 // 1 file, 2 dir, -1 none
	gomods map[string]string
}

// NewResolver resolves imports against the source tree tree.
func NewResolver(repo *gitstore.Repo, tree gitstore.Hash) *Resolver {
	return &Resolver{repo: repo, tree: tree, exists: map[string]int8{}, gomods: map[string]string{}}
}

func (r *Resolver) kind(p string) int8 {
	p = path.Clean(p)
	if p == "." || p == "" || strings.HasPrefix(p, "../") || p == ".." {
		return -1
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if k, ok := r.exists[p]; ok {
		return k
	}
	_, isTree, ok, err := r.repo.Lookup(r.tree, p)
	var k int8 = -1
	switch {
	case err != nil || !ok:
	case isTree:
		k = 2
	default:
		k = 1
	}
	r.exists[p] = k
	return k
}

func (r *Resolver) file(p string) bool { return r.kind(p) == 1 }
func (r *Resolver) dir(p string) bool  { return r.kind(p) == 2 }

// goModule finds the module path and directory of the go.mod governing dir.
func (r *Resolver) goModule(dir string) (mod, modDir string) {
	for d := dir; ; d = path.Dir(d) {
		if d == "." {
			d = ""
		}
		r.mu.Lock()
		m, ok := r.gomods[d]
		r.mu.Unlock()
		if !ok {
			m = ""
			if h, _, found, err := r.repo.Lookup(r.tree, path.Join(d, "go.mod")); err == nil && found {
				if b, err := r.repo.BlobBytes(h, 1<<20); err == nil {
					if mm := GoModule.FindSubmatch(b); mm != nil {
						m = string(mm[1])
					}
				}
			}
			r.mu.Lock()
			r.gomods[d] = m
			r.mu.Unlock()
		}
		if m != "" {
			return m, d
		}
		if d == "" {
			return "", ""
		}
	}
}

// Resolve maps one import of file p to an entity id: "file:<path>" or
// "dir:<path>" inside the repository, "ext:<name>" outside it.
func (r *Resolver) Resolve(p string, f *memory.File, imp string) string {
	dir := path.Dir(p)
	if dir == "." {
		dir = ""
	}
	join := func(parts ...string) string { return path.Clean(path.Join(parts...)) }
	switch f.Language {
	case "Go":
		mod, modDir := r.goModule(dir)
		switch {
		case mod != "" && (imp == mod || strings.HasPrefix(imp, mod+"/")):
			if d := join(modDir, strings.TrimPrefix(strings.TrimPrefix(imp, mod), "/")); r.dir(d) {
				return "dir:" + d
			}
		case mod == "std" || mod == "cmd":
			// The Go toolchain's own tree: import paths are directories.
			if d := join(modDir, imp); r.dir(d) {
				return "dir:" + d
			}
			if d := join(modDir, "vendor", imp); r.dir(d) {
				return "dir:" + d
			}
		}
		return "ext:" + imp
	case "Python":
		rel := strings.TrimLeft(imp, ".")
		dots := len(imp) - len(rel)
		sub := strings.ReplaceAll(rel, ".", "/")
		var bases []string
		if dots > 0 {
			b := dir
			for i := 1; i < dots; i++ {
				b = path.Dir(b)
			}
			bases = []string{b}
		} else {
			bases = []string{"", "src", dir}
		}
		for _, b := range bases {
			if sub == "" {
				if r.file(join(b, "__init__.py")) {
					return "file:" + join(b, "__init__.py")
				}
				continue
			}
			if c := join(b, sub+".py"); r.file(c) {
				return "file:" + c
			}
			if c := join(b, sub, "__init__.py"); r.file(c) {
				return "file:" + c
			}
			if c := join(b, sub); r.dir(c) {
				return "dir:" + c
			}
		}
		if dots > 0 {
			return ""
		}
		return "ext:" + strings.SplitN(rel, ".", 2)[0]
	case "JavaScript", "TypeScript", "TSX", "JSX", "Vue", "Svelte":
		if !strings.HasPrefix(imp, ".") {
			parts := strings.Split(imp, "/")
			name := parts[0]
			if strings.HasPrefix(name, "@") && len(parts) > 1 {
				name += "/" + parts[1]
			}
			return "ext:" + name
		}
		base := join(dir, imp)
		for _, ext := range []string{"", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte", "/index.ts", "/index.tsx", "/index.js", "/index.jsx"} {
			if r.file(base + ext) {
				return "file:" + base + ext
			}
		}
		return ""
	case "Java", "Kotlin", "Scala":
		// The source root is the file's path minus its package's path.
		root := ""
		if m := reJavaPackage.FindStringSubmatch(Preamble(f)); m != nil {
			pkgPath := strings.ReplaceAll(m[1], ".", "/")
			if strings.HasSuffix(dir, pkgPath) {
				root = strings.TrimSuffix(strings.TrimSuffix(dir, pkgPath), "/")
			}
		}
		rel := strings.ReplaceAll(imp, ".", "/")
		for _, ext := range []string{".java", ".kt", ".scala"} {
			if c := join(root, rel+ext); r.file(c) {
				return "file:" + c
			}
		}
		if c := join(root, rel); r.dir(c) {
			return "dir:" + c
		}
		return "ext:" + imp
	case "Rust":
		if m, ok := strings.CutPrefix(imp, "mod:"); ok {
			base := dir
			if b := path.Base(p); b != "lib.rs" && b != "main.rs" && b != "mod.rs" {
				base = join(dir, strings.TrimSuffix(b, ".rs"))
			}
			for _, c := range []string{join(base, m+".rs"), join(base, m, "mod.rs")} {
				if r.file(c) {
					return "file:" + c
				}
			}
			return ""
		}
		parts := strings.Split(imp, "::")
		if parts[0] != "crate" {
			return ""
		}
		// The crate root: the nearest src/ above the file.
		root := dir
		for root != "" && path.Base(root) != "src" {
			root = path.Dir(root)
			if root == "." {
				root = ""
			}
		}
		for n := len(parts) - 1; n >= 1; n-- {
			rel := strings.Join(parts[1:n+1], "/")
			for _, c := range []string{join(root, rel+".rs"), join(root, rel, "mod.rs")} {
				if r.file(c) {
					return "file:" + c
				}
			}
		}
		return ""
	case "C", "C++", "Objective-C":
		for _, c := range []string{join(dir, imp), join(imp), join("include", imp)} {
			if r.file(c) {
				return "file:" + c
			}
		}
		return ""
	}
	return ""
}
