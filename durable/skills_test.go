package durable

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memref"
)

func TestParseSkill(t *testing.T) {
	s, err := ParseSkill([]byte("\xef\xbb\xbf---\r\nname: pdf-forms\r\ndescription: >\r\n  Fill PDF forms.\r\n  Use for any form.\r\nallowed-tools: Read\r\n---\r\n\r\n# Forms\r\nStep one.\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "pdf-forms" || s.Description != "Fill PDF forms. Use for any form." || s.Body != "# Forms\nStep one." ||
		!strings.Contains(s.FrontMatter, "allowed-tools: Read") {
		t.Fatalf("%+v", s)
	}
	if doc := s.Document(); !strings.HasPrefix(doc, "---\nname: pdf-forms\n") || !strings.HasSuffix(doc, "---\n\n# Forms\nStep one.\n") {
		t.Fatalf("document %q", doc)
	}
	// Without front matter of its own, Document writes name and description.
	if doc := (Skill{Name: "a", Description: "b c", Body: "x"}).Document(); doc != "---\ndescription: b c\nname: a\n---\n\nx\n" {
		t.Fatalf("synthesized %q", doc)
	}
	if s, err := ParseSkill([]byte("---\nname: only-front\ndescription: d\n---")); err != nil || s.Body != "" {
		t.Fatalf("front matter only: %v %+v", err, s)
	}
	for _, bad := range []string{"", "no front matter", "---\nname: x\n", "---\n: [\n---\nbody", "---\n" + strings.Repeat("k: v\n", 2000) + "---\nb"} {
		if _, err := ParseSkill([]byte(bad)); !errors.Is(err, ErrRejected) {
			t.Errorf("%.30q: err %v", bad, err)
		}
	}
	for _, n := range []string{"a", "pdf-forms", "x1-2", strings.Repeat("a", 64)} {
		if ValidSkillName(n) != nil {
			t.Errorf("%q rejected", n)
		}
	}
	for _, n := range []string{"", "A", "a--b", "-a", "a-", "a b", "a/b", "..", strings.Repeat("a", 65)} {
		if ValidSkillName(n) == nil {
			t.Errorf("%q accepted", n)
		}
	}
}

func TestLatestWins(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	vs := []Skill{
		{ID: "00000001" + "000000000001", Type: TypeSkill, Name: "a", Description: "old", Created: t0},
		{ID: "00000002" + "000000000002", Type: TypeSkill, Name: "a", Description: "new", Created: t0.Add(time.Second)},
		{ID: "00000003" + "000000000003", Type: TypeSkill, Name: "b", Description: "tie low", Created: t0},
		{ID: "ffffffff" + "000000000003", Type: TypeSkill, Name: "b", Description: "tie high", Created: t0},
		{ID: "00000004" + "000000000004", Type: TypeSkill, Name: "c", Description: "gone", Created: t0},
		{ID: "00000005" + "000000000005", Type: TypeTombstone, Name: "c", Created: t0.Add(time.Hour)},
	}
	// Order of versions (as a tree walk or a merge gives them) does not matter.
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}} {
		var in []Skill
		for _, i := range order {
			in = append(in, vs[i])
		}
		got := latest(in, false)
		if len(got) != 2 || got[0].Description != "new" || got[0].Versions != 2 || got[1].Description != "tie high" {
			t.Fatalf("latest: %+v", got)
		}
		if all := latest(in, true); len(all) != 3 || all[2].Type != TypeTombstone {
			t.Fatalf("all: %+v", all)
		}
	}
}

func TestSkillsInMemoryTree(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.txt", "hello\n")
	r.Commit("init")
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GetSkill(repo, "deploy"); !errors.Is(err, ErrNoSkill) {
		t.Fatalf("no memory yet: %v", err)
	}
	s, changed, err := AddSkill(repo, Skill{Name: "deploy", Description: "Ship it.", Body: "make release"})
	if err != nil || !changed || s.Versions != 1 || !strings.HasPrefix(s.Path, "durable/skills/deploy/") {
		t.Fatalf("add: %v %+v", err, s)
	}
	if _, changed, _ := AddSkill(repo, Skill{Name: "deploy", Description: "Ship  it.", Body: "make release\n"}); changed {
		t.Fatal("same content saved again")
	}
	if _, err := RemoveSkill(repo, "nothing", ""); !errors.Is(err, ErrNoSkill) {
		t.Fatalf("remove unknown: %v", err)
	}
	if _, _, err := AddSkill(repo, Skill{Name: "big", Description: "d", Body: strings.Repeat("x", MaxSkillBody+1)}); !errors.Is(err, ErrRejected) {
		t.Fatalf("big body: %v", err)
	}

	// A broken skill entry (from a peer) is reported by both loaders.
	_, err = memref.Update(repo, "test: broken skill", func(ed *gitstore.TreeEditor, w *gitstore.Writer, tip *memref.Memory) error {
		h, err := w.Blob([]byte(`{"id": "zz", "type": "skill", "name": "x"}`))
		if err != nil {
			return err
		}
		if err := ed.Set("durable/skills/x/zz", gitstore.ModeRegular, h); err != nil {
			return err
		}
		// A valid entry filed under another skill's name.
		h2, err := w.Blob([]byte(`{"id": "0123456789abcdef0123", "type": "skill", "name": "deploy", "description": "d", "body": "b", "author": "x", "created": "2026-01-01T00:00:00Z"}`))
		if err != nil {
			return err
		}
		return ed.Set("durable/skills/other/0123456789abcdef0123", gitstore.ModeRegular, h2)
	})
	if err != nil {
		t.Fatal(err)
	}
	tip, _ := memref.Read(repo, "refs/konteks")
	skills, bad, err := LoadSkills(repo, tip.Tree, false)
	if err != nil || len(skills) != 1 || len(bad) != 2 {
		t.Fatalf("LoadSkills: %v %d skills, bad %q", err, len(skills), bad)
	}
	if _, bad, err := Load(repo, tip.Tree); err != nil || len(bad) != 1 || !strings.Contains(bad[0], "skills/x/zz") {
		t.Fatalf("Load: %v bad %q", err, bad)
	}
}
