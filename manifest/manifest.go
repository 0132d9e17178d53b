// Package manifest defines manifest.json, the plain-JSON header of every
// memory commit: what was extracted, from which source commit, how, and
// what was counted on the way.
package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Schema is the manifest format version.
const Schema = 2

// MaxSize bounds a manifest read from a (possibly hostile) memory tree.
const MaxSize = 4 << 20

// Manifest describes one memory commit.
type Manifest struct {
	Schema        int    `json:"schema"`
	ToolVersion   string `json:"tool_version"`
	RecordVersion int    `json:"record_version"`
	GateVersion   int    `json:"gate_version"`
	// SummaryVersion versions the directory summarizer.
	SummaryVersion int `json:"summary_version,omitempty"`
	// Summarizer names what wrote the directory summaries: builtin-vN or llm:<model>.
	Summarizer string `json:"summarizer,omitempty"`

	SourceCommit string `json:"source_commit"`
	SourceTree   string `json:"source_tree"`

	Mode      string `json:"mode"`                // mode that ran: full, changed, resume, rebuild
	Requested string `json:"requested,omitempty"` // mode asked for, when it differs
	Reason    string `json:"reason,omitempty"`    // why the mode differs from the request

	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`

	// Totals describe the whole memory after this run; Run what this run did.
	Totals Totals `json:"totals"`
	Run    Run    `json:"run"`
	// Timings are stage durations of this run in milliseconds.
	Timings map[string]float64 `json:"timings_ms,omitempty"`

	EmbedModel string `json:"embed_model,omitempty"`

	// History counts the history memory (history/), when recorded.
	History *History `json:"history,omitempty"`

	// Partial is set only in checkpoints of an unfinished run.
	Partial *Partial `json:"partial,omitempty"`
}

// Totals count the memory as a whole.
type Totals struct {
	Scanned        int            `json:"scanned"`  // entries of the source tree considered
	Included       int            `json:"included"` // files with a record
	Skipped        map[string]int `json:"skipped"`  // by gate reason
	Sections       int            `json:"sections"`
	SectionsByKind map[string]int `json:"sections_by_kind,omitempty"`
	// SectionsByParser counts sections by the parser that made them.
	SectionsByParser map[string]int `json:"sections_by_parser,omitempty"`
	Parsers          map[string]int `json:"parsers,omitempty"`   // files by parser
	Fallbacks        map[string]int `json:"fallbacks,omitempty"` // fallback files by reason
	Bytes            int64          `json:"bytes"`               // source bytes included
	// Languages counts included bytes by language.
	Languages map[string]int64 `json:"languages,omitempty"`
	// Redacted counts records whose credential values were replaced by
	// markers; Trimmed records cut to the record size budget.
	Redacted int `json:"redacted,omitempty"`
	Trimmed  int `json:"trimmed,omitempty"`
}

// Run counts what one run did.
type Run struct {
	Considered int `json:"considered"` // paths examined this run
	// RedactedDerived counts credential values redacted from derived
	// texts (portrait, directory summaries, modules) this run.
	RedactedDerived int            `json:"redacted_derived,omitempty"`
	Extracted       int            `json:"extracted"` // records made anew
	Reused          int            `json:"reused"`    // records kept or reused by blob id (renames, reverts)
	Removed         int            `json:"removed"`   // records deleted
	Skipped         map[string]int `json:"skipped,omitempty"`
	BytesRead       int64          `json:"bytes_read"`
	// Embedded counts texts embedded anew; EmbedReused vectors found by hash.
	Embedded    int `json:"embedded,omitempty"`
	EmbedReused int `json:"embed_reused,omitempty"`
	// Summaries counts directory summaries refreshed (or deferred).
	Summaries int `json:"summaries"`
	// LLMTokens and LLMFailures count the LLM summarizer's use, when set.
	LLMTokens   int `json:"llm_tokens,omitempty"`
	LLMFailures int `json:"llm_failures,omitempty"`
	// VLMDescribed, VLMFailures and VLMTokens count image descriptions
	// written by the vision model (konteks.vlm.*), when set.
	VLMDescribed int `json:"vlm_described,omitempty"`
	VLMFailures  int `json:"vlm_failures,omitempty"`
	VLMTokens    int `json:"vlm_tokens,omitempty"`
	// Formats counts the files this run sectioned anew, by record kind
	// (code, markdown, html, pdf, notebook, media, ...).
	Formats map[string]*FormatRun `json:"formats,omitempty"`
}

// FormatRun is what sectioning the files of one kind cost in one run.
type FormatRun struct {
	Files    int     `json:"files"`
	ParseMS  float64 `json:"parse_ms"` // time in the sectioners, summed over workers
	Warnings int     `json:"warnings,omitempty"`
}

// History counts the commits recorded in history/: in all, by this run,
// and the immutable segments holding them (the rest are in the tail).
type History struct {
	Commits  int `json:"commits"`
	New      int `json:"new"`
	Segments int `json:"segments"`
	// Pending says older history is still being recorded (in the
	// background, after the first extraction); Oldest is the author date
	// (seconds since the epoch) of the oldest commit recorded.
	Pending bool  `json:"pending,omitempty"`
	Oldest  int64 `json:"oldest,omitempty"`
}

// Partial describes a checkpoint of an interrupted run.
type Partial struct {
	Target string `json:"target"` // source commit being extracted
	Base   string `json:"base"`   // memory commit the run started from ("" for none)
	Mode   string `json:"mode"`
	Done   int    `json:"done"`
}

// Encode renders the manifest as indented JSON.
func (m *Manifest) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Decode parses and checks a manifest.
func Decode(b []byte) (*Manifest, error) {
	if len(b) > MaxSize {
		return nil, fmt.Errorf("corrupt manifest: %d bytes, over the %d limit", len(b), MaxSize)
	}
	var m Manifest
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("corrupt manifest: %w", err)
	}
	if m.Schema <= 0 {
		return nil, fmt.Errorf("corrupt manifest: no schema version")
	}
	if m.Schema > Schema {
		return nil, fmt.Errorf("manifest schema %d is newer than this tool understands (%d): upgrade git-konteks", m.Schema, Schema)
	}
	if len(m.SourceCommit) != 40 || len(m.SourceTree) != 40 {
		return nil, fmt.Errorf("corrupt manifest: bad source commit or tree")
	}
	return &m, nil
}
