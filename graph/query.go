package graph

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// Node is an entity with its neighbours.
type Node struct {
	Entity memory.Entity `json:"entity"`
	Path   string        `json:"path,omitempty"` // the file that owns it
	Out    []Link        `json:"out"`            // edges from it
	In     []Link        `json:"in"`             // edges to it
	// Linked are a file's strongest neighbours in the file graph (imports
	// and references by name, weighted), both ways: "uses" a file it
	// imports or names a definition of, "used-by" the reverse. Rank is the
	// file's global PageRank (mean 1). Both need the graph cache.
	Linked   []Link  `json:"linked,omitempty"`
	Rank     float64 `json:"rank,omitempty"`
	Resolved bool    `json:"-"`
}

// Link is one edge seen from a node.
type Link struct {
	Kind   string  `json:"kind"`
	ID     string  `json:"id"`
	Raw    string  `json:"raw,omitempty"`
	Weight float64 `json:"weight,omitempty"`
}

// maxLinked is how many graph neighbours Find lists per direction.
const maxLinked = 8

// Find looks name up among the entities of a memory tree: an exact id, a
// file path, a qualified or plain symbol name, or a directory. It answers
// from the graph cache of the memory commit (building it when missing:
// once per commit, and from the previous commit's cache when memory moved
// a little); without a cache (a memory value that is no commit) it scans
// the records and resolves imports against the source tree memory
// describes, as the cache does.
func Find(repo *gitstore.Repo, mem *memref.Memory, name string, limit int) ([]Node, error) {
	if !mem.Commit.IsZero() {
		for attempt := 0; attempt < 2; attempt++ {
			g, err := Open(context.Background(), repo, mem)
			if err != nil {
				break
			}
			nodes, err := g.Find(name, limit)
			if err == nil {
				g.link(nodes)
				var es []entry
				if es, err = g.c.entries(); err == nil {
					cg := &callGraph{es: es, read: recordReader(repo, mem.Tree)}
					cg.link(nodes)
				}
			}
			g.Close()
			if err == nil {
				return nodes, nil
			}
			// A section Open does not read was damaged: build it again.
			if Remove(repo, mem) != nil {
				break
			}
		}
	}
	return findScan(repo, mem, name, limit)
}

// findScan is Find over the records themselves.
func findScan(repo *gitstore.Repo, mem *memref.Memory, name string, limit int) ([]Node, error) {
	refs, err := memref.Records(repo, mem.Tree)
	if err != nil {
		return nil, err
	}
	res := NewResolver(repo, gitstore.ParseHash(mem.Manifest.SourceTree))
	want := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(name, "file:"), "sym:"), "dir:")
	dirWanted := strings.TrimSuffix(want, "/")
	nodes := newNodeSet()
	type imp struct{ from, to, raw string }
	var imports []imp
	var dirNode *Node
	es := make([]entry, 0, len(refs))
	for _, ref := range refs {
		f, err := memref.DecodeRecord(repo, ref.Blob, ref.Path)
		if err != nil {
			return nil, err
		}
		es = append(es, entryOf(ref.Path, f, nil))
		for _, e := range f.Entities {
			if matches(e, name, want) {
				nodes.add(e, ref.Path)
			}
		}
		dir := ref.Path[:max(strings.LastIndexByte(ref.Path, '/'), 0)]
		if dirWanted != "" && dir == dirWanted {
			if dirNode == nil {
				dirNode = nodes.add(memory.Entity{ID: "dir:" + dir, Kind: "directory", Name: dir}, "")
			}
			dirNode.Out = append(dirNode.Out, Link{Kind: "contains", ID: "file:" + ref.Path})
		}
		for _, e := range f.Edges {
			to := e.To
			if e.Kind == "imports" && to == "" {
				to = res.Resolve(ref.Path, f, e.Raw)
				if to == "" {
					continue
				}
				imports = append(imports, imp{e.From, to, e.Raw})
			}
			if n, ok := nodes.byID[e.From]; ok && e.Kind != "contains" {
				n.Out = append(n.Out, Link{Kind: e.Kind, ID: to, Raw: e.Raw})
			}
		}
	}
	// Incoming edges: imports naming a found file or directory, and
	// "defines" from the owning file.
	for _, n := range nodes.order {
		id := n.Entity.ID
		for _, im := range imports {
			if im.to == id || (n.Entity.Kind == "file" && im.to == "dir:"+dirOf(n.Entity.Name)) {
				n.In = append(n.In, Link{Kind: "imported-by", ID: im.from, Raw: im.raw})
			}
		}
		if n.Path != "" && n.Entity.Kind != "file" {
			n.In = append(n.In, Link{Kind: "defined-in", ID: "file:" + n.Path})
		}
	}
	out := nodes.ranked(want, limit)
	sort.Slice(es, func(i, j int) bool { return es[i].path < es[j].path })
	cg := &callGraph{es: es, read: recordReader(repo, mem.Tree)}
	cg.link(out)
	return out, nil
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func matches(e memory.Entity, name, want string) bool {
	if e.ID == name || e.Name == want {
		return true
	}
	for _, a := range e.Aliases {
		if a == want {
			return true
		}
	}
	return false
}

// rank orders exact id and qualified-name matches before alias matches.
func rank(n Node, want string) int {
	switch {
	case n.Entity.Kind == "directory":
		return 0
	case n.Entity.Name == want:
		return 1
	}
	return 2
}

// Find answers Find from the cache: the same walk over the files in path
// order as findScan, over the cached blocks (imports already resolved).
func (g *Graph) Find(name string, limit int) ([]Node, error) {
	boff, bdata, err := g.c.rows(secBlocks, 1)
	if err != nil {
		return nil, err
	}
	want := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(name, "file:"), "sym:"), "dir:")
	dirWanted := strings.TrimSuffix(want, "/")
	idLike := strings.Contains(name, ":")
	nodes := newNodeSet()
	type imp struct {
		file    int
		from    ref
		to, raw string
	}
	var imports []imp
	var dirNode *Node
	var d decodedBlock
	for i := 0; i < g.n; i++ {
		p := g.paths.at(i)
		if err := d.parse(bdata[boff[i]:boff[i+1]]); err != nil {
			return nil, err
		}
		matched := false
		for k := range d.ents {
			e := &d.ents[k]
			hit := e.name == want || idLike && e.id.is(p, name)
			for _, a := range e.aliases {
				hit = hit || a == want
			}
			if hit {
				nodes.add(e.entity(p), strings.Clone(p))
				matched = true
			}
		}
		dir := p[:max(strings.LastIndexByte(p, '/'), 0)]
		if dirWanted != "" && dir == dirWanted {
			if dirNode == nil {
				dirNode = nodes.add(memory.Entity{ID: "dir:" + strings.Clone(dir), Kind: "directory", Name: strings.Clone(dir)}, "")
			}
			dirNode.Out = append(dirNode.Out, Link{Kind: "contains", ID: "file:" + strings.Clone(p)})
		}
		for _, e := range d.edges {
			to := e.to
			if e.kind == "imports" {
				ts := to.s
				if to.tag != 0 {
					ts = to.str(p)
				}
				if ts == "" {
					continue
				}
				imports = append(imports, imp{i, e.from, ts, e.raw})
			}
			if e.kind == "contains" || !matched && e.from.tag != 0 || len(nodes.order) == 0 {
				continue
			}
			if n, ok := nodes.byID[e.from.str(p)]; ok {
				n.Out = append(n.Out, Link{Kind: strings.Clone(e.kind), ID: strings.Clone(to.str(p)), Raw: strings.Clone(e.raw)})
			}
		}
	}
	for _, n := range nodes.order {
		id := n.Entity.ID
		dirID := ""
		if n.Entity.Kind == "file" {
			dirID = "dir:" + dirOf(n.Entity.Name)
		}
		for _, im := range imports {
			if im.to == id || dirID != "" && im.to == dirID {
				n.In = append(n.In, Link{Kind: "imported-by", ID: strings.Clone(im.from.str(g.paths.at(im.file))), Raw: strings.Clone(im.raw)})
			}
		}
		if n.Path != "" && n.Entity.Kind != "file" {
			n.In = append(n.In, Link{Kind: "defined-in", ID: "file:" + n.Path})
		}
	}
	return nodes.ranked(want, limit), nil
}

// link fills the Linked and Rank of file nodes from the file graph.
func (g *Graph) link(nodes []Node) {
	for k := range nodes {
		n := &nodes[k]
		if n.Entity.Kind != "file" {
			continue
		}
		i := g.File(n.Entity.Name)
		if i < 0 {
			continue
		}
		n.Rank = math.Round(g.Rank(i)*1000) / 1000
		var uses, usedBy []Neighbor
		for _, nb := range g.Neighbors(i) {
			if nb.Out {
				uses = append(uses, nb)
			} else {
				usedBy = append(usedBy, nb)
			}
		}
		for _, side := range []struct {
			kind string
			nbs  []Neighbor
		}{{"uses", uses}, {"used-by", usedBy}} {
			sort.SliceStable(side.nbs, func(a, b int) bool { return side.nbs[a].Weight > side.nbs[b].Weight })
			if len(side.nbs) > maxLinked {
				side.nbs = side.nbs[:maxLinked]
			}
			for _, nb := range side.nbs {
				n.Linked = append(n.Linked, Link{Kind: side.kind, ID: "file:" + g.Path(nb.File), Weight: math.Round(nb.Weight*1000) / 1000})
			}
		}
	}
}

// nodeSet holds the nodes an answer finds, once each, in the order first
// found.
type nodeSet struct {
	byID  map[string]*Node
	order []*Node
}

func newNodeSet() *nodeSet { return &nodeSet{byID: map[string]*Node{}} }

// add returns the node of e, making it (owned by the file owner) when new.
func (s *nodeSet) add(e memory.Entity, owner string) *Node {
	if n, ok := s.byID[e.ID]; ok {
		return n
	}
	n := &Node{Entity: e, Path: owner}
	s.byID[e.ID] = n
	s.order = append(s.order, n)
	return n
}

// ranked is the nodes, best match for want first (ties in the order
// found), at most limit when limit > 0.
func (s *nodeSet) ranked(want string, limit int) []Node {
	out := make([]Node, 0, len(s.order))
	for _, n := range s.order {
		out = append(out, *n)
	}
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i], want) < rank(out[j], want) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
