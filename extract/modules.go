package extract

import (
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

// moduleDelta accumulates one run's changes to a module's counts.
type moduleDelta struct {
	files, sections int
	bytes           int64
	roles, langs    map[string]int
	entries         map[string]int // entry point path -> +1/-1
}

func moduleOf(p string) (name, dir string) {
	i := strings.IndexByte(p, '/')
	if i < 0 {
		return RootModule, ""
	}
	return p[:i], p[:i]
}

// role classifies a file for its module.
func role(p string, f *memory.File) string {
	lp := strings.ToLower(p)
	base := path.Base(lp)
	switch {
	case strings.Contains(lp, "example") || strings.HasPrefix(lp, "samples/") || strings.Contains(lp, "/samples/"):
		return "examples"
	case strings.Contains(lp, "test") || strings.HasSuffix(base, "_spec.rb") || strings.Contains(base, ".spec."):
		return "test"
	case docKinds[f.Kind] || strings.HasPrefix(lp, "docs/") || strings.Contains(lp, "/docs/") || strings.HasPrefix(base, "readme"):
		return "docs"
	case f.Kind == "json" || f.Kind == "yaml" || f.Kind == "toml" || strings.HasPrefix(base, ".") || base == "makefile" || base == "dockerfile":
		return "config"
	}
	return "source"
}

// docKinds are the record kinds of documentation formats.
var docKinds = map[string]bool{"markdown": true, "rst": true, "asciidoc": true, "org": true}

// isEntryPoint spots conventional program entry points.
func isEntryPoint(p string) bool {
	base := path.Base(p)
	switch {
	case base == "main.go" && (p == "main.go" || strings.HasPrefix(p, "cmd/") || strings.Count(p, "/") <= 2):
		return true
	case base == "__main__.py", p == "main.py", p == "manage.py", strings.HasSuffix(p, "src/main.rs"), strings.HasPrefix(p, "bin/"):
		return true
	}
	return false
}

// moduleAdd records a record's contribution (d = +1 or -1) to its area's
// module and to the module of every package (named by the portrait) that
// contains it.
func (r *run) moduleAdd(p string, f *memory.File, d int) {
	name, _ := moduleOf(p)
	r.moduleAddTo(name, p, f, d)
	for dir := range r.pkgDirs {
		if strings.HasPrefix(p, dir+"/") {
			r.moduleAddTo(dir, p, f, d)
		}
	}
}

// packageDirs lists the package directories of a portrait that get their
// own module: nested ones (a top-level package is its area's module).
func packageDirs(pr *Project) map[string]bool {
	out := map[string]bool{}
	if pr == nil {
		return out
	}
	for _, p := range pr.Packages {
		if strings.Contains(p.Path, "/") {
			out[p.Path] = true
		}
	}
	return out
}

// moduleFile is the file name of a module under modules/: the area name,
// "_root", or a package path with its slashes escaped.
func moduleFile(key string) string { return strings.ReplaceAll(key, "/", "%2F") }

func (r *run) moduleAddTo(name, p string, f *memory.File, d int) {
	md := r.modDelta[name]
	if md == nil {
		md = &moduleDelta{roles: map[string]int{}, langs: map[string]int{}, entries: map[string]int{}}
		r.modDelta[name] = md
	}
	md.files += d
	md.sections += d * len(f.Sections)
	md.bytes += int64(d) * f.Size
	md.roles[role(p, f)] += d
	if f.Language != "" {
		md.langs[f.Language] += d
	}
	if isEntryPoint(p) {
		md.entries[p] += d
	}
}

// modules applies this run's deltas to the module artifacts, and refreshes
// the abstract and packages of modules whose summary or portrait changed.
func (r *run) modules() error {
	touched := map[string]bool{}
	for name := range r.modDelta {
		touched[name] = true
	}
	for dir := range r.dirL0 {
		if dir != "" && !strings.Contains(dir, "/") {
			touched[dir] = true
		}
		if dir == "" {
			touched[RootModule] = true
		}
	}
	recount := map[string]bool{}
	if r.portraitRefreshed {
		// Package information may have moved between modules.
		entries, _, err := r.editor.List(memory.ModulesDir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			touched[strings.ReplaceAll(e.Name, "%2F", "/")] = true
		}
		// A package that appeared is counted from its records; one that
		// went away loses its module.
		now := packageDirs(r.project)
		for dir := range now {
			if !r.pkgDirs[dir] {
				recount[dir], touched[dir] = true, true
			}
		}
		for dir := range r.pkgDirs {
			if !now[dir] {
				if err := r.editor.Delete(memory.ModulesDir + "/" + moduleFile(dir)); err != nil {
					return err
				}
				delete(touched, dir)
			}
		}
	}
	for dir := range recount {
		delete(r.modDelta, dir)
		if err := r.recountModule(dir, dir); err != nil {
			return err
		}
	}
	names := sortedKeys(touched)
	for _, name := range names {
		mp := memory.ModulesDir + "/" + moduleFile(name)
		m := &Module{Name: name, Roles: map[string]int{}, Languages: map[string]int{}}
		if name != RootModule {
			m.Path = name
		}
		if h, _, ok, err := r.editor.Get(mp); err == nil && ok && !h.IsZero() && !recount[name] {
			if b, err := r.repo.BlobBytes(h, 4<<20); err == nil {
				var old Module
				if json.Unmarshal(b, &old) == nil {
					m = &old
					if m.Roles == nil {
						m.Roles = map[string]int{}
					}
					if m.Languages == nil {
						m.Languages = map[string]int{}
					}
				}
			}
		}
		if md := r.modDelta[name]; md != nil {
			m.Files += md.files
			m.Sections += md.sections
			m.Bytes += md.bytes
			for k, v := range md.roles {
				bumpInt(m.Roles, k, v)
			}
			for k, v := range md.langs {
				bumpInt(m.Languages, k, v)
			}
			eps := map[string]bool{}
			for _, e := range m.EntryPoints {
				eps[e] = true
			}
			for e, v := range md.entries {
				if v > 0 {
					eps[e] = true
				} else if v < 0 {
					delete(eps, e)
				}
			}
			m.EntryPoints = sortedKeys(eps)
		}
		if m.Files <= 0 {
			if err := r.editor.Delete(mp); err != nil {
				return err
			}
			continue
		}
		if l0, ok := r.dirL0[m.Path]; ok {
			m.Abstract = l0
		}
		m.Topics = pathTopicsOf(name)
		m.Packages = nil
		if r.project != nil {
			for _, p := range r.project.Packages {
				if p.Path == m.Path || strings.HasPrefix(p.Path, m.Path+"/") && m.Path != "" {
					m.Packages = append(m.Packages, p)
				}
			}
		}
		if err := r.writeDerivedJSON(mp, m); err != nil {
			return err
		}
	}
	return nil
}

func bumpInt(m map[string]int, k string, d int) {
	m[k] += d
	if m[k] <= 0 {
		delete(m, k)
	}
}

// recountModule counts a module's records from scratch (a package the
// portrait just found), as deltas on an empty module.
func (r *run) recountModule(key, dir string) error {
	var walk func(d string) error
	walk = func(d string) error {
		entries, ok, err := r.editor.List(filesPath(d))
		if err != nil || !ok {
			return err
		}
		for _, e := range entries {
			p := path.Join(d, e.Name)
			if e.IsDir {
				if err := walk(p); err != nil {
					return err
				}
				continue
			}
			h, _, found, err := r.editor.Get(memory.FilePath(p))
			if err != nil || !found || h.IsZero() {
				continue
			}
			f, err := r.recordAt(h, p)
			if err != nil {
				return err
			}
			r.moduleAddTo(key, p, f, 1)
		}
		return nil
	}
	return walk(dir)
}

// pathTopicsOf splits a module name into topic words.
func pathTopicsOf(name string) []string {
	if name == RootModule {
		return nil
	}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(path.Base(name)), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if len(w) > 1 {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// recordAt decodes a record that may have been written in this run and
// not flushed yet.
func (r *run) recordAt(h gitstore.Hash, p string) (*memory.File, error) {
	if b, ok := r.writer.PendingObject(h); ok {
		return memory.DecodeFile(b)
	}
	return r.decodeRecord(h, p)
}
