package section

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/text"
)

// Topics are the words a section is most about: its path, name, signature,
// doc and content split into identifier parts ("parseHTTPRequest" → parse,
// http, request), stop words dropped, ranked by a weighted count (each path
// word 1, name words 4 and signature and doc words 2 once per text, content
// words 1 per occurrence), ties alphabetical.
//
// This is the hottest part of Finish, so it is built for speed rather than
// composed from text.SplitIdentifier:
//
//   - one pass over the bytes of each text finds identifier runs and splits
//     them into parts; an all-ASCII text (nearly all real code) is scanned
//     eight bytes at a time, and only runs with other letters take a
//     rune-by-rune path; both follow text.SplitIdentifier's rules exactly;
//   - every distinct word of a file is interned once per Finish, with its
//     stop-word verdicts, so that each further occurrence costs one lookup
//     in an open-addressing table, keyed by the part's bytes loaded
//     straight from the text, and an array increment: nothing is copied or
//     allocated for a word seen before;
//   - counts live in arrays indexed by word id, and the best MaxTopics are
//     picked by a bounded insertion instead of sorting every distinct word.
//
// All content feeds topics, however long the section: the scan is linear
// and cheap (a few ns per byte), the gate already bounds file size, and a
// cap would make topics blind to the end of long sections and change
// records for no measurable gain.
//
// The result is exactly what the straightforward definition gives: the
// tests keep that definition (refSectionTopics) and compare, on tricky
// strings, real Go source and fuzzed input.

// Byte classes for identifier splitting, for all 256 byte values.
const (
	bitLower = 1 << iota
	bitUpper
	bitDigit
)

var asciiBits = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = bitLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = bitUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = bitDigit
	}
	return t
}()

// topicEntry is one interned word.
type topicEntry struct {
	key   wordKey
	word  string // lowercase; may point into the text it was found in
	owned string // word in its own memory, set on first use as a topic
}

// wordKey is how the word table compares words without looking at their
// strings: the length and the first 32 bytes, packed little-endian into
// words and zero-padded. Parts of identifiers are at most 32 bytes when
// ASCII, and ASCII parts are keyed straight from the text with 8-byte
// loads, lowercased on the fly; only longer words (non-ASCII ones, given
// topics) also compare their strings.
type wordKey struct {
	b [4]uint64
	n int
}

// finisher holds the scratch state of one Finish call. It is pooled: a
// full extraction finishes thousands of files on a few goroutines.
type finisher struct {
	table   []slot // open addressing, a power of two long, at most half full
	words   []topicEntry
	counts  []int    // per word id, for the counter being built
	seen    []uint32 // per word id, the stamp of the last text that counted it
	stamp   uint32
	touched []int32 // ids whose count is not zero
	best    []int32
	lower   []byte // a lowercased non-ASCII part
	text    []byte // a retrieval text being hashed
	pathIDs []int32
}

var finishers = sync.Pool{New: func() any { return &finisher{table: make([]slot, minTable)} }}

// Bounds past which a finisher's buffers are dropped instead of pooled, so
// that one huge file does not pin its memory or slow every later reset.
const (
	maxPooledWords = 1 << 13
	maxPooledTable = 4 * maxPooledWords
	maxPooledText  = 1 << 20
)

func getFinisher() *finisher { return finishers.Get().(*finisher) }

func putFinisher(f *finisher) {
	if len(f.table) > maxPooledTable {
		f.table = make([]slot, minTable)
	} else {
		clear(f.table)
	}
	if len(f.words) > maxPooledWords {
		f.words, f.counts, f.seen = nil, nil, nil
	} else {
		clear(f.words) // drop references into the texts
		f.words, f.counts, f.seen = f.words[:0], f.counts[:0], f.seen[:0]
	}
	if cap(f.text) > maxPooledText {
		f.text = nil
	}
	f.touched, f.best, f.pathIDs = f.touched[:0], f.best[:0], f.pathIDs[:0]
	f.stamp = 0
	finishers.Put(f)
}

// slot is one entry of the word table. A word of at most 8 bytes, most
// words, is matched by its slot alone; longer ones also compare the key in
// their entry.
type slot struct {
	k0   uint64 // the key's first word
	hn   uint32 // the hash, its low byte replaced by the length (at most 255)
	info uint32 // id+1 and the word's flags; 0 marks an empty slot
}

// Parts of slot.info. Ids stay far below 1<<30: each takes an entry of
// tens of bytes.
const (
	infoName  = 1 << 30 // nameWord(word)
	infoTopic = 1 << 31 // topicWord(word)
	infoID    = infoName - 1
)

func idOf(info uint32) int32 { return int32(info&infoID) - 1 }

const minTable = 1 << 10

// keyOf returns the key of word w.
func keyOf(w string) wordKey {
	k := wordKey{n: len(w)}
	for i := 0; i < len(w) && i < 32; i++ {
		k.b[i>>3] |= uint64(w[i]) << (8 * (i & 7))
	}
	return k
}

// hash mixes a key into 32 bits: the high half of a sum of products with
// odd constants (multiplicative hashing), with the low byte replaced by the
// length. The key is first XORed with a seed chosen at random for each
// process, so that a repository cannot be crafted to make its words
// collide and every lookup slow; the seed changes only where words sit in
// the table, never a result.
func (k *wordKey) hash() uint32 {
	h := (k.b[0]^uint64(k.n)^hashSeed[0])*0x9E3779B97F4A7C15 + (k.b[1]^hashSeed[1])*0xC2B2AE3D27D4EB4F +
		(k.b[2]^hashSeed[2])*0x165667B19E3779F9 + (k.b[3]^hashSeed[3])*0xD6E8FEB86659FD93
	return uint32(h>>32)&^0xff | uint32(min(k.n, 0xff))
}

var hashSeed = [4]uint64{rand.Uint64(), rand.Uint64(), rand.Uint64(), rand.Uint64()}

func (k *wordKey) equal(o *wordKey) bool {
	return k.b[0] == o.b[0] && k.n == o.n && k.b[1] == o.b[1] && k.b[2] == o.b[2] && k.b[3] == o.b[3]
}

// slotOf is where a word with hash h starts its probe in a table of n
// slots (a power of two): the top bits of h.
func slotOf(h uint32, n int) int {
	return int(uint64(h) * uint64(n) >> 32)
}

// find returns the info of the word with key k and hash h (and string w,
// needed only when it is longer than 32 bytes), or 0 and the slot where
// it belongs.
func (f *finisher) find(k *wordKey, h uint32, w string) (info uint32, at int) {
	mask := len(f.table) - 1
	for i := slotOf(h, len(f.table)); ; i = (i + 1) & mask {
		sl := &f.table[i]
		if sl.info == 0 {
			return 0, i
		}
		if sl.hn == h && sl.k0 == k.b[0] {
			if k.n <= 8 {
				return sl.info, i
			}
			if e := &f.words[idOf(sl.info)]; e.key.equal(k) && (k.n <= 32 || e.word == w) {
				return sl.info, i
			}
		}
	}
}

// intern returns the id of the lowercase word w, adding it when new. own
// says w is not a substring of a larger text and may be kept as a topic.
func (f *finisher) intern(w string, own bool) int32 {
	k := keyOf(w)
	h := k.hash()
	info, at := f.find(&k, h, w)
	if info == 0 {
		info = f.add(w, &k, h, at, own)
	}
	return idOf(info)
}

// add adds word w with key k and hash h at free slot at, and returns its
// info.
func (f *finisher) add(w string, k *wordKey, h uint32, at int, own bool) uint32 {
	info := uint32(len(f.words) + 1)
	if wordShape(w) {
		switch stopWords[w] {
		case 0:
			info |= infoName | infoTopic
		case stopKeyword:
			info |= infoName
		}
	}
	e := topicEntry{key: *k, word: w}
	if own {
		e.owned = w
	}
	f.table[at] = slot{k0: k.b[0], hn: h, info: info}
	if 2*(len(f.words)+1) > len(f.table) {
		f.grow()
	}
	f.words = append(f.words, e)
	f.counts = append(f.counts, 0)
	f.seen = append(f.seen, 0)
	return info
}

// grow doubles the table.
func (f *finisher) grow() {
	old := f.table
	f.table = make([]slot, 2*len(old))
	mask := len(f.table) - 1
	for _, sl := range old {
		if sl.info == 0 {
			continue
		}
		i := slotOf(sl.hn, len(f.table))
		for f.table[i].info != 0 {
			i = (i + 1) & mask
		}
		f.table[i] = sl
	}
}

// topicString returns word id as a string that does not keep a text alive.
func (f *finisher) topicString(id int32) string {
	e := &f.words[id]
	if e.owned == "" {
		e.owned = strings.Clone(e.word)
	}
	return e.owned
}

// resetCounts starts a new counter.
func (f *finisher) resetCounts() {
	for _, id := range f.touched {
		f.counts[id] = 0
	}
	f.touched = f.touched[:0]
}

func (f *finisher) bump(id int32, w int) {
	if f.counts[id] == 0 {
		f.touched = append(f.touched, id)
	}
	f.counts[id] += w
}

// counting says how the words of one text are counted.
type counting struct {
	weight int
	once   bool   // each word counts at most once for this text
	filter uint32 // infoName or infoTopic: the words counted
}

func (f *finisher) nextStamp() {
	f.stamp++
	if f.stamp == 0 { // wrapped: forget every old stamp
		clear(f.seen)
		f.stamp = 1
	}
}

// count counts one occurrence of the word with info.
func (f *finisher) count(info uint32, how counting) {
	if info&how.filter == 0 {
		return
	}
	id := idOf(info)
	if how.once {
		if f.seen[id] == f.stamp {
			return
		}
		f.seen[id] = f.stamp
	}
	f.bump(id, how.weight)
}

// addText counts the word parts of text: every run of letters, digits and
// underscores split as SplitIdentifier splits it.
func (f *finisher) addText(s string, how counting) {
	if how.once {
		f.nextStamp()
	}
	if isASCII(s) {
		f.asciiText(s, how)
		return
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != '_' && asciiBits[c] == 0 {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(s[i:]); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += size
			continue
		}
		// A run starts at i; find its end and whether it is all ASCII.
		start, ascii := i, true
		for i < len(s) {
			c := s[i]
			if c < utf8.RuneSelf {
				if c != '_' && asciiBits[c] == 0 {
					break
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			ascii = false
			i += size
		}
		if ascii {
			f.asciiText(s[start:i], how)
		} else {
			f.unicodeRun(s[start:i], how)
		}
	}
}

// isASCII reports whether s is all ASCII, eight bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if load64(s[i:i+8])&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiText is addText for an all-ASCII text (or one all-ASCII run of
// one): runs and their parts are found in the same single pass, by the
// rules of SplitIdentifier. Underscores and other separators end a part;
// a part is capitals, lowercase letters and digits where a capital follows
// only another capital ("fooBar", "utf8Decode" split before the capital),
// except that when two or more capitals are followed by a lowercase
// letter, the last capital starts the next part ("HTTPServer").
//
// Separators and lowercase letters and digits, the long stretches, are
// skipped eight bytes at a time (see lowerDigitMask), which spares most of
// the branch mispredictions a byte loop costs at every change of class.
func (f *finisher) asciiText(s string, how counting) {
	n := len(s)
	for i := 0; ; {
		// Skip separators, underscores included.
		for {
			if i+8 > n {
				for i < n && asciiBits[s[i]] == 0 {
					i++
				}
				break
			}
			if m := wordMask(load64(s[i : i+8])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= n {
			return
		}
		start, upper := i, false
		if asciiBits[s[i]] == bitUpper {
			j := i + 1
			for j < n && asciiBits[s[j]] == bitUpper {
				j++
			}
			if j-i > 1 && j < n && asciiBits[s[j]] == bitLower {
				f.asciiPart(s, i, j-1, true, how)
				start = j - 1
			}
			i, upper = j, true
		}
		// The rest of the part: lowercase letters and digits.
		for {
			if i+8 > n {
				for i < n && asciiBits[s[i]]&(bitLower|bitDigit) != 0 {
					i++
				}
				break
			}
			if m := ^lowerDigitMask(load64(s[i:i+8])) & hiBits; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		f.asciiPart(s, start, i, upper, how)
	}
}

const (
	loBits = 0x0101010101010101
	hiBits = 0x8080808080808080
)

// lowerDigitMask returns, for eight ASCII bytes packed little-endian, the
// high bit of each byte that is a lowercase letter or a digit. For a byte
// b < 0x80, b + (0x80-c) has its high bit set exactly when b >= c, and
// never carries into the next byte.
func lowerDigitMask(x uint64) uint64 {
	return ((x+(0x80-'a')*loBits)&^(x+(0x80-'z'-1)*loBits) |
		(x+(0x80-'0')*loBits)&^(x+(0x80-'9'-1)*loBits)) & hiBits
}

// digitMask is lowerDigitMask for digits only.
func digitMask(x uint64) uint64 {
	return (x + (0x80-'0')*loBits) &^ (x + (0x80-'9'-1)*loBits) & hiBits
}

// wordMask is lowerDigitMask with capitals too.
func wordMask(x uint64) uint64 {
	return lowerDigitMask(x) | (x+(0x80-'A')*loBits)&^(x+(0x80-'Z'-1)*loBits)&hiBits
}

// asciiPart counts the part s[start:end] of an ASCII text, made of
// letters and digits, capitals among them when upper.
func (f *finisher) asciiPart(s string, start, end int, upper bool, how counting) {
	n := end - start
	if n < 2 || n > 32 { // nameWord's bounds, in runes
		return
	}
	k, digits := wordKey{n: n}, 0
	for j, off := 0, start; off < end; j, off = j+1, off+8 {
		var x uint64
		if off+8 <= len(s) {
			x = load64(s[off : off+8])
		} else {
			for i := off; i < end; i++ {
				x |= uint64(s[i]) << (8 * (i - off))
			}
		}
		if upper {
			// Capitals lack the 0x20 bit that lowercase letters and
			// digits have: setting it lowercases the part.
			x |= 0x2020202020202020
		}
		if rem := end - off; rem < 8 {
			x &= 1<<(8*rem) - 1
		}
		k.b[j] = x
		digits += bits.OnesCount64(digitMask(x))
	}
	if !shapeOK(n, n-digits, digits) {
		return // a number or a hash: not a topic, not worth a table entry
	}
	h := k.hash()
	info, at := f.find(&k, h, "")
	if info == 0 {
		w := s[start:end]
		if upper {
			var buf [32]byte
			for j := range buf {
				buf[j] = byte(k.b[j>>3] >> (8 * (j & 7)))
			}
			w = string(buf[:n])
		}
		info = f.add(w, &k, h, at, upper)
	}
	f.count(info, how)
}

// load64 reads 8 bytes of s little-endian, in one load.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// unicodeRun is asciiText for a run with non-ASCII letters or digits, rune
// by rune, exactly as SplitIdentifier splits.
func (f *finisher) unicodeRun(r string, how counting) {
	b := f.lower[:0]
	n, digits := 0, 0 // runes and digits in b
	prev := rune(-1)
	flush := func() {
		if shapeOK(n, n-digits, digits) {
			k := keyOf(string(b)) // does not allocate
			h := k.hash()
			info, at := f.find(&k, h, string(b))
			if info == 0 {
				info = f.add(string(b), &k, h, at, true)
			}
			f.count(info, how)
		}
		b, n, digits, prev = b[:0], 0, 0, -1
	}
	for i := 0; i < len(r); {
		c, size := utf8.DecodeRuneInString(r[i:])
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			flush()
			i += size
			continue
		}
		if prev >= 0 && unicode.IsUpper(c) {
			split := unicode.IsLower(prev) || unicode.IsDigit(prev)
			if !split && unicode.IsUpper(prev) && i+size < len(r) {
				next, _ := utf8.DecodeRuneInString(r[i+size:])
				split = unicode.IsLower(next)
			}
			if split {
				flush()
			}
		}
		b = utf8.AppendRune(b, unicode.ToLower(c))
		n++
		if unicode.IsDigit(c) {
			digits++
		}
		prev = c
		i += size
	}
	flush()
	f.lower = b
}

// better reports whether word a ranks before word b: higher count first,
// ties alphabetical.
func (f *finisher) better(a, b int32) bool {
	if ca, cb := f.counts[a], f.counts[b]; ca != cb {
		return ca > cb
	}
	return f.words[a].word < f.words[b].word
}

// top returns the n best words of the current counter, best first; nil
// when nothing was counted.
func (f *finisher) top(n int) []string {
	if len(f.touched) == 0 {
		return nil
	}
	best := f.best[:0]
	for _, id := range f.touched {
		if len(best) == n && !f.better(id, best[n-1]) {
			continue
		}
		if len(best) < n {
			best = append(best, id)
		}
		j := len(best) - 1
		for j > 0 && f.better(id, best[j-1]) {
			best[j] = best[j-1]
			j--
		}
		best[j] = id
	}
	f.best = best
	out := make([]string, len(best))
	for i, id := range best {
		out[i] = f.topicString(id)
	}
	return out
}

// setPath interns the topic words of a file's path.
func (f *finisher) setPath(pathWords []string) {
	f.pathIDs = f.pathIDs[:0]
	for _, w := range pathWords {
		f.pathIDs = append(f.pathIDs, f.intern(w, true))
	}
}

// sectionTopics ranks a section's topics: path words count 1, the words of
// its name 4, of its signature and doc 2 (each once), of its content 1 per
// occurrence.
func (f *finisher) sectionTopics(s *memory.Section) []string {
	f.resetCounts()
	for _, id := range f.pathIDs {
		f.bump(id, 1)
	}
	name := s.QName
	if name == "" || s.Symbol == "key" || s.Symbol == "value" {
		// A data path adds nothing but "$" and a document prefix.
		name = s.Name
	}
	f.addText(name, counting{weight: 4, once: true, filter: infoName})
	f.addText(s.Signature, counting{weight: 2, once: true, filter: infoTopic})
	f.addText(s.Doc, counting{weight: 2, once: true, filter: infoTopic})
	f.addText(s.Content, counting{weight: 1, filter: infoTopic})
	return f.top(MaxTopics)
}

// fileTopics ranks topics over the whole file: each section votes for its
// topics by rank, path words get a head start.
func (f *finisher) fileTopics(secs []memory.Section, given []string) []string {
	if len(given) > 0 {
		return cleanTopics(given)
	}
	f.resetCounts()
	for _, id := range f.pathIDs {
		f.bump(id, MaxTopics)
	}
	for i := range secs {
		for r, t := range secs[i].Topics {
			f.bump(f.intern(t, true), MaxTopics-r)
		}
	}
	return f.top(MaxTopics)
}

// pathTopics is the word parts of a path: its directories and the base name
// without its extension.
func pathTopics(path string) []string {
	dir, base := "", path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir, base = path[:i], path[i+1:]
	}
	if i := strings.IndexByte(base[min(1, len(base)):], '.'); i >= 0 {
		base = base[:i+min(1, len(base))]
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range text.SplitIdentifier(dir + "/" + base) {
		if topicWord(w) && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func contains(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

func cleanTopics(in []string) []string {
	out := in[:0]
	for _, t := range in {
		t = strings.ToLower(oneLine(cleanString(t)))
		if t == "" || contains(out, t) {
			continue
		}
		out = append(out, t)
		if len(out) == MaxTopics {
			break
		}
	}
	return out
}
