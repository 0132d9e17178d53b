package durable

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// A memory can cite the code it speaks of: a path, optionally a symbol
// (a function, type, heading) and its lines, with the blob and the
// symbol's content hash as they were when the memory was saved. Citations
// are made and checked against the code memory describes (the source
// commit of refs/konteks; HEAD before the first extraction), so a memory
// is fresh while the code it cites is unchanged, stale once that code
// changed (with the commit that changed it), and obsolete once it is gone.

// Cite is one piece of code a memory cites.
type Cite struct {
	Path   string `json:"path"`
	Symbol string `json:"symbol,omitempty"`
	Start  int    `json:"start,omitempty"` // lines, 1-based inclusive
	End    int    `json:"end,omitempty"`
	Blob   string `json:"blob"`           // the file's blob when cited
	Hash   string `json:"hash,omitempty"` // the symbol's content hash when cited
	Commit string `json:"commit,omitempty"`
}

// States of a cited memory.
const (
	Fresh    = "fresh"
	Stale    = "stale"
	Obsolete = "obsolete"
	Uncited  = "uncited"
	Expired  = "expired"
)

// Freshness is what verification says of a memory.
type Freshness struct {
	Status    string `json:"status"`
	Why       string `json:"why,omitempty"`
	ChangedIn string `json:"changed_in,omitempty"` // the commit that last changed stale code
}

// Verifier checks citations against one state of the code.
type Verifier struct {
	repo   *gitstore.Repo
	tree   gitstore.Hash // memory tree (records), zero without derived memory
	commit gitstore.Hash // the source commit citations are checked against
	src    gitstore.Hash // its tree
	recs   map[string]*memory.File
	blobs  map[string]string
	// ExpireDays retires uncited memories not confirmed (saved or
	// superseded) for this many days (0: never; konteks.memories.expire).
	ExpireDays int
	Now        time.Time
}

// NewVerifier checks against the code mem describes (HEAD when mem holds
// no derived memory). It returns nil when there is no code to check
// against (an empty repository).
func NewVerifier(repo *gitstore.Repo, mem *memref.Memory) *Verifier {
	v := &Verifier{repo: repo, recs: map[string]*memory.File{}, blobs: map[string]string{}, Now: time.Now()}
	if mem.Derived() {
		v.tree = mem.Tree
		v.commit = gitstore.ParseHash(mem.Manifest.SourceCommit)
		v.src = gitstore.ParseHash(mem.Manifest.SourceTree)
	} else if head, err := repo.Resolve("HEAD"); err == nil {
		v.commit, v.src = head.Hash, head.TreeHash
	} else {
		return nil
	}
	if n := atoiPositive(repo.ConfigValue("konteks.memories.expire")); n > 0 {
		v.ExpireDays = n
	}
	return v
}

func atoiPositive(s string) int {
	n := 0
	for _, c := range strings.TrimSpace(s) {
		if c < '0' || c > '9' || n > 1e6 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// Commit is the source commit the verifier checks against.
func (v *Verifier) Commit() gitstore.Hash { return v.commit }

func (v *Verifier) blob(p string) string {
	if b, ok := v.blobs[p]; ok {
		return b
	}
	b := ""
	if memory.ValidSourcePath(p) == nil {
		if h, isTree, ok, err := v.repo.Lookup(v.src, p); err == nil && ok && !isTree {
			b = h.String()
		}
	}
	v.blobs[p] = b
	return b
}

func (v *Verifier) record(p string) *memory.File {
	if r, ok := v.recs[p]; ok {
		return r
	}
	var r *memory.File
	if !v.tree.IsZero() {
		if f, ok, err := memref.Record(v.repo, v.tree, p); err == nil && ok {
			r = f
		}
	}
	v.recs[p] = r
	return r
}

// section finds symbol in a record: by name, qualified name, or the last
// part of a qualified name (Store.Get for Get).
func section(r *memory.File, symbol string) *memory.Section {
	if r == nil || symbol == "" {
		return nil
	}
	var loose *memory.Section
	for i := range r.Sections {
		s := &r.Sections[i]
		if s.QName == symbol || (s.QName == "" && s.Name == symbol) {
			return s
		}
		if loose == nil && (s.Name == symbol || strings.HasSuffix(s.QName, "."+symbol) || strings.HasSuffix(symbol, "."+s.Name) && strings.HasSuffix(symbol, s.QName)) {
			loose = s
		}
	}
	return loose
}

func contentHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// Cites makes citations for the paths and symbols an entry names: each
// symbol found in one of the paths' records is cited with its lines and
// content hash, each path without a symbol by its blob. Paths absent from
// the code are left out.
func (v *Verifier) Cites(paths, symbols []string) []Cite {
	if v == nil {
		return nil
	}
	var out []Cite
	for _, p := range paths {
		b := v.blob(p)
		if b == "" {
			continue
		}
		r := v.record(p)
		found := false
		for _, sym := range symbols {
			if s := section(r, sym); s != nil && len(out) < MaxList {
				out = append(out, Cite{Path: p, Symbol: sym, Start: s.StartLine, End: s.EndLine, Blob: b, Hash: contentHash(s.Content), Commit: v.commit.String()})
				found = true
			}
		}
		if !found && len(out) < MaxList {
			out = append(out, Cite{Path: p, Blob: b, Commit: v.commit.String()})
		}
	}
	return out
}

// Check says whether the code an entry cites is as it was.
func (v *Verifier) Check(e Entry) Freshness {
	if v == nil {
		return Freshness{Status: Uncited}
	}
	if len(e.Cites) == 0 {
		if v.ExpireDays > 0 && e.Type == TypeMemory && v.Now.Sub(e.Created) > time.Duration(v.ExpireDays)*24*time.Hour {
			return Freshness{Status: Expired, Why: fmt.Sprintf("cites no code and was not confirmed for %d days (konteks.memories.expire)", v.ExpireDays)}
		}
		return Freshness{Status: Uncited}
	}
	var stale []string
	changedIn := ""
	for _, c := range e.Cites {
		b := v.blob(c.Path)
		if b == "" {
			return Freshness{Status: Obsolete, Why: c.Path + " is gone"}
		}
		if b == c.Blob {
			continue
		}
		what := c.Path
		if c.Symbol != "" {
			what = c.Symbol + " in " + c.Path
			if r := v.record(c.Path); r != nil {
				s := section(r, c.Symbol)
				if s == nil {
					return Freshness{Status: Obsolete, Why: what + " is gone"}
				}
				if c.Hash != "" && contentHash(s.Content) == c.Hash {
					continue // the file changed elsewhere
				}
			}
		}
		stale = append(stale, what)
		if changedIn == "" {
			changedIn = v.lastChange(c)
		}
	}
	if len(stale) == 0 {
		return Freshness{Status: Fresh}
	}
	why := strings.Join(stale, ", ") + " changed since the memory was saved"
	if changedIn != "" {
		why += " (last in " + changedIn[:min(10, len(changedIn))] + ")"
	}
	return Freshness{Status: Stale, Why: why, ChangedIn: changedIn}
}

// lastChange is the newest commit since the citation that changed its
// path ("" when the history does not say).
func (v *Verifier) lastChange(c Cite) string {
	opt := gitstore.LogOptions{Include: []gitstore.Hash{v.commit}, Paths: []string{c.Path}, TreesOnly: true, MaxCount: 200}
	if isHex(c.Commit, 40) {
		opt.Exclude = []gitstore.Hash{gitstore.ParseHash(c.Commit)}
	}
	found := ""
	errStop := fmt.Errorf("found")
	_ = v.repo.Log(context.Background(), opt, func(lc *gitstore.LogCommit) error {
		for _, ch := range lc.Changes {
			if ch.Path == c.Path {
				found = lc.Hash.String()
				return errStop
			}
		}
		return nil
	})
	return found
}

// Recite is e with its citations made again against the current code:
// what `memories confirm` saves to supersede a stale memory.
func (v *Verifier) Recite(e Entry) Entry {
	var paths, symbols []string
	for _, c := range e.Cites {
		paths = append(paths, c.Path)
		if c.Symbol != "" {
			symbols = append(symbols, c.Symbol)
		}
	}
	e.Cites = v.Cites(dedupe(paths), dedupe(symbols))
	return e
}

// Confirm re-cites the live memory id (a prefix is enough) against the
// code memory describes and saves it again, superseding the old entry:
// what a person does after checking that a stale memory still holds. An
// uncited memory is confirmed as it is (its age starts again, for
// konteks.memories.expire).
func Confirm(repo *gitstore.Repo, id string) (Item, error) {
	items, err := LoadRef(repo)
	if err != nil {
		return Item{}, err
	}
	it, err := Find(items, id)
	if err != nil {
		return Item{}, err
	}
	if it.Type != TypeMemory || it.Status != StatusLive {
		return Item{}, fmt.Errorf("%w: %s is a %s entry, %s; only live memories are confirmed", ErrRejected, it.ID[:10], it.Type, it.Status)
	}
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil && mem == nil {
		return Item{}, err
	}
	v := NewVerifier(repo, mem)
	if v == nil {
		return Item{}, fmt.Errorf("no code to check the memory against (no commit yet)")
	}
	e := it.Entry
	e.ID, e.Author, e.Created, e.SourceCommit, e.Supersedes = "", "", time.Time{}, "", it.ID
	if len(e.Cites) > 0 {
		e = v.Recite(e)
	}
	saved, _, err := Save(repo, e)
	return saved, err
}

// Annotate links e to the paths and symbols its text names
// (LinkMentions) and, for a memory, cites that code (CiteMentions): what
// every writer of an entry does before it saves one, so an entry saved
// from the command line and one saved through the MCP server are alike.
func Annotate(repo *gitstore.Repo, e *Entry) {
	LinkMentions(repo, e)
	if e.Type == TypeMemory {
		CiteMentions(repo, e)
	}
}

// CiteMentions cites the code e's paths and symbols name, as memory
// describes it (HEAD before the first extraction).
func CiteMentions(repo *gitstore.Repo, e *Entry) {
	mem, _ := memref.Read(repo, memory.Ref)
	if v := NewVerifier(repo, mem); v != nil {
		e.Cites = v.Cites(e.Paths, e.Symbols)
	}
}
