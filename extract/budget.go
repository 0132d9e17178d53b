package extract

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/memory"
)

// RecordBudget bounds the encoded size of one record, well below what
// memory reads back (memory.MaxRecordSize): a file of many tiny sections
// (130k one-line functions) costs far more in per-section metadata than
// in text, and a record memory cannot read would make every reader fail.
const RecordBudget = memory.MaxRecordSize / 4

// budgetCheckMin is the smallest file worth measuring: below it no record
// comes near the budget.
const budgetCheckMin = 256 << 10

// trimmedPrefix starts the record warning of a record cut to the budget.
const trimmedPrefix = "trimmed to the record budget: "

// recordSize is the encoded (uncompressed) size of f.
func recordSize(f *memory.File) int {
	b, err := json.Marshal(f)
	if err != nil {
		return 0
	}
	return len(b)
}

// trimRecord makes a record of the file that fits the budget: adjacent
// sections are merged into blocks, two at a time, until it fits; a file
// whose text alone is over the budget keeps only the sections that fit.
// The record says what was done in a warning, and the manifest counts it.
func trimRecord(p, blob string, data []byte, in section.Input, res section.Result) *memory.File {
	n0 := len(res.Sections)
	secs := res.Sections
	var f *memory.File
	for {
		secs = mergePairs(secs)
		r := res
		r.Sections = secs
		section.Finish(&r, in)
		f = makeRecord(p, blob, data, r)
		if recordSize(f) <= RecordBudget || len(secs) <= 64 {
			break
		}
	}
	dropped := 0
	for size := recordSize(f); size > RecordBudget && len(f.Sections) > 1; size = recordSize(f) {
		keep := len(f.Sections) * RecordBudget / size * 9 / 10
		keep = max(1, min(keep, len(f.Sections)-1))
		dropped += len(f.Sections) - keep
		r := res
		r.Sections = f.Sections[:keep]
		f = makeRecord(p, blob, data, r)
	}
	if len(f.Sections) == 1 && recordSize(f) > RecordBudget {
		s := &f.Sections[0]
		s.Content = s.Content[:min(len(s.Content), RecordBudget/8)]
		dropped++
	}
	msg := fmt.Sprintf("%s%d sections merged into %d", trimmedPrefix, n0, len(f.Sections))
	if dropped > 0 {
		msg += fmt.Sprintf(", %d dropped", dropped)
	}
	f.Warnings = append(f.Warnings, msg)
	return f
}

// mergePairs joins each pair of adjacent sections into one block that
// spans both: the text is kept, the per-symbol metadata is not.
func mergePairs(secs []memory.Section) []memory.Section {
	out := make([]memory.Section, 0, (len(secs)+1)/2)
	for i := 0; i < len(secs); i += 2 {
		a := secs[i]
		if i+1 == len(secs) {
			out = append(out, a)
			continue
		}
		b := secs[i+1]
		var c strings.Builder
		c.Grow(len(a.Content) + len(b.Content) + 1)
		c.WriteString(a.Content)
		c.WriteByte('\n')
		c.WriteString(b.Content)
		out = append(out, memory.Section{
			Kind: a.Kind, Symbol: "block", Language: a.Language, Parser: a.Parser,
			StartLine: a.StartLine, EndLine: max(a.EndLine, b.EndLine), Content: c.String(),
		})
	}
	return out
}
