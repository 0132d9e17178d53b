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
	// The trie, as a dense goto table (0: no edge; the root is nobody's
	// child), grown a row per node; per-node maps made building it cost
	// a one-file extraction several milliseconds.
	nodes := 1
	for _, k := range keywords {
		nodes += len(k)
	}
	m.delta = make([]int32, n, nodes*n)
	out := make([][]int32, 1, nodes)
	for id, k := range keywords {
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := int(m.class[lower(k[i])])
			t := m.delta[int(s)*n+c]
			if t == 0 {
				t = int32(len(out))
				out = append(out, nil)
				m.delta = m.delta[:len(m.delta)+n]
				m.delta[int(s)*n+c] = t
			}
			s = t
		}
		out[s] = append(out[s], int32(id))
		m.lengths = append(m.lengths, len(k))
	}
	// Breadth-first failure links, folded into the table: a missing edge
	// becomes the failure state's edge, which is final by then (the
	// failure state is shallower).
	fail := make([]int32, len(out))
	queue := make([]int32, 0, len(out))
	for c := 1; c < n; c++ {
		if t := m.delta[c]; t != 0 {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		f := fail[s]
		out[s] = append(out[s], out[f]...)
		for c := 1; c < n; c++ {
			if t := m.delta[int(s)*n+c]; t != 0 {
				fail[t] = m.delta[int(f)*n+c]
				queue = append(queue, t)
			} else {
				m.delta[int(s)*n+c] = m.delta[int(f)*n+c]
			}
		}
	}
	m.out = out
	m.hasOut = make([]bool, len(out))
	for i := range out {
		m.hasOut[i] = len(out[i]) > 0
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
