package recall

import (
	"context"
	"testing"
	"time"

	"github.com/konteks/git-konteks/durable"
)

// answerMatcher holds a skill about deploying dashboards, a decision
// linked to fetch/fetch.go and a memory about retries.
func answerMatcher() *DurableMatcher {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	item := func(id, kind, text string, paths ...string) durable.Item {
		return durable.Item{Entry: durable.Entry{ID: id, Type: durable.TypeMemory, Kind: kind, Text: text, Paths: paths, Created: at},
			Status: durable.StatusLive}
	}
	skill := durable.Skill{ID: "s1", Type: durable.TypeSkill, Name: "deploy-dashboards",
		Description: "How to deploy the dashboards to the staging cluster", Created: at}
	return NewDurableMatcher([]durable.Item{
		item("m1", "decision", "Requests are never retried more than five times.", "fetch/fetch.go"),
		item("m2", "constraint", "Backoff must stay under the ceiling of ten seconds between attempts when a Get fails."),
	}, skill)
}

func answer(t *testing.T, s *Searcher, task string, opt AnswerOptions) *Response {
	t.Helper()
	a, err := Answer(context.Background(), s, task, opt)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func memoryIDs(ms []MemoryHit) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		out[m.ID] = true
	}
	return out
}

// An entry that shares a word or two with a long bug report is left out
// when the code matches most of it; entries that match as well, or are
// linked to a file of the answer, stay.
func TestAnswerShowsMemoriesThatMatchAboutAsWellAsTheCode(t *testing.T) {
	_, repo := repoWithMemory(t)
	s := openS(t, repo, OpenOptions{NoEmbedder: true})
	bug := "Get keeps retrying transient failures: the backoff delay doubles with every failed attempt " +
		"and the ceiling is ignored, so the next attempt waits minutes (seen while we deploy dashboards)"
	for _, files := range []bool{false, true} {
		a := answer(t, s, bug, AnswerOptions{Files: files, Matcher: answerMatcher()})
		if a.Evidence.NoMatch || (len(a.Hits) == 0 && len(a.Files) == 0) {
			t.Fatalf("files %v: no code answer: %+v", files, a.Evidence)
		}
		got := memoryIDs(a.Memories)
		if got["s1"] || !got["m1"] || !got["m2"] {
			t.Errorf("files %v: memories %v (code coverage %.2f), want m1 and m2 without the skill", files, got, a.Evidence.Coverage)
		}
	}
	// Asked about deploying, the skill is the answer.
	a := answer(t, s, "deploy the dashboards", AnswerOptions{Matcher: answerMatcher()})
	if !memoryIDs(a.Memories)["s1"] {
		t.Errorf("deploy task: memories %+v, want the skill", a.Memories)
	}
}

// Files answers carry evidence and drop their files when nothing matches,
// as section answers do.
func TestAnswerFilesCarryEvidence(t *testing.T) {
	_, repo := repoWithMemory(t)
	s := openS(t, repo, OpenOptions{NoEmbedder: true})
	a := answer(t, s, "backoff ceiling", AnswerOptions{Files: true})
	if len(a.Files) == 0 || a.Files[0].Path != "fetch/fetch.go" || a.Evidence.Strength == "" || a.Evidence.NoMatch {
		t.Fatalf("files answer %+v evidence %+v", a.Files, a.Evidence)
	}
	if len(a.Hits) != 0 || a.Memories == nil {
		t.Errorf("files answer holds hits %v memories %v", a.Hits, a.Memories)
	}
	a = answer(t, s, "zxqv wplk", AnswerOptions{Files: true})
	if !a.Evidence.NoMatch || len(a.Files) != 0 {
		t.Errorf("unmatched task: files %v evidence %+v", a.Files, a.Evidence)
	}
}

func TestAnswerCountsCommitsAhead(t *testing.T) {
	r, repo := repoWithMemory(t)
	for _, f := range []string{"a.md", "b.md"} {
		r.Write(f, "# "+f+"\n")
		r.Commit(f)
	}
	s := openS(t, repo, OpenOptions{NoEmbedder: true})
	a := answer(t, s, "backoff", AnswerOptions{})
	if !a.Memory.HeadAhead || a.Memory.CommitsAhead != 2 || a.Memory.CommitsBehind != 0 {
		t.Errorf("memory state %+v, want HEAD 2 commits ahead", a.Memory)
	}
}

// A context pack shows the saved entries recall would: matched against
// the pack's evidence, the skill sharing a word with the bug report stays
// out.
func TestPackMemoriesMatchAsRecallDoes(t *testing.T) {
	_, repo := repoWithMemory(t)
	s := openS(t, repo, OpenOptions{NoEmbedder: true})
	bug := "Get keeps retrying transient failures: the backoff delay doubles with every failed attempt " +
		"and the ceiling is ignored, so the next attempt waits minutes (seen while we deploy dashboards)"
	p, err := s.Context(context.Background(), bug, PackOptions{Budget: DefaultBudget})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, sec := range p.Sections {
		paths = append(paths, sec.Path)
	}
	ms, err := s.MatchMemories(bug, p.Evidence, paths, 0, answerMatcher())
	if err != nil {
		t.Fatal(err)
	}
	if got := memoryIDs(ms); got["s1"] || !got["m1"] || !got["m2"] {
		t.Errorf("pack memories %v, want m1 and m2 without the skill", got)
	}
}

// TestEvidenceDoesNotDependOnTheLimit: the label judges the ranking, not
// how many of its hits are shown.
func TestEvidenceDoesNotDependOnTheLimit(t *testing.T) {
	_, repo := repoWithMemory(t)
	s := openS(t, repo, OpenOptions{})
	for _, files := range []bool{false, true} {
		for _, task := range []string{"how long to wait before retrying a failed attempt", "render helper chart things", "widgetizer dashboards usage"} {
			var first Evidence
			for i, limit := range []int{1, 3, 5, 10} {
				a, err := Answer(context.Background(), s, task, AnswerOptions{Options: Options{Limit: limit}, Files: files})
				if err != nil {
					t.Fatal(err)
				}
				if len(a.Hits) > limit || len(a.Files) > limit {
					t.Fatalf("%q (files %v): %d hits, %d files at --limit %d", task, files, len(a.Hits), len(a.Files), limit)
				}
				if i == 0 {
					first = a.Evidence
					continue
				}
				if a.Evidence.Strength != first.Strength || a.Evidence.Reason != first.Reason {
					t.Errorf("%q (files %v): --limit 1 says %s (%s), --limit %d %s (%s)", task, files, first.Strength, first.Reason, limit, a.Evidence.Strength, a.Evidence.Reason)
				}
			}
		}
	}
}
