package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/secret"
)

// Result is what an ingestion saved.
type Result struct {
	Record   durable.Item   `json:"record"`
	Memories []durable.Item `json:"memories"`
	// New counts the entries written (0: the session was already known).
	New int `json:"new"`
	// Written is the size in bytes of the entries written.
	Written int `json:"written_bytes"`
	// Redacted counts the credentials replaced by markers.
	Redacted int `json:"redacted"`
}

// Ingest saves what a digest holds as durable memory of repo, in one
// memory commit: a memory per constraint, preference, decision, case and
// command, and the session record that lists them. Every text passes the
// secret detector (credentials become markers). A memory already in
// memory is not saved again; one that revises a memory of an earlier
// session of the same author supersedes it; the same transcript ingested
// twice writes nothing.
func Ingest(repo *gitstore.Repo, dg Digest, now time.Time) (Result, error) {
	res := Result{Redacted: dg.Redacted}
	red := func(s string) string {
		out, ms := secret.RedactString(s)
		res.Redacted += len(ms)
		return out
	}
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil && mem == nil {
		return res, err
	}
	var items []durable.Item
	if mem != nil {
		if items, _, err = durable.Load(repo, mem.Tree); err != nil {
			return res, err
		}
	}
	v := durable.NewVerifier(repo, mem)
	me := durable.LocalAuthor(repo)
	key := sessionKey(dg)
	when := func(t time.Time) time.Time {
		switch {
		case !t.IsZero():
			return t.Truncate(time.Millisecond)
		case !dg.End.IsZero():
			return dg.End.Truncate(time.Millisecond)
		}
		return now.UTC().Truncate(time.Millisecond)
	}
	agentTag := "agent:" + tagWord(dg.Meta.Agent)

	// A memory that was learned before and has since been superseded or
	// forgotten stays so: ingesting an old session again must not bring
	// back what a later one revised or a person forgot.
	retired := map[string]bool{}
	for _, it := range items {
		if it.Type == durable.TypeMemory && it.Status != durable.StatusLive {
			retired[it.Kind+"\x00"+normalize(it.Text)] = true
		}
	}
	var entries []durable.Entry
	for _, m := range dg.Memories {
		e := durable.Entry{Type: durable.TypeMemory, Kind: m.Kind, Subject: red(m.Subject), Text: red(m.Text), Scope: m.Scope,
			Tags: []string{"session", agentTag}, Created: when(m.Time), Author: me, Session: key}
		e.Paths = relPaths(repo, dg.Meta.Cwd, m.Files)
		durable.LinkMentions(repo, &e)
		e.Paths = dedupe(e.Paths)
		e.Cites = v.Cites(e.Paths, e.Symbols)
		if durable.Check(e) != nil || retired[e.Kind+"\x00"+normalize(e.Text)] {
			continue // too short, a credential the markers did not cover, or retired
		}
		e.Supersedes = revises(items, e, me)
		entries = append(entries, e)
	}

	task := red(dg.Task)
	if len(strings.Fields(task)) < 2 {
		task = "An agent session (" + dg.Meta.Agent + ") with no stated task"
	}
	rec := &durable.SessionRecord{Agent: clip(dg.Meta.Agent, 64), Key: key, Start: dg.Start, End: dg.End,
		Outcome: clip(red(dg.Outcome), durable.MaxOutcome), Hash: dg.Hash, Messages: dg.Messages, Calls: dg.Calls, Failures: dg.Failures}
	for _, f := range relPaths(repo, dg.Meta.Cwd, dg.Files) {
		if len(rec.Files) < durable.MaxRecordList {
			rec.Files = append(rec.Files, f)
		}
	}
	rec.Commits = commits(repo, dg, me)
	if dg.Raw != "" {
		rec.Raw = clip(red(dg.Raw), durable.MaxRaw)
	}
	recEntry := durable.Entry{Type: durable.TypeSession, Subject: rec.Agent, Text: clipWords(task, maxTask+64), Tags: []string{"session", agentTag},
		Created: when(dg.End), Author: me, Record: rec}
	for _, it := range durable.Sessions(items) {
		if it.Record.Key == key && it.Record.Hash != dg.Hash {
			recEntry.Supersedes = it.ID // the session went on: this record replaces that one
			break
		}
	}
	entries = append(entries, recEntry)

	fill := func(b *durable.Batch, e *durable.Entry) {
		if e.Type != durable.TypeSession {
			return
		}
		for _, it := range b.Items {
			if len(e.Record.Memories) < durable.MaxRecordList {
				e.Record.Memories = append(e.Record.Memories, it.ID)
			}
		}
	}
	b, err := durable.SaveBatch(repo, entries, "konteks: ingest a session of "+tagWord(dg.Meta.Agent)+"\n", fill)
	if err != nil {
		return res, err
	}
	for i, it := range b.Items {
		if b.New[i] {
			res.New++
			res.Written += durable.StoredSize(it)
		}
		if it.Type == durable.TypeSession {
			res.Record = it
		} else {
			res.Memories = append(res.Memories, it)
		}
	}
	return res, nil
}

// sessionKey names a session across ingestions: the agent and its own
// session id, or a hash of the task and start when it has none.
func sessionKey(dg Digest) string {
	id := dg.Meta.ID
	if id == "" || len(id) > 120 || secret.ContainsString(id) {
		sum := sha256.Sum256([]byte(dg.Meta.Agent + "\x00" + dg.Task + "\x00" + dg.Start.String()))
		id = "h" + hex.EncodeToString(sum[:10])
	}
	return tagWord(dg.Meta.Agent) + ":" + tagWord(id)
}

// tagWord keeps letters, digits and -_.: of s.
func tagWord(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:", r) {
			return r
		}
		return -1
	}, s)
}

// relPaths turns the files a session names into source paths of repo:
// absolute ones inside the work tree, relative ones from the session's
// directory. Files outside the repository are left out.
func relPaths(repo *gitstore.Repo, cwd string, files []string) []string {
	root := repo.WorkTree
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !filepath.IsAbs(f) && cwd != "" {
			f = filepath.Join(cwd, f)
		}
		if filepath.IsAbs(f) {
			if root == "" {
				continue
			}
			r, err := filepath.Rel(root, f)
			if (err != nil || strings.HasPrefix(r, "..")) && cwd != "" {
				// The session ran in another clone of the repository (its
				// directory is the clone's top): the same path there.
				r, err = filepath.Rel(cwd, f)
			}
			if err != nil || strings.HasPrefix(r, "..") {
				continue
			}
			f = r
		}
		f = filepath.ToSlash(filepath.Clean(f))
		if f == "" || f == "." || memory.ValidSourcePath(f) != nil || seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out
}

// commits lists the commits a session made: the ids git printed in the
// session that name commits here, and the local author's commits on HEAD
// within the session's time span.
func commits(repo *gitstore.Repo, dg Digest, me string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(h string) {
		if !seen[h] && len(out) < durable.MaxRecordList {
			seen[h] = true
			out = append(out, h)
		}
	}
	for _, ref := range dg.CommitRefs {
		if c, err := repo.Resolve(ref); err == nil {
			add(c.Hash.String())
		}
	}
	if dg.Start.IsZero() {
		return out
	}
	head, err := repo.Resolve("HEAD")
	if err != nil {
		return out
	}
	from, to := dg.Start.Add(-time.Minute).Unix(), dg.End.Add(time.Minute).Unix()
	errDone := errors.New("done")
	_ = repo.Log(context.Background(), gitstore.LogOptions{Include: []gitstore.Hash{head.Hash}, MaxCount: 500, TreesOnly: true}, func(c *gitstore.LogCommit) error {
		if c.AuthorTime < from {
			return errDone // older than the session: the walk is by date
		}
		if c.AuthorTime <= to && durable.SameAuthor(c.AuthorName+" <"+c.AuthorEmail+">", me) {
			add(c.Hash.String())
		}
		return nil
	})
	return out
}

// revises finds the live memory of an earlier session by the same author
// that e revises: a constraint or preference about the same things
// worded otherwise, or a command for the same purpose with the same tool.
func revises(items []durable.Item, e durable.Entry, me string) string {
	terms := termSet(e.Text)
	best, bestScore := "", 0.0
	for _, it := range items {
		if it.Status != durable.StatusLive || it.Type != durable.TypeMemory || it.Session == "" || it.Session == e.Session ||
			it.Kind != e.Kind || !durable.SameAuthor(it.Author, me) || strings.EqualFold(strings.TrimSpace(it.Text), e.Text) {
			continue
		}
		switch e.Kind {
		case KindCommand:
			if it.Subject == e.Subject && firstWord(commandOf(it.Text)) == firstWord(commandOf(e.Text)) && !it.Created.After(e.Created) {
				return it.ID
			}
		case KindConstraint, KindPreference:
			if s := jaccard(terms, termSet(it.Text)); s >= 0.5 && s > bestScore && !it.Created.After(e.Created) {
				best, bestScore = it.ID, s
			}
		}
	}
	return best
}

func commandOf(text string) string {
	i := strings.IndexByte(text, '`')
	j := strings.LastIndexByte(text, '`')
	if i < 0 || j <= i {
		return ""
	}
	return text[i+1 : j]
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

func termSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range index.Terms(s) {
		out[t] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n := 0
	for t := range a {
		if b[t] {
			n++
		}
	}
	return float64(n) / float64(len(a)+len(b)-n)
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
