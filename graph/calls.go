package graph

import (
	"sort"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/text"
)

// Callers and callees of a symbol, as far as names tell them. The
// sectioner knows which lines are one function's, so a section that names
// a symbol defined elsewhere is a likely caller of it, and a symbol a
// section names is a likely callee. The same rules as the file graph's
// reference edges hold (a name defined in more than maxDefiners files
// says nothing; code does not call its tests; only languages that can
// call each other by name), and the lists are bounded: graph NAME answers
// a person or an agent, not a call-graph analysis.

const (
	// maxCallLinks bounds each list of a symbol.
	maxCallLinks = 12
	// maxCallerFiles bounds the records read to find callers.
	maxCallerFiles = 48
	// maxCallNodes is how many found symbols get the lists.
	maxCallNodes = 5
)

// callable are the entity kinds a use of is a call; a use of any other
// definition (a type, a constant) is a "uses" link.
var callable = map[string]bool{"function": true, "method": true, "constructor": true, "macro": true}

// useKinds names the links of a use of a definition of kind k, seen from
// the user and from the definition.
func useKinds(k string) (string, string) {
	if callable[k] {
		return "calls", "called-by"
	}
	return "uses", "used-by"
}

// readRecord reads the record of one source path.
type readRecord func(p string) (*memory.File, error)

// callGraph answers call questions over the entries of one memory tree.
type callGraph struct {
	es      []entry
	read    readRecord
	d       decodedBlock
	definer map[uint32][]int32 // name hash -> files defining it (built on first use)
}

func (c *callGraph) file(p string) int {
	i := sort.Search(len(c.es), func(i int) bool { return c.es[i].path >= p })
	if i < len(c.es) && c.es[i].path == p {
		return i
	}
	return -1
}

func (c *callGraph) lang(i int) string {
	if c.d.parse(c.es[i].block) != nil {
		return ""
	}
	return strings.Clone(c.d.head.lang)
}

func (c *callGraph) definers(h uint32) []int32 {
	if c.definer == nil {
		c.definer = map[uint32][]int32{}
		for i, e := range c.es {
			for _, x := range e.defs {
				if ds := c.definer[x]; len(ds) <= maxDefiners {
					c.definer[x] = append(ds, int32(i))
				}
			}
		}
	}
	return c.definer[h]
}

func hasHash(xs []uint32, h uint32) bool {
	k := sort.Search(len(xs), func(i int) bool { return xs[i] >= h })
	return k < len(xs) && xs[k] == h
}

// plainName is the name a reference to entity e uses (Get of Store.Get).
func plainName(e memory.Entity) string {
	name := e.Name
	if len(e.Aliases) > 0 {
		name = e.Aliases[0]
	}
	if i := strings.LastIndexAny(name, ".:#/"); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// sectionID is the entity id of a section of file p: its symbol, or the
// file for a section that defines nothing (a preamble, a script's body).
func sectionID(p string, f *memory.File, s memory.Section) string {
	if f.Kind == "code" && s.Name != "" && s.Symbol != "preamble" && s.Symbol != "file" {
		return "sym:" + p + "#" + s.Anchor
	}
	return "file:" + p
}

// link adds "calls" and "called-by" links (for a type or a constant,
// "uses" and "used-by") to the symbol nodes found.
func (c *callGraph) link(nodes []Node) {
	done := 0
	for k := range nodes {
		n := &nodes[k]
		if !refDefinitions[n.Entity.Kind] || n.Path == "" || n.Entity.Anchor == "" || done == maxCallNodes {
			continue
		}
		i := c.file(n.Path)
		if i < 0 {
			continue
		}
		done++
		f, err := c.read(n.Path)
		if err != nil || f == nil {
			continue
		}
		var own *memory.Section
		for j := range f.Sections {
			if f.Sections[j].Anchor == n.Entity.Anchor {
				own = &f.Sections[j]
				break
			}
		}
		if own == nil {
			continue
		}
		lang, test := c.lang(i), IsTestPath(n.Path)
		n.Out = append(n.Out, c.callees(i, lang, test, own, n.Entity.ID)...)
		_, by := useKinds(n.Entity.Kind)
		n.In = append(n.In, c.callers(i, lang, test, plainName(n.Entity), n.Entity.ID, by)...)
	}
}

// callees lists the symbols section own of file i names, in the order it
// first names them.
func (c *callGraph) callees(i int, lang string, test bool, own *memory.Section, self string) []Link {
	var out []Link
	seen := map[string]bool{}
	text.Words(own.Content, func(w string) {
		if len(out) == maxCallLinks || seen[w] || !refName(w) {
			return
		}
		seen[w] = true
		ds := c.definers(nameHash(w))
		if len(ds) == 0 || len(ds) > maxDefiners {
			return
		}
		for _, j := range ds {
			q := c.es[j].path
			if IsTestPath(q) && !test || int(j) != i && !mayReference(lang, c.lang(int(j))) {
				continue
			}
			if c.d.parse(c.es[j].block) != nil {
				continue
			}
			for e := range c.d.ents {
				re := &c.d.ents[e]
				ent := memory.Entity{Name: re.name, Aliases: re.aliases, Kind: re.kind}
				if !refDefinitions[re.kind] || plainName(ent) != w {
					continue
				}
				id := re.id.str(q)
				if id == self || seen["id:"+id] || len(out) == maxCallLinks {
					continue
				}
				seen["id:"+id] = true
				kind, _ := useKinds(re.kind)
				out = append(out, Link{Kind: kind, ID: strings.Clone(id)})
			}
		}
	})
	return out
}

// callers lists the sections that name the symbol self of file i, by name:
// in files that name it (the reference arrays say which without reading
// them), then their records for the sections.
func (c *callGraph) callers(i int, lang string, test bool, name, self, kind string) []Link {
	if !refName(name) || strings.HasPrefix(name, "__") {
		return nil
	}
	h := nameHash(name)
	if len(c.definers(h)) > maxDefiners {
		return nil // too common to say who calls which
	}
	var out []Link
	read := 0
	for j := range c.es {
		if len(out) == maxCallLinks || read == maxCallerFiles {
			break
		}
		if !hasHash(c.es[j].refs, h) {
			continue
		}
		q := c.es[j].path
		if test && !IsTestPath(q) || j != i && !mayReference(c.lang(j), lang) {
			continue
		}
		read++
		f, err := c.read(q)
		if err != nil || f == nil {
			continue
		}
		for _, s := range f.Sections {
			id := sectionID(q, f, s)
			if id == self || len(out) == maxCallLinks {
				continue
			}
			named := false
			text.Words(s.Content, func(w string) { named = named || w == name })
			if named {
				out = append(out, Link{Kind: kind, ID: id})
			}
		}
	}
	return out
}

// recordReader reads records of one memory tree.
func recordReader(repo *gitstore.Repo, tree gitstore.Hash) readRecord {
	return func(p string) (*memory.File, error) {
		f, _, err := memref.Record(repo, tree, p)
		return f, err
	}
}
