package extract

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/konteks/git-konteks/extract/section/media"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/lazyre"
	"github.com/konteks/git-konteks/memory"
)

// MediaPath is the memory tree path of the media map: for every image,
// audio or video path that has a record or is referenced, the Markdown,
// HTML and notebook files that show it (with their alt text) and the
// model that described it. It is derived memory, rewritten only when a
// reference or a media file changes.
const MediaPath = "graph/media"

// Media sections the media stage adds to a media file's record. Their
// anchors are reserved: the media sectioner never makes them.
const (
	refsAnchor = "references"
	descAnchor = "description"
)

// Bounds on what the media map keeps.
const (
	maxRefsPerMedia = 32
	maxAlt          = 256
)

// mediaMap is the stored media map.
type mediaMap struct {
	V     int                   `json:"v"`
	Files map[string]*mediaInfo `json:"files"`
}

type mediaInfo struct {
	Refs      []mediaRef `json:"refs,omitempty"`
	Record    bool       `json:"record,omitempty"`    // the path has a media record
	Described string     `json:"described,omitempty"` // parser (model) of its description section
}

// mediaRef is one place that shows a media file.
type mediaRef struct {
	From string `json:"from"`
	Alt  string `json:"alt,omitempty"`
}

const mediaMapVersion = 1

// referencing reports whether records of this source path can reference
// media (and so are read by the media stage): Markdown, HTML, notebooks.
func referencing(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdx", ".mdown", ".mkd", ".html", ".htm", ".xhtml", ".ipynb":
		return true
	}
	return false
}

// The patterns of media references (compiled on first use, as every
// package-level one: mdImage's bounded repetitions make it the dearest
// regexp of the program to compile, 4 ms).
var (
	// ![alt](src "title") and ![alt](<src>); alt may hold balanced
	// brackets one level deep.
	mdImage = lazyre.New(`!\[((?:[^\[\]\n]|\[[^\[\]\n]*\]){0,512})\]\(\s*(<[^>\n]{1,1000}>|[^)\s]{1,1000})(?:\s+(?:"([^"\n]{0,512})"|'([^'\n]{0,512})'))?\s*\)`)
	// <img ...> in Markdown or notebooks (HTML files are converted to the
	// Markdown form by their sectioner).
	htmlImg  = lazyre.New(`(?i)<(?:img|video|audio|source)\b[^>]{0,1000}>`)
	htmlAttr = lazyre.New(`(?i)\b(src|alt|title)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`)
)

// mediaRefs returns the media paths a record references, with the alt
// text of each reference, sorted and without duplicates.
func mediaRefs(f *memory.File, from string) map[string][]string {
	out := map[string][]string{}
	add := func(src, alt string) {
		target, ok := resolveRef(from, src)
		if !ok || media.Class(target) == "" {
			return
		}
		alt = bounded(strings.Join(strings.Fields(alt), " "), maxAlt)
		out[target] = append(out[target], alt)
	}
	for i := range f.Sections {
		c := f.Sections[i].Content
		if strings.Contains(c, "![") {
			for _, m := range mdImage.FindAllStringSubmatch(c, -1) {
				alt := m[1]
				if alt == "" {
					alt = m[3] + m[4]
				}
				add(strings.Trim(m[2], "<>"), alt)
			}
		}
		if strings.Contains(c, "<") {
			for _, tag := range htmlImg.FindAllString(c, -1) {
				var src, alt, title string
				for _, a := range htmlAttr.FindAllStringSubmatch(tag, -1) {
					v := a[2] + a[3] + a[4]
					switch strings.ToLower(a[1]) {
					case "src":
						src = v
					case "alt":
						alt = v
					case "title":
						title = v
					}
				}
				if alt == "" {
					alt = title
				}
				add(src, alt)
			}
		}
	}
	for k, alts := range out {
		sort.Strings(alts)
		out[k] = compactStrings(alts)
	}
	return out
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// resolveRef resolves a reference written in file from to a source path:
// relative to from's directory, or to the repository root when it starts
// with "/". URLs, data URIs and paths that leave the repository are not
// source paths.
func resolveRef(from, src string) (string, bool) {
	src = strings.TrimSpace(src)
	if src == "" || strings.HasPrefix(src, "//") || strings.HasPrefix(src, "#") {
		return "", false
	}
	if i := strings.IndexAny(src, "?#"); i >= 0 {
		src = src[:i]
	}
	if u, err := url.Parse(src); err != nil || u.Scheme != "" {
		return "", false
	}
	if s, err := url.PathUnescape(src); err == nil {
		src = s
	}
	var p string
	if strings.HasPrefix(src, "/") {
		p = path.Clean(strings.TrimLeft(src, "/"))
	} else {
		p = path.Join(path.Dir(from), src)
	}
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.ContainsRune(p, 0) {
		return "", false
	}
	return p, true
}

// bounded cuts s to at most n bytes on a rune boundary.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// mediaStage keeps media records current with what refers to them: each
// image, audio or video record gets a "references" section listing the
// files that show it and their alt text (so a search for the words of an
// alt text finds the picture), and, with konteks.vlm.* configured, a
// "description" section written once per blob by a vision model.
//
// A changed run updates the media map from the records that changed; other
// runs (and a memory without the map) rebuild it from every record. Either
// way a media record is rewritten only when its sections would change, so
// the result equals a rebuild's. A changed run none of whose changes is a
// media file or a file that can show one (most commits: code) leaves the
// map and the media records as they are, which is what the update would
// write.
func (r *run) mediaStage() error {
	old, err := r.readMediaMap()
	if err != nil {
		return err
	}
	incremental := r.mode == ModeChanged && old != nil && r.wip == nil
	if incremental && !r.mediaChanged(old) {
		return nil
	}
	next := &mediaMap{V: mediaMapVersion, Files: map[string]*mediaInfo{}}
	entry := func(p string) *mediaInfo {
		mi := next.Files[p]
		if mi == nil {
			mi = &mediaInfo{}
			next.Files[p] = mi
		}
		return mi
	}
	addRefs := func(from string, refs map[string][]string) {
		for target, alts := range refs {
			mi := entry(target)
			for _, a := range alts {
				mi.Refs = append(mi.Refs, mediaRef{From: from, Alt: a})
			}
		}
	}
	affected := map[string]bool{} // media paths whose record may need new sections
	if incremental {
		// Keep what unchanged files say; read the changed ones anew.
		for p, mi := range old.Files {
			for _, ref := range mi.Refs {
				if !r.changed[ref.From] {
					addRefs(ref.From, map[string][]string{p: {ref.Alt}})
				}
			}
			if mi.Record && !r.changed[p] {
				e := entry(p)
				e.Record, e.Described = true, mi.Described
			}
		}
		changed := make([]string, 0, len(r.changed))
		for p := range r.changed {
			changed = append(changed, p)
		}
		sort.Strings(changed)
		for _, p := range changed {
			if media.Class(p) != "" {
				affected[p] = true
			}
			if !referencing(p) {
				continue
			}
			f, ok, err := r.currentRecord(p)
			if err != nil {
				return err
			}
			if ok {
				addRefs(p, mediaRefs(f, p))
			}
		}
	} else {
		if old != nil {
			for p := range old.Files {
				affected[p] = true
			}
		}
		err := r.walkRecords("", func(p string, h gitstore.Hash) error {
			if media.Class(p) != "" {
				affected[p] = true
			}
			if !referencing(p) {
				return nil
			}
			f, err := r.recordAt(h, p)
			if err != nil {
				return err
			}
			addRefs(p, mediaRefs(f, p))
			return nil
		})
		if err != nil {
			return err
		}
	}
	for p, mi := range next.Files {
		sort.Slice(mi.Refs, func(i, j int) bool {
			if mi.Refs[i].From != mi.Refs[j].From {
				return mi.Refs[i].From < mi.Refs[j].From
			}
			return mi.Refs[i].Alt < mi.Refs[j].Alt
		})
		if len(mi.Refs) > maxRefsPerMedia {
			mi.Refs = mi.Refs[:maxRefsPerMedia]
		}
		var was *mediaInfo
		if old != nil {
			was = old.Files[p]
		}
		if !sameRefs(was, mi) {
			affected[p] = true
		}
	}
	if old != nil {
		for p, mi := range old.Files {
			if len(mi.Refs) > 0 && next.Files[p] == nil {
				affected[p] = true // its last reference went away
			}
		}
	}
	v := newVLM(r.repo)
	if v != nil && incremental {
		// Images that still lack a description get another chance.
		for p, mi := range next.Files {
			if mi.Record && mi.Described == "" && v.accepts(p) {
				affected[p] = true
			}
		}
	}

	paths := make([]string, 0, len(affected))
	for p := range affected {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var jobs []*describeJob
	descs := map[string]*memory.Section{}
	for _, p := range paths {
		f, ok, err := r.currentRecord(p)
		if err != nil {
			return err
		}
		if !ok || f.Kind != media.Kind {
			continue
		}
		if d := descriptionOf(f); d != nil {
			descs[p] = d
		} else if v != nil && v.accepts(p) {
			if d := v.prevDescription(r, f.Blob); d != nil {
				descs[p] = d
			} else {
				jobs = append(jobs, &describeJob{path: p, blob: f.Blob})
			}
		}
	}
	if len(jobs) > 0 {
		v.describeAll(r, jobs)
		for _, j := range jobs {
			if j.section != nil {
				descs[j.path] = j.section
			}
		}
		r.stats.VLMDescribed += v.described
		r.stats.VLMFailures += int(v.failures.Load())
		r.stats.VLMTokens += int(v.tokens.Load())
	}
	for _, p := range paths {
		f, ok, err := r.currentRecord(p)
		if err != nil {
			return err
		}
		if !ok || f.Kind != media.Kind {
			if mi := next.Files[p]; mi != nil {
				mi.Record, mi.Described = false, ""
			}
			continue
		}
		e := entry(p)
		nf := withMediaSections(f, p, e.Refs, descs[p])
		if err := r.replaceRecord(p, f, nf); err != nil {
			return err
		}
		e.Record, e.Described = true, ""
		if d := descriptionOf(nf); d != nil {
			e.Described = d.Parser
		}
	}
	for p, mi := range next.Files {
		if len(mi.Refs) == 0 && !mi.Record {
			delete(next.Files, p)
		}
	}
	return r.writeMediaMap(next)
}

// mediaChanged reports whether a changed run's update of the media map
// old could change anything: a changed path is a media file or can
// reference one, or an image still lacks the description a configured
// vision model would retry. Otherwise the update would read no record,
// rebuild old as it is, rewrite no record and store the same map:
// decoding and encoding it cost a one-file run about 3 ms of CPU, most
// of it page faults of a zstd encoder's first use.
func (r *run) mediaChanged(old *mediaMap) bool {
	for p := range r.changed {
		if media.Class(p) != "" || referencing(p) {
			return true
		}
	}
	for p, mi := range old.Files {
		if mi.Record && mi.Described == "" && vlmAccepts(p) {
			// Only now is the config read: is a vision model set?
			return newVLM(r.repo) != nil
		}
	}
	return false
}

func sameRefs(a, b *mediaInfo) bool {
	if a == nil || b == nil {
		return (a == nil || len(a.Refs) == 0) && (b == nil || len(b.Refs) == 0)
	}
	if len(a.Refs) != len(b.Refs) {
		return false
	}
	for i := range a.Refs {
		if a.Refs[i] != b.Refs[i] {
			return false
		}
	}
	return true
}

// descriptionOf returns a record's description section, if any.
func descriptionOf(f *memory.File) *memory.Section {
	if f == nil {
		return nil
	}
	for i := range f.Sections {
		if f.Sections[i].Anchor == descAnchor {
			return &f.Sections[i]
		}
	}
	return nil
}

// withMediaSections returns a copy of a media record with its references
// section made from refs and its description section desc (either may be
// empty): the sections the media sectioner made come first, unchanged.
func withMediaSections(f *memory.File, p string, refs []mediaRef, desc *memory.Section) *memory.File {
	nf := *f
	nf.Sections = nil
	for _, s := range f.Sections {
		if s.Anchor != refsAnchor && s.Anchor != descAnchor {
			nf.Sections = append(nf.Sections, s)
		}
	}
	if len(refs) > 0 {
		var b strings.Builder
		b.WriteString("Shown in:\n")
		var firstAlt string
		for _, ref := range refs {
			if ref.Alt != "" {
				fmt.Fprintf(&b, "- %s: %s\n", ref.From, ref.Alt)
				if firstAlt == "" {
					firstAlt = ref.Alt
				}
			} else {
				fmt.Fprintf(&b, "- %s\n", ref.From)
			}
		}
		s := memory.Section{
			Anchor: refsAnchor, Kind: media.Kind, Symbol: refsAnchor, Parser: "references",
			Name: "References", StartLine: 1, EndLine: 1, Content: strings.TrimSuffix(b.String(), "\n"),
		}
		if firstAlt != "" {
			s.Summary = firstAlt
		}
		nf.Sections = append(nf.Sections, s)
	}
	if desc != nil {
		d := *desc
		d.Topics, d.LexHash, d.EmbHash, d.Chunks = nil, "", "", nil
		nf.Sections = append(nf.Sections, d)
	}
	// Topics and hashes are recomputed over the new set of sections, from
	// scratch, so the result depends only on the sectioner's sections and
	// the references (not on what an earlier run, a rename's re-pathing
	// or a rebuild left in the record).
	repathRecord(&nf, p)
	if alt := firstAltOf(refs); alt != "" {
		nf.Abstract = firstSentence(alt+": "+nf.Abstract, MaxAbstract)
	} else if desc != nil && desc.Summary != "" {
		nf.Abstract = firstSentence(desc.Summary, MaxAbstract)
	}
	return &nf
}

func firstAltOf(refs []mediaRef) string {
	for _, r := range refs {
		if r.Alt != "" {
			return r.Alt
		}
	}
	return ""
}

// currentRecord decodes the record of source path p as this run leaves it.
func (r *run) currentRecord(p string) (*memory.File, bool, error) {
	h, _, ok, err := r.editor.Get(memory.FilePath(p))
	if err != nil || !ok {
		return nil, false, err
	}
	f, err := r.recordAt(h, p)
	if err != nil {
		return nil, false, err
	}
	return f, true, nil
}

// replaceRecord stores nf as the record of p in place of f, keeping totals,
// modules and summaries in step. Nothing happens when they encode alike.
func (r *run) replaceRecord(p string, f, nf *memory.File) error {
	if nf == f {
		return nil
	}
	// Descriptions come from a vision model and from the documents that
	// show the file: text read off a screenshot can be a credential.
	redactRecordText(nf)
	data, err := memory.EncodeFile(nf)
	if err != nil {
		return err
	}
	h, err := r.writer.Blob(data)
	if err != nil {
		return err
	}
	old, _, _, err := r.editor.Get(memory.FilePath(p))
	if err != nil {
		return err
	}
	if old == h {
		return nil
	}
	subRecord(&r.totals, f)
	r.moduleAdd(p, f, -1)
	addRecord(&r.totals, nf)
	r.moduleAdd(p, nf, 1)
	r.changed[p] = true
	r.abstracts[p] = nf.Abstract
	return r.editor.Set(memory.FilePath(p), gitstore.ModeRegular, h)
}

// walkRecords calls fn for every record under files/<dir>, in path order.
func (r *run) walkRecords(dir string, fn func(p string, h gitstore.Hash) error) error {
	tp := memory.FilesDir
	if dir != "" {
		tp += "/" + dir
	}
	entries, ok, err := r.editor.List(tp)
	if err != nil || !ok {
		return err
	}
	for _, e := range entries {
		p := e.Name
		if dir != "" {
			p = dir + "/" + e.Name
		}
		if e.IsDir {
			if err := r.walkRecords(p, fn); err != nil {
				return err
			}
			continue
		}
		h := e.Hash
		if h.IsZero() {
			if h, _, _, err = r.editor.Get(memory.FilePath(p)); err != nil {
				return err
			}
		}
		if err := fn(p, h); err != nil {
			return err
		}
	}
	return nil
}

// readMediaMap reads the media map of the tree being built; nil when there
// is none (or it is of another version: it is then rebuilt).
func (r *run) readMediaMap() (*mediaMap, error) {
	h, _, ok, err := r.editor.Get(MediaPath)
	if err != nil || !ok {
		return nil, err
	}
	return decodeMediaMap(r.repo, h, r.writer)
}

// decodeMediaMap decodes the media map blob h (pending in w, if w is not
// nil and holds it). The map may come from a fetched ref: paths are
// validated, sizes bounded.
func decodeMediaMap(repo *gitstore.Repo, h gitstore.Hash, w *gitstore.Writer) (*mediaMap, error) {
	var b []byte
	var err error
	if w != nil {
		b, _ = w.PendingObject(h)
	}
	if b == nil {
		if b, err = repo.BlobBytes(h, memory.MaxCompressedSize); err != nil {
			return nil, fmt.Errorf("reading %s: %w", MediaPath, err)
		}
	}
	raw, err := memory.Decompress(b)
	if err != nil {
		return nil, fmt.Errorf("%w (%s: %v): run `git konteks extract --mode rebuild`", ErrCorruptMemory, MediaPath, err)
	}
	var m mediaMap
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w (%s: %v): run `git konteks extract --mode rebuild`", ErrCorruptMemory, MediaPath, err)
	}
	if m.V != mediaMapVersion || m.Files == nil {
		return nil, nil
	}
	for p, mi := range m.Files {
		if mi == nil || memory.ValidSourcePath(p) != nil {
			return nil, fmt.Errorf("%w (%s: bad entry %q): run `git konteks extract --mode rebuild`", ErrCorruptMemory, MediaPath, p)
		}
		for _, ref := range mi.Refs {
			if memory.ValidSourcePath(ref.From) != nil {
				return nil, fmt.Errorf("%w (%s: bad reference %q): run `git konteks extract --mode rebuild`", ErrCorruptMemory, MediaPath, ref.From)
			}
		}
	}
	return &m, nil
}

func (r *run) writeMediaMap(m *mediaMap) error {
	raw, err := json.Marshal(m) // map keys sorted: deterministic
	if err != nil {
		return err
	}
	h, err := r.writer.Blob(memory.Compress(raw))
	if err != nil {
		return err
	}
	return r.editor.Set(MediaPath, gitstore.ModeRegular, h)
}
