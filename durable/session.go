package durable

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/memref"
)

// A session record says what one agent session was: the task (the entry's
// Text), when it ran, what came of it, the files and commits it touched
// and the memories it produced. It is an entry like any other (one file
// under durable/sessions/, its id bound to its content and author), so it
// travels with fetch and obeys forget and purge; it is bounded to a few KB
// whatever the transcript's size.

// Limits on a session record.
const (
	MaxRecordList = 50
	MaxOutcome    = 1024
	MaxRaw        = 8 << 10
)

// SessionRecord is the record of one agent session.
type SessionRecord struct {
	Agent string `json:"agent"`
	// Key names the session across ingestions: the agent and its own
	// session id. A later ingestion of the same session (it went on)
	// supersedes the earlier record.
	Key      string    `json:"key"`
	Start    time.Time `json:"start,omitempty"`
	End      time.Time `json:"end,omitempty"`
	Outcome  string    `json:"outcome,omitempty"`
	Files    []string  `json:"files,omitempty"`
	Commits  []string  `json:"commits,omitempty"`
	Memories []string  `json:"memories,omitempty"` // ids of the memories it produced
	Hash     string    `json:"transcript_sha256"`
	Messages int       `json:"messages"`
	Calls    int       `json:"tool_calls"`
	Failures int       `json:"failures"`
	// Raw is the conversation's text, redacted and capped, kept only when
	// asked for (session ingest --keep-raw).
	Raw string `json:"raw,omitempty"`
}

// texts are the record's free texts, for the credential check.
func (r *SessionRecord) texts() []string {
	if r == nil {
		return nil
	}
	out := []string{r.Agent, r.Key, r.Outcome, r.Raw}
	return append(out, r.Files...)
}

// checkRecord bounds a session record and requires one exactly on
// session entries.
func checkRecord(e Entry) error {
	r := e.Record
	if (e.Type == TypeSession) != (r != nil) {
		if r == nil {
			return fmt.Errorf("session entry without its record")
		}
		return fmt.Errorf("a record on an entry of type %s", e.Type)
	}
	if r == nil {
		return nil
	}
	if r.Agent == "" || r.Key == "" || len(r.Agent) > 64 || len(r.Key) > 200 {
		return fmt.Errorf("session record without a valid agent and key")
	}
	if len(r.Outcome) > MaxOutcome || len(r.Raw) > MaxRaw {
		return fmt.Errorf("session record over size limits")
	}
	if len(r.Files) > MaxRecordList || len(r.Commits) > MaxRecordList || len(r.Memories) > MaxRecordList {
		return fmt.Errorf("session record lists over %d entries", MaxRecordList)
	}
	for _, c := range r.Commits {
		if !isHex(c, 40) {
			return fmt.Errorf("session record: bad commit id %q", c)
		}
	}
	for _, id := range r.Memories {
		if !validID(id) {
			return fmt.Errorf("session record: bad memory id %q", id)
		}
	}
	return nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// duplicate reports whether e repeats the live entry it: the same kind
// and text, or for a session record the same session and transcript. An
// entry never repeats the one it supersedes (a confirmation re-cites the
// same text).
func duplicate(it Item, e Entry) bool {
	if it.Status != StatusLive || e.Type == TypeTombstone || it.Type != e.Type || it.ID == e.Supersedes {
		return false
	}
	if e.Type == TypeSession {
		return it.Record != nil && e.Record != nil && it.Record.Key == e.Record.Key && it.Record.Hash == e.Record.Hash
	}
	return it.Kind == e.Kind && normalize(it.Text) == normalize(e.Text)
}

// Batch is the outcome of SaveBatch: each entry as saved, or the live
// entry it duplicates.
type Batch struct {
	Items []Item
	New   []bool
}

// SaveBatch saves entries in one memory commit (none when every entry is
// already there). Each entry is checked as Save checks it; entries with a
// Supersedes target must name a full id of an entry in memory or earlier
// in the batch. fill, when set, is called inside the update with the
// entries already saved and may complete an entry from them (a session
// record lists its memories).
func SaveBatch(repo *gitstore.Repo, entries []Entry, message string, fill func(b *Batch, e *Entry)) (Batch, error) {
	for i := range entries {
		e := &entries[i]
		e.Text, e.Subject = strings.TrimSpace(e.Text), strings.TrimSpace(e.Subject)
		if err := check(*e); err != nil {
			return Batch{}, err
		}
	}
	var out Batch
	_, err := memref.Update(repo, message, func(ed *gitstore.TreeEditor, w *gitstore.Writer, tip *memref.Memory) error {
		out = Batch{}
		var items []Item
		if tip != nil {
			var err error
			if items, _, err = Load(repo, tip.Tree); err != nil {
				return err
			}
		}
		known := map[string]bool{}
		for _, it := range items {
			known[it.ID] = true
		}
		for _, e := range entries {
			if fill != nil {
				fill(&out, &e)
			}
			var dup *Item
			for i := range items {
				if duplicate(items[i], e) {
					dup = &items[i]
					break
				}
			}
			if dup != nil {
				out.Items, out.New = append(out.Items, *dup), append(out.New, false)
				continue
			}
			if e.Supersedes != "" && !known[e.Supersedes] {
				return fmt.Errorf("no durable memory with id %s", e.Supersedes)
			}
			data, err := finish(repo, &e)
			if err != nil {
				return err
			}
			h, err := w.Blob(data)
			if err != nil {
				return err
			}
			if err := ed.Set(treePath(e), gitstore.ModeRegular, h); err != nil {
				return err
			}
			it := Item{Entry: e, Status: StatusLive, Path: treePath(e)}
			items = append(items, it)
			known[e.ID] = true
			out.Items, out.New = append(out.Items, it), append(out.New, true)
		}
		return nil
	})
	return out, err
}

// Sessions lists the live session records of items, newest first.
func Sessions(items []Item) []Item {
	var out []Item
	for _, it := range items {
		if it.Type == TypeSession && it.Status == StatusLive && it.Record != nil {
			out = append(out, it)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out
}

// SessionLinks maps each commit a live session record lists to that
// session (the newest when several list it), so why and history can say
// which task produced a change.
func SessionLinks(items []Item) map[string]history.SessionLink {
	out := map[string]history.SessionLink{}
	for _, it := range Sessions(items) {
		task := strings.Join(strings.Fields(it.Text), " ")
		if r := []rune(task); len(r) > 200 {
			task = string(r[:199]) + "…"
		}
		for _, c := range it.Record.Commits {
			if _, ok := out[c]; !ok {
				out[c] = history.SessionLink{Record: it.ID, Agent: it.Record.Agent, Task: task}
			}
		}
	}
	return out
}

// StoredSize is the size in bytes of an entry as stored, for measuring
// what an ingestion writes.
func StoredSize(it Item) int {
	b, _ := json.MarshalIndent(it.Entry, "", "  ")
	return len(b) + 1
}

// Check reports whether e would be saved (its content is checked as Save
// checks it), so a caller building a batch can leave out what would be
// refused rather than lose the batch.
func Check(e Entry) error { return check(e) }
