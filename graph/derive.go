package graph

import (
	"sort"
	"strings"

	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/text"
)

// References are derived when the graph is read, as aider's repository map
// does with its tags: an identifier in file A's sections that names a
// symbol defined in file B gives A→B. A record stays a function of its own
// file (a definition elsewhere changes no record), and the tree-sitter
// sectioner is not asked for reference captures it does not have for every
// language. Names are compared by a 32-bit hash (a rare collision adds one
// spurious, weak edge); what a file defines and names is kept per file in
// the cache so that a memory commit that changes a few files recomputes
// the edges from compact arrays instead of re-reading every record.

// refDefinitions are the entity kinds a reference can name.
var refDefinitions = map[string]bool{
	"function": true, "method": true, "class": true, "type": true, "interface": true, "struct": true,
	"enum": true, "trait": true, "module": true, "constructor": true, "macro": true, "record": true,
	"protocol": true, "object": true, "const": true, "var": true, "variable": true, "union": true,
}

// minRefName is the shortest name that makes a reference: shorter ones
// (id, db, Get, New) are everywhere.
const minRefName = 4

// maxRefsPerFile bounds the distinct identifiers kept per file.
const maxRefsPerFile = 8192

// commonNames name something in nearly every project; a definition of one
// of them says little about who uses it.
var commonNames = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`self this init main test tests setup teardown String Error error string
		None True False null true false undefined nil func return const static class struct super
		value values name names data type types item items list dict args kwargs options config
		result results index count size length key keys next prev start stop close open read write
		call apply bind start run get set new add del update reset clear copy load save send recv
		Close Read Write Open Reset Start Stop Next Len Less Swap Run Get Set New Add Update Init
		String Format Print Println Printf Sprintf Errorf Fatalf Logf Helper Parallel
		__init__ __call__ __repr__ __str__ __eq__ __hash__ __enter__ __exit__ __iter__ __len__ __getattr__
		constructor toString valueOf render props state module exports require default`) {
		m[w] = true
	}
	return m
}()

// nameHash is the identity of a name in the reference graph.
func nameHash(s string) uint32 {
	h := uint32(2166136261) // FNV-1a
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// refName reports whether an identifier may make a reference.
func refName(w string) bool {
	if len(w) < minRefName || len(w) > 64 || commonNames[w] {
		return false
	}
	c := w[0]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// definedNames lists the plain names of the symbols a file defines that
// other files may refer to, hashed and sorted, without repeats.
func definedNames(f *memory.File) []uint32 {
	var out []uint32
	for _, e := range f.Entities {
		if !refDefinitions[e.Kind] {
			continue
		}
		name := e.Name
		if len(e.Aliases) > 0 {
			name = e.Aliases[0] // the plain name (Get of Store.Get)
		}
		if i := strings.LastIndexAny(name, ".:#/"); i >= 0 {
			name = name[i+1:]
		}
		if !refName(name) || strings.HasPrefix(name, "__") {
			continue
		}
		out = append(out, nameHash(name))
	}
	return sortUniq(out)
}

// namedIdents counts the identifiers a code file's sections name (each
// distinct identifier once per section: a name used in many functions
// counts more than one used many times in one). Sorted by hash.
func namedIdents(f *memory.File) (hashes []uint32, counts []uint8) {
	if f.Kind != "code" {
		return nil, nil
	}
	n := map[uint32]int{}
	seen := map[string]bool{}
	for _, s := range f.Sections {
		clear(seen)
		text.Words(s.Content, func(w string) {
			if seen[w] || !refName(w) {
				return
			}
			seen[w] = true
			h := nameHash(w)
			if _, ok := n[h]; ok || len(n) < maxRefsPerFile {
				n[h]++
			}
		})
	}
	hashes = make([]uint32, 0, len(n))
	for h := range n {
		hashes = append(hashes, h)
	}
	sort.Slice(hashes, func(i, j int) bool { return hashes[i] < hashes[j] })
	counts = make([]uint8, len(hashes))
	for i, h := range hashes {
		counts[i] = uint8(min(n[h], 255))
	}
	return hashes, counts
}

func sortUniq(xs []uint32) []uint32 {
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
