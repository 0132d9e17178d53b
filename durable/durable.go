// Package durable keeps what agents and people decide to remember: durable
// memories, diary entries and the tombstones that forget them. Each entry
// is one small JSON file under durable/ in the memory ref, named by a
// unique id, so entries are never rewritten, extraction never touches them,
// and merging two clones' memory is a union that cannot conflict.
package durable

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/secret"
)

// Entry types.
const (
	TypeMemory    = "memory"
	TypeDiary     = "diary"
	TypeTombstone = "tombstone"
	// TypeSession is the record of an agent session (session.go).
	TypeSession = "session"
)

// Kinds of durable memory.
var Kinds = []string{"decision", "constraint", "preference", "insight", "fact", "note", "case", "command"}

// Scopes of a memory: a fact about the repository, or one person's
// preference.
const (
	ScopeRepository = "repository"
	ScopePersonal   = "personal"
)

// Areas of durable/ by entry type.
const (
	memoriesDir = memory.DurableDir + "/memories"
	diaryDir    = memory.DurableDir + "/diary"
	sessionsDir = memory.DurableDir + "/sessions"
)

// Limits on what is saved (and accepted from a peer).
const (
	MaxText    = 16 << 10
	MaxEntry   = 64 << 10
	MaxList    = 50 // tags, paths, symbols
	minLetters = 12
)

// Entry is one durable memory, diary entry or tombstone.
type Entry struct {
	ID         string   `json:"id"`
	Type       string   `json:"type"`
	Kind       string   `json:"kind,omitempty"`
	Subject    string   `json:"subject,omitempty"`
	Text       string   `json:"text,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Paths      []string `json:"paths,omitempty"`
	Symbols    []string `json:"symbols,omitempty"`
	Supersedes string   `json:"supersedes,omitempty"`
	Forgets    string   `json:"forgets,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	// Purge, on a tombstone, asks every clone that merges it to delete the
	// forgotten entry's file, not only hide it (see purge.go).
	Purge        bool      `json:"purge,omitempty"`
	Author       string    `json:"author"`
	Created      time.Time `json:"created"`
	SourceCommit string    `json:"source_commit,omitempty"` // HEAD when it was saved
	// Scope says whether a memory is a fact about the repository or one
	// person's preference (ScopeRepository, ScopePersonal; "" is a fact).
	Scope string `json:"scope,omitempty"`
	// Cites are the code a memory speaks of, as it was when it was saved
	// (verify.go checks them against the code memory describes).
	Cites []Cite `json:"cites,omitempty"`
	// Session is the key of the agent session a memory was learned in
	// (SessionRecord.Key).
	Session string `json:"session,omitempty"`
	// Record is the session record of an entry of type TypeSession.
	Record *SessionRecord `json:"record,omitempty"`
}

// Status of an entry after tombstones and supersessions are applied.
const (
	StatusLive       = "live"
	StatusForgotten  = "forgotten"
	StatusSuperseded = "superseded"
	// StatusDeclined is the status of a tombstone that is not applied: its
	// target's author declined it (peer.go).
	StatusDeclined = "declined"
)

// A decline is a tombstone whose target is another tombstone (its kind is
// TypeTombstone): it records that a clone did not accept that tombstone,
// in memory itself, so that every clone and every later push agrees on
// the outcome (a dropped tombstone would come back with the next push of
// a clone that holds it, and be dropped again by the next that does not).
// What a decline does depends on who wrote it:
//   - a decline by the forgotten entry's author voids the tombstone: the
//     entry is not forgotten (the author says they did not forget it);
//   - a decline by anyone else only stops a purge: the entry is hidden as
//     the tombstone asks, and its file is kept (the decliner's copy is not
//     deleted, so no clone's may be: memory is one union).
//
// Declines are written by merges (ScreenPeer), never by hand.

// IsDecline reports whether e is a decline of another tombstone.
func IsDecline(e Entry) bool { return e.Type == TypeTombstone && e.Kind == TypeTombstone }

// Item is an entry with its status.
type Item struct {
	Entry
	Status       string `json:"status"`
	ForgottenBy  string `json:"forgotten_by,omitempty"`
	ForgetReason string `json:"forget_reason,omitempty"`
	SupersededBy string `json:"superseded_by,omitempty"`
	// Legacy marks an entry saved by a version whose ids were random, not
	// bound to the entry's content and author (see BoundID): it is loaded
	// and shown as before, but nothing proves its author wrote it.
	Legacy bool `json:"legacy_id,omitempty"`
	// PurgeDeclined, on a purge tombstone, says that a clone declined the
	// purge: the entry is hidden at most, its file is kept.
	PurgeDeclined bool   `json:"purge_declined,omitempty"`
	Path          string `json:"-"` // tree path in the memory ref
}

// Label names an entry in a listing: its kind, or "diary" with the
// entry's subject for a diary entry.
func (it Item) Label() string {
	if it.Type != TypeDiary {
		return it.Kind
	}
	if it.Subject != "" {
		return "diary (" + it.Subject + ")"
	}
	return "diary"
}

// newID makes a unique id: 8 random hex digits, then 12 hex digits of
// milliseconds (collisions across clones are negligible). The random part
// comes first so that short prefixes, as people type them, are unique even
// for entries saved in the same moment.
func newID(now time.Time) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return fmt.Sprintf("%s%012x", hex.EncodeToString(b[:]), now.UnixMilli())
}

// BoundIDLen is the length of an id bound to its entry (BoundID); older
// entries have 20-digit random ids (newID).
const BoundIDLen = 24

// BoundID is the id of an entry bound to its content and author: the
// first 24 hex digits of the SHA-256 of the entry (without its id) as
// stored. Changing any field (text, author, created, target) changes the
// id, and so the shard directory the entry lives in: a peer cannot send
// an entry with our id and other content (a twin), or move ours.
func BoundID(e Entry) string {
	e.ID = ""
	b, err := json.Marshal(e)
	if err != nil {
		panic(err) // an Entry always marshals
	}
	sum := sha256.Sum256(append([]byte("konteks durable entry\x00"), b...))
	return hex.EncodeToString(sum[:])[:BoundIDLen]
}

func validID(id string) bool {
	if len(id) != 20 && len(id) != BoundIDLen {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// treePath is where an entry lives: sharded by the id's first two digits
// (random, so shards stay even).
func treePath(e Entry) string {
	dir := memoriesDir
	if e.Type == TypeDiary || (e.Type == TypeTombstone && e.Kind == TypeDiary) {
		dir = diaryDir
	}
	if e.Type == TypeSession || (e.Type == TypeTombstone && e.Kind == TypeSession) {
		dir = sessionsDir
	}
	return dir + "/" + e.ID[:2] + "/" + e.ID
}

// Decode parses and validates one entry read from a memory tree.
func Decode(b []byte) (Entry, error) {
	var e Entry
	if len(b) > MaxEntry {
		return e, fmt.Errorf("durable entry of %d bytes is over the %d limit", len(b), MaxEntry)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&e); err != nil {
		return e, fmt.Errorf("durable entry: %w", err)
	}
	if !validID(e.ID) {
		return e, fmt.Errorf("durable entry: bad id %q", e.ID)
	}
	switch e.Type {
	case TypeMemory, TypeDiary, TypeTombstone, TypeSession:
	default:
		return e, fmt.Errorf("durable entry %s: unknown type %q", e.ID, e.Type)
	}
	if len(e.Text) > MaxText || len(e.Tags) > MaxList || len(e.Paths) > MaxList || len(e.Symbols) > MaxList || len(e.Cites) > MaxList {
		return e, fmt.Errorf("durable entry %s: over size limits", e.ID)
	}
	if err := checkRecord(e); err != nil {
		return e, fmt.Errorf("durable entry %s: %w", e.ID, err)
	}
	if e.Type == TypeTombstone && !validID(e.Forgets) {
		return e, fmt.Errorf("durable entry %s: tombstone without a valid target", e.ID)
	}
	if len(e.ID) == BoundIDLen && BoundID(e) != e.ID {
		return e, fmt.Errorf("durable entry %s: its id does not match its content (altered or forged)", e.ID)
	}
	return e, nil
}

// Load reads every durable entry of a memory tree. An entry that does not
// decode is reported in bad (path: error) and left out; a peer's broken
// entry must not hide the others.
func Load(repo *gitstore.Repo, tree gitstore.Hash) (items []Item, bad []string, err error) {
	if tree.IsZero() {
		return nil, nil, nil
	}
	h, err := repo.Subtree(tree, memory.DurableDir)
	if err != nil || h.IsZero() {
		return nil, nil, err
	}
	var entries []Entry
	var paths []string
	err = walkEntries(repo, h, memory.DurableDir, &bad, func(rel, p string, b []byte) {
		if strings.HasPrefix(rel, "skills/") {
			// Skills are their own kind of entry (skills.go), checked here
			// too so that a peer's broken skill is caught like any entry.
			if _, err := decodeSkill(b); err != nil {
				bad = append(bad, p+": "+err.Error())
			}
			return
		}
		en, err := Decode(b)
		if err != nil {
			bad = append(bad, p+": "+err.Error())
			return
		}
		if want := treePath(en); p != want {
			// The shard derives from the id: an entry elsewhere is a twin
			// meant to shadow the one at its real place.
			bad = append(bad, p+": entry "+en.ID+" belongs at "+want)
			return
		}
		entries = append(entries, en)
		paths = append(paths, p)
	})
	if err != nil {
		return nil, bad, err
	}
	return resolve(entries, paths), bad, nil
}

// walkEntries calls fn with the path below dir (rel), the path in the
// memory tree (p) and the bytes of every file in the tree h; what is not
// a file or cannot be read is listed in bad with its path.
func walkEntries(repo *gitstore.Repo, h gitstore.Hash, dir string, bad *[]string, fn func(rel, p string, b []byte)) error {
	return repo.WalkTree(h, nil, func(e gitstore.Entry) error {
		p := dir + "/" + e.Path
		if e.Kind != gitstore.KindFile {
			*bad = append(*bad, p+": not a file")
			return nil
		}
		b, err := repo.BlobBytes(e.Hash, MaxEntry)
		if err != nil {
			*bad = append(*bad, p+": "+err.Error())
			return nil
		}
		fn(e.Path, p, b)
		return nil
	})
}

// resolve applies tombstones and supersessions and sorts by creation. A
// tombstone forgets only an entry of its own author (SameAuthor): one
// whose author differs is not applied, nor is one that entry's author
// declined.
func resolve(entries []Entry, paths []string) []Item {
	tombs := map[string][]Entry{}
	declines := map[string][]Entry{} // tombstone id -> its declines
	superseded := map[string]string{}
	byID := map[string]Entry{}
	for _, e := range entries {
		byID[e.ID] = e
		switch {
		case IsDecline(e):
			declines[e.Forgets] = append(declines[e.Forgets], e)
		case e.Type == TypeTombstone:
			tombs[e.Forgets] = append(tombs[e.Forgets], e)
		case e.Supersedes != "":
			superseded[e.Supersedes] = e.ID
		}
	}
	// voided: the target's author declined tombstone t.
	voided := func(t Entry, target Entry) bool {
		for _, d := range declines[t.ID] {
			if SameAuthor(d.Author, target.Author) {
				return true
			}
		}
		return false
	}
	forgotBy := func(e Entry) (Entry, bool) {
		var first Entry
		found := false
		for _, t := range tombs[e.ID] {
			if SameAuthor(t.Author, e.Author) && !voided(t, e) && (!found || t.Created.Before(first.Created)) {
				first, found = t, true
			}
		}
		return first, found
	}
	items := make([]Item, 0, len(entries))
	for i, e := range entries {
		it := Item{Entry: e, Status: StatusLive, Path: paths[i], Legacy: len(e.ID) != BoundIDLen}
		switch {
		case e.Type == TypeTombstone && !IsDecline(e):
			if target, ok := byID[e.Forgets]; ok && voided(e, target) {
				it.Status = StatusDeclined
			}
			it.PurgeDeclined = e.Purge && len(declines[e.ID]) > 0
		case e.Type == TypeTombstone:
		default:
			if t, ok := forgotBy(e); ok {
				it.Status, it.ForgottenBy, it.ForgetReason = StatusForgotten, t.ID, t.Reason
			} else if by, ok := superseded[e.ID]; ok {
				it.Status, it.SupersededBy = StatusSuperseded, by
			}
		}
		items = append(items, it)
	}
	sort.SliceStable(items, func(i, j int) bool {
		if !items[i].Created.Equal(items[j].Created) {
			return items[i].Created.Before(items[j].Created)
		}
		return items[i].ID < items[j].ID
	})
	return items
}

// Find returns the entry whose id starts with prefix (at least 4 digits).
func Find(items []Item, prefix string) (Item, error) {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	if len(prefix) < 4 {
		return Item{}, fmt.Errorf("id %q is too short: give at least 4 digits", prefix)
	}
	var found []Item
	for _, it := range items {
		if strings.HasPrefix(it.ID, prefix) && it.Type != TypeTombstone {
			found = append(found, it)
		}
	}
	switch len(found) {
	case 0:
		return Item{}, fmt.Errorf("no durable memory with id %s", prefix)
	case 1:
		return found[0], nil
	}
	return Item{}, fmt.Errorf("id %s is ambiguous (%d entries): give more digits", prefix, len(found))
}

// ErrRejected marks a save refused because of its content.
var ErrRejected = errors.New("not saved")

// Save validates e, drops an exact duplicate of a live entry (returning
// it, with saved=false), and commits the new entry to refs/konteks.
func Save(repo *gitstore.Repo, e Entry) (saved Item, isNew bool, err error) {
	e.Text = strings.TrimSpace(e.Text)
	e.Subject = strings.TrimSpace(e.Subject)
	e.Reason = strings.TrimSpace(e.Reason)
	if err := check(e); err != nil {
		return Item{}, false, err
	}
	if e.Supersedes != "" && !validID(e.Supersedes) {
		// A prefix, as people type ids: resolve it now.
		items, err := LoadRef(repo)
		if err != nil {
			return Item{}, false, err
		}
		it, err := Find(items, e.Supersedes)
		if err != nil {
			return Item{}, false, err
		}
		e.Supersedes = it.ID
	}
	data, err := finish(repo, &e)
	if err != nil {
		return Item{}, false, err
	}

	var dup *Item
	var target *Item
	_, err = memref.Update(repo, message(e), func(ed *gitstore.TreeEditor, w *gitstore.Writer, tip *memref.Memory) error {
		dup, target = nil, nil
		var items []Item
		if tip != nil {
			var err error
			if items, _, err = Load(repo, tip.Tree); err != nil {
				return err
			}
		}
		for i := range items {
			it := items[i]
			if duplicate(it, e) {
				dup = &items[i]
				return nil
			}
			if (e.Forgets != "" && it.ID == e.Forgets) || (e.Supersedes != "" && it.ID == e.Supersedes) {
				target = &items[i]
			}
		}
		if e.Forgets != "" || e.Supersedes != "" {
			if target == nil {
				return fmt.Errorf("no durable memory with id %s", e.Forgets+e.Supersedes)
			}
			if target.Status == StatusForgotten {
				return fmt.Errorf("%s is already forgotten", target.ID)
			}
		}
		h, err := w.Blob(data)
		if err != nil {
			return err
		}
		return ed.Set(treePath(e), gitstore.ModeRegular, h)
	})
	if err != nil {
		return Item{}, false, err
	}
	if dup != nil {
		return *dup, false, nil
	}
	return Item{Entry: e, Status: StatusLive, Path: treePath(e)}, true, nil
}

// finish fills what a checked entry leaves out (creation time, author,
// source commit, its id) and returns the bytes to store.
func finish(repo *gitstore.Repo, e *Entry) ([]byte, error) {
	if e.Created.IsZero() {
		e.Created = time.Now().UTC().Truncate(time.Millisecond)
	}
	if e.Author == "" {
		e.Author = LocalAuthor(repo)
	}
	if e.SourceCommit == "" {
		if head, err := repo.Resolve("HEAD"); err == nil {
			e.SourceCommit = head.Hash.String()
		}
	}
	e.Tags, e.Paths, e.Symbols = dedupe(e.Tags), dedupe(e.Paths), dedupe(e.Symbols)
	if e.ID == "" {
		e.ID = BoundID(*e) // last: every field it covers is final
	}
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// LoadRef reads the durable entries of refs/konteks (none when there is no
// memory yet).
func LoadRef(repo *gitstore.Repo) ([]Item, error) {
	tip, err := memref.Read(repo, memory.Ref)
	if tip == nil {
		return nil, err
	}
	items, _, err := Load(repo, tip.Tree)
	return items, err
}

// Forget writes a tombstone for the live entry id (a prefix is enough).
func Forget(repo *gitstore.Repo, id, reason string) (Item, error) {
	return forget(repo, id, reason, false)
}

// forget writes a tombstone (a purge when purge is set) for the entry id,
// which only its author may forget: other clones would not apply a
// tombstone by anyone else.
func forget(repo *gitstore.Repo, id, reason string, purge bool) (Item, error) {
	verb := "forgotten"
	if purge {
		verb = "purged"
	}
	if strings.TrimSpace(reason) == "" {
		return Item{}, fmt.Errorf("%w: say why it is %s (--reason)", ErrRejected, verb)
	}
	items, err := LoadRef(repo)
	if err != nil {
		return Item{}, err
	}
	it, err := Find(items, id)
	if purge && (err != nil || it.Status == StatusForgotten) {
		// A purge interrupted after its tombstone was saved (its file may
		// be deleted already): running it again finishes that purge
		// rather than failing on an entry forgotten or gone.
		if t, ok := ownPurge(repo, items, id); ok {
			return t, nil
		}
	}
	if err != nil {
		return Item{}, err
	}
	if me := LocalAuthor(repo); !SameAuthor(it.Author, me) {
		return Item{}, fmt.Errorf("%w: %s was saved by %s, and only its author can forget it (other clones would not apply a tombstone by %s); to correct it, save a memory that supersedes it (remember --supersedes %s)", ErrRejected, it.ID[:10], it.Author, me, it.ID[:10])
	}
	t := Entry{Type: TypeTombstone, Kind: it.Type, Forgets: it.ID, Reason: reason, Purge: purge}
	saved, _, err := Save(repo, t)
	return saved, err
}

// ownPurge finds the local author's purge tombstone of the entry whose id
// starts with prefix, when exactly one entry matches.
func ownPurge(repo *gitstore.Repo, items []Item, prefix string) (Item, bool) {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	if len(prefix) < 4 {
		return Item{}, false
	}
	me := LocalAuthor(repo)
	var found *Item
	for i, it := range items {
		if it.Type != TypeTombstone || !it.Purge || !strings.HasPrefix(it.Forgets, prefix) || !SameAuthor(it.Author, me) {
			continue
		}
		if found != nil && found.Forgets != it.Forgets {
			return Item{}, false // ambiguous
		}
		found = &items[i]
	}
	if found == nil {
		return Item{}, false
	}
	return *found, true
}

func check(e Entry) error {
	switch e.Type {
	case TypeMemory:
		ok := e.Kind == ""
		for _, k := range Kinds {
			ok = ok || e.Kind == k
		}
		if !ok {
			return fmt.Errorf("%w: unknown kind %q (one of %s)", ErrRejected, e.Kind, strings.Join(Kinds, ", "))
		}
	case TypeDiary, TypeTombstone, TypeSession:
	default:
		return fmt.Errorf("unknown entry type %q", e.Type)
	}
	if err := checkRecord(e); err != nil {
		return fmt.Errorf("%w: %v", ErrRejected, err)
	}
	if e.Scope != "" && e.Scope != ScopeRepository && e.Scope != ScopePersonal {
		return fmt.Errorf("%w: unknown scope %q (%s or %s)", ErrRejected, e.Scope, ScopeRepository, ScopePersonal)
	}
	if e.Type != TypeTombstone {
		letters := 0
		for _, r := range e.Text {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				letters++
			}
		}
		if letters < minLetters || len(strings.Fields(e.Text)) < 2 {
			return fmt.Errorf("%w: %q is too short to be useful: say what and why in a sentence", ErrRejected, e.Text)
		}
	}
	if len(e.Text) > MaxText {
		return fmt.Errorf("%w: %d bytes is over the %d byte limit; save the gist and name the file it lives in", ErrRejected, len(e.Text), MaxText)
	}
	fields := []string{e.Text, e.Subject, e.Reason, e.Kind, e.Forgets, e.Session}
	fields = append(append(append(fields, e.Tags...), e.Paths...), e.Symbols...)
	for _, c := range e.Cites {
		fields = append(fields, c.Path, c.Symbol)
	}
	fields = append(fields, e.Record.texts()...)
	if err := refuseCredentials("it", fields...); err != nil {
		return err
	}
	if len(e.Tags) > MaxList || len(e.Paths) > MaxList || len(e.Symbols) > MaxList {
		return fmt.Errorf("%w: at most %d tags, paths and symbols", ErrRejected, MaxList)
	}
	for _, p := range e.Paths {
		if err := memory.ValidSourcePath(p); err != nil {
			return fmt.Errorf("%w: --path %s: %v", ErrRejected, p, err)
		}
	}
	return nil
}

// message is the memory commit's message for a durable save. It names
// the entry and never carries its text, reason or tags: commit messages
// are pushed to every clone, cannot be purged without rewriting history,
// and are shown by every git tool, while the entry itself can be
// forgotten and purged.
func message(e Entry) string {
	var subject string
	switch e.Type {
	case TypeTombstone:
		subject = "forget " + e.Kind + " " + e.Forgets
	case TypeDiary:
		subject = "diary entry " + e.ID
	default:
		subject = "remember " + e.Kind + " " + e.ID
		if e.Kind == "" {
			subject = "remember " + e.ID
		}
	}
	return "konteks: " + subject + "\n\nEntry: " + e.ID + "\n"
}

func normalize(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		x = strings.TrimSpace(x)
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// refuseCredentials rejects a save when any of its texts holds a
// credential, naming the kinds found (never the value): memory is shared
// with every clone, and a durable entry is never re-derived.
func refuseCredentials(what string, texts ...string) error {
	var kinds []string
	seen := map[string]bool{}
	for _, t := range texts {
		for _, k := range secret.Kinds(secret.Find([]byte(t))) {
			if !seen[k] {
				seen[k] = true
				kinds = append(kinds, k)
			}
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s holds a credential (%s); memory is shared with every clone, so save the fact without the value", ErrRejected, what, strings.Join(kinds, ", "))
}

// LocalAuthor is the author this clone writes entries as: "Name <email>"
// of the git identity.
func LocalAuthor(repo *gitstore.Repo) string {
	id := repo.Identity()
	return id.Name + " <" + id.Email + ">"
}

// SameAuthor reports whether two entry authors are one person: the same
// email (case-insensitive) when both have one, else the same text.
func SameAuthor(a, b string) bool {
	ea, eb := authorEmail(a), authorEmail(b)
	if ea != "" && eb != "" {
		return strings.EqualFold(ea, eb)
	}
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// authorEmail is the email of an author "Name <email>" ("" without one).
func authorEmail(a string) string {
	i, j := strings.LastIndexByte(a, '<'), strings.LastIndexByte(a, '>')
	if i < 0 || j < i {
		return ""
	}
	return strings.TrimSpace(a[i+1 : j])
}
