package recall

import "github.com/konteks/git-konteks/index"

// fuseFileEvidence adds to every section of a file among the lexical
// candidates w times the evidence of all the file's matching sections
// (byFile: its sections' scores decayed by rank within the file), scaled
// to [0, 1] over the files: a file several of whose sections match the
// task is a better answer than one with a single lucky match.
func (s *Searcher) fuseFileEvidence(fused map[int]float64, lex []index.Hit, w float64) {
	files := s.byFile(lex)
	if len(files) == 0 {
		return
	}
	hi, lo := files[0].Score, files[len(files)-1].Score
	byPath := make(map[string]float64, len(files))
	for _, f := range files {
		v := 1.0
		if hi > lo {
			v = (f.Score - lo) / (hi - lo)
		}
		byPath[s.ix.Doc(f.Doc).Path] = v
	}
	for _, h := range lex {
		if v, ok := byPath[s.ix.Doc(h.Doc).Path]; ok {
			fused[h.Doc] += w * v
		}
	}
}
