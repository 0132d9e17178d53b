package secret

// matcher finds every occurrence of a set of ASCII keywords in one pass,
// ignoring ASCII case: an Aho-Corasick automaton compiled into a dense
// table over byte classes. Its cost is one table step per input byte,
// whatever the number of keywords, so a rule set of hundreds of keywords
// costs what one costs, and there is no limit on the number of hits.
type matcher struct {
	class   [256]uint8 // byte -> class (0: in no keyword)
	nclass  int
	delta   []int32   // state*nclass + class -> next state
	out     [][]int32 // state -> keyword ids ending here
	hasOut  []bool
	lengths []int // keyword id -> length
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// newMatcher compiles the keywords (any case; matched case-insensitively).
func newMatcher(keywords []string) *matcher {
	m := &matcher{}
	n := 1
	for _, k := range keywords {
		for i := 0; i < len(k); i++ {
			c := lower(k[i])
			if m.class[c] == 0 {
				m.class[c] = uint8(n)
				n++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	m.nclass = n
	// Trie.
	type node struct {
		next map[uint8]int32
		fail int32
		out  []int32
	}
	nodes := []node{{next: map[uint8]int32{}}}
	for id, k := range keywords {
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := m.class[lower(k[i])]
			t, ok := nodes[s].next[c]
			if !ok {
				t = int32(len(nodes))
				nodes = append(nodes, node{next: map[uint8]int32{}})
				nodes[s].next[c] = t
			}
			s = t
		}
		nodes[s].out = append(nodes[s].out, int32(id))
		m.lengths = append(m.lengths, len(k))
	}
	// Breadth-first failure links, folded into a full transition table.
	m.delta = make([]int32, len(nodes)*n)
	queue := []int32{}
	for c := 1; c < n; c++ {
		if t, ok := nodes[0].next[uint8(c)]; ok {
			m.delta[c] = t
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		f := nodes[s].fail
		nodes[s].out = append(nodes[s].out, nodes[f].out...)
		for c := 1; c < n; c++ {
			if t, ok := nodes[s].next[uint8(c)]; ok {
				nodes[t].fail = m.delta[int(f)*n+c]
				m.delta[int(s)*n+c] = t
				queue = append(queue, t)
			} else {
				m.delta[int(s)*n+c] = m.delta[int(f)*n+c]
			}
		}
	}
	m.out = make([][]int32, len(nodes))
	m.hasOut = make([]bool, len(nodes))
	for i := range nodes {
		m.out[i] = nodes[i].out
		m.hasOut[i] = len(nodes[i].out) > 0
	}
	return m
}

// each calls fn with the keyword id and start offset of every occurrence.
func (m *matcher) each(data []byte, fn func(id int, at int)) {
	s := int32(0)
	n := int32(m.nclass)
	for i, c := range data {
		s = m.delta[s*n+int32(m.class[c])]
		if m.hasOut[s] {
			for _, id := range m.out[s] {
				fn(int(id), i+1-m.lengths[id])
			}
		}
	}
}
