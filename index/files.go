package index

import "strings"

// The files index: one document per file, whose terms are those of all
// of the file's sections' text plus its path (see fileField), ranked by
// BM25 (Files). It is a segmented index of one field (segs.go) in the
// generation's files/ directory, apart from the sections': BM25 takes
// document counts and average lengths over a whole index, and file
// documents among section documents would skew both.

// searchFiles ranks the files for terms by BM25 over docTotal files of
// card terms in all: a disjunction of term queries, each boosted by its
// term's weight. Ties break by path.
func (x *segIndex) searchFiles(terms []Term, docTotal, card, n int) ([]FileHit, error) {
	hs, err := x.score([]fieldQuery{{field: 0, terms: terms, boost: 1, card: card}}, docTotal, n)
	if err != nil {
		return nil, err
	}
	out := make([]FileHit, len(hs))
	for i, h := range hs {
		out[i] = FileHit{Path: strings.Clone(x.segs[h.seg].id(h.doc)), Score: h.score}
	}
	return out, nil
}
