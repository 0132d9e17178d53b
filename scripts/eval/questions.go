package main

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// question is one line of a question set
// (scripts/eval/questions/<owner>+<name>.jsonl): a question a person asked
// about how the code works or where something is done (an issue or
// discussion labelled a question, a Q&A page), in the asker's words, and
// the files the answer in its thread points to (a link, a path named in a
// reply, or code it quotes that one file holds). The query is the title
// and the text, asked of memory at the repository's pinned commit, where
// every answer file exists.
type question struct {
	ID    string   `json:"id"`
	URL   string   `json:"url"`
	Title string   `json:"title"`
	Text  string   `json:"text"`
	Files []string `json:"files"`
}

// readQuestions reads a question set, refusing a line without a title or
// an answer file, or an id listed twice.
func readQuestions(file string) ([]question, error) {
	seen := map[string]bool{}
	return readLines(file, func(q question) error {
		if q.ID == "" || strings.TrimSpace(q.Title) == "" || len(q.Files) == 0 {
			return fmt.Errorf("a question needs an id, a title and at least one answer file")
		}
		if seen[q.ID] {
			return fmt.Errorf("question %s listed twice", q.ID)
		}
		seen[q.ID] = true
		for _, p := range q.Files {
			if !filepath.IsLocal(p) || strings.Contains(p, "\\") || p != path.Clean(p) {
				return fmt.Errorf("%q is not a clean path inside the repository", p)
			}
		}
		return nil
	})
}

// pickQuestions makes a repository's questions candidates asked at
// pin: memory is extracted there once for all of them. A question has
// no commit of its own, so none can leak into the history asked.
func pickQuestions(dir, pin string, qs []question) ([]candidate, error) {
	at, err := git(dir, "rev-parse", "--verify", pin+"^{commit}")
	if err != nil {
		return nil, err
	}
	at = strings.TrimSpace(at)
	var out []candidate
	for _, q := range qs {
		out = append(out, candidate{id: q.ID, parent: at, msg: taskText(q.Title, q.Text), changed: q.Files})
	}
	return out, nil
}
