package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/internal/testgit"
)

const deploySkill = `---
name: deploy
description: Deploy the service to staging. Use when asked to ship or deploy.
license: MIT
---

# Deploy

1. Run ` + "`make release`" + `.
2. Watch the dashboard for five minutes.
`

func listSkills(t *testing.T, dir string, args ...string) []durable.Skill {
	t.Helper()
	var skills []durable.Skill
	out := run(t, dir, append([]string{"skill", "list", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &skills); err != nil {
		t.Fatalf("decode skills: %v\n%s", err, out)
	}
	return skills
}

func skillNames(ss []durable.Skill) string {
	var names []string
	for _, s := range ss {
		names = append(names, s.Name+"@"+s.Description[:min(len(s.Description), 12)])
	}
	return strings.Join(names, ",")
}

func TestSkillAddListShowRemove(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	r.Write("skills/deploy/SKILL.md", deploySkill)
	r.Write("review.md", "---\nname: code-review\ndescription: Review a change for tests and naming.\n---\nRead the diff twice.\n")

	// Skills can be added before any extraction; from a directory, a file, stdin.
	if out := run(t, r.Dir, "skill", "add", "skills/deploy"); !strings.Contains(out, "added skill deploy") {
		t.Fatalf("add: %s", out)
	}
	run(t, r.Dir, "skill", "add", "review.md")
	cmd := exec.Command(binary, "skill", "add", "-", "--json")
	cmd.Dir, cmd.Env = r.Dir, testgit.Env()
	cmd.Stdin = strings.NewReader("---\nname: triage\ndescription: Triage a failing CI run.\n---\nOpen the log; find the first error.\n")
	out, err := cmd.Output()
	var added struct {
		Saved bool          `json:"saved"`
		Skill durable.Skill `json:"skill"`
	}
	if err != nil || json.Unmarshal(out, &added) != nil || !added.Saved || added.Skill.Name != "triage" {
		t.Fatalf("add from stdin: %v %s", err, out)
	}
	if got := skillNames(listSkills(t, r.Dir)); got != "code-review@Review a cha,deploy@Deploy the s,triage@Triage a fai" {
		t.Fatalf("list: %s", got)
	}
	if text := run(t, r.Dir, "skill", "list"); !strings.Contains(text, "deploy") || !strings.Contains(text, "Deploy the service to staging") {
		t.Fatalf("list text:\n%s", text)
	}
	// show prints the SKILL.md document back, front matter included.
	if doc := run(t, r.Dir, "skill", "show", "deploy"); doc != deploySkill {
		t.Fatalf("show:\n%q\nwant\n%q", doc, deploySkill)
	}

	// Unchanged re-add writes nothing; an edit is a new version.
	head := r.Git("rev-parse", "refs/konteks")
	if out := run(t, r.Dir, "skill", "add", "skills/deploy/SKILL.md"); !strings.Contains(out, "unchanged") || r.Git("rev-parse", "refs/konteks") != head {
		t.Fatalf("re-add: %s", out)
	}
	r.Write("skills/deploy/SKILL.md", strings.Replace(deploySkill, "five minutes", "ten minutes", 1))
	if out := run(t, r.Dir, "skill", "add", "skills/deploy"); !strings.Contains(out, "updated skill deploy (version 2") {
		t.Fatalf("update: %s", out)
	}
	if doc := run(t, r.Dir, "skill", "show", "deploy"); !strings.Contains(doc, "ten minutes") {
		t.Fatalf("show after update:\n%s", doc)
	}

	// Refusals: no front matter, no description, a bad name, a credential.
	for _, bad := range []string{
		"# Deploy\njust text\n",
		"---\nname: x\n---\nbody\n",
		"---\nname: Bad Name\ndescription: d\n---\nbody\n",
		"---\nname: leak\ndescription: uses a token\n---\nexport TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789AB\n",
	} {
		r.Write("bad.md", bad)
		if _, errOut, err := tryRun(r.Dir, nil, "skill", "add", "bad.md"); err == nil || !strings.Contains(errOut, "not saved") {
			t.Errorf("%q: want a refusal, got %v %s", bad, err, errOut)
		}
	}

	// Extraction, rebuild included, keeps skills; memories do not see them.
	extractJSON(t, r.Dir)
	extractJSON(t, r.Dir, "--mode", "rebuild")
	if got := listSkills(t, r.Dir); len(got) != 3 {
		t.Fatalf("after rebuild: %d skills", len(got))
	}
	if _, errOut, err := tryRun(r.Dir, nil, "memories", "list"); err != nil || strings.Contains(errOut, "broken") {
		t.Fatalf("memories list with skills present: %v %s", err, errOut)
	}

	// Remove: gone from list and show, kept with --all.
	run(t, r.Dir, "skill", "remove", "triage", "--reason", "CI moved")
	if got := skillNames(listSkills(t, r.Dir)); strings.Contains(got, "triage") {
		t.Fatalf("removed skill listed: %s", got)
	}
	if all := listSkills(t, r.Dir, "--all"); len(all) != 3 || all[2].Type != durable.TypeTombstone || all[2].Reason != "CI moved" {
		t.Fatalf("--all: %+v", all)
	}
	if _, errOut, err := tryRun(r.Dir, nil, "skill", "show", "triage"); err == nil || !strings.Contains(errOut, "no such skill") {
		t.Fatalf("show removed: %v %s", err, errOut)
	}
	if _, errOut, err := tryRun(r.Dir, nil, "skill", "remove", "triage"); err == nil || !strings.Contains(errOut, "no such skill") {
		t.Fatalf("remove twice: %v %s", err, errOut)
	}
	// Adding it again brings it back.
	cmd = exec.Command(binary, "skill", "add", "-")
	cmd.Dir, cmd.Env = r.Dir, testgit.Env()
	cmd.Stdin = strings.NewReader("---\nname: triage\ndescription: Triage a failing build.\n---\nStart at the first error.\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("re-add: %v %s", err, out)
	}
	if got := skillNames(listSkills(t, r.Dir)); !strings.Contains(got, "triage@Triage a fai") {
		t.Fatalf("re-added: %s", got)
	}
}

// TestSkillMergeAcrossClones: two clones change the same skill; after
// push and fetch both hold every version and agree on the newest.
func TestSkillMergeAcrossClones(t *testing.T) {
	t.Parallel()
	remote := bareRemote(t, mixedRepo(t))
	a, b := cloneOf(t, remote, "a"), cloneOf(t, remote, "b")

	a.Write("SKILL.md", deploySkill)
	run(t, a.Dir, "skill", "add", "SKILL.md")
	run(t, a.Dir, "push")
	run(t, b.Dir, "fetch")
	if got := listSkills(t, b.Dir); len(got) != 1 || got[0].Name != "deploy" {
		t.Fatalf("b after fetch: %+v", got)
	}
	// Both change "deploy" without seeing each other; b's edit is later.
	a.Write("SKILL.md", strings.Replace(deploySkill, "Watch", "Ask A to watch", 1))
	run(t, a.Dir, "skill", "add", "SKILL.md")
	b.Write("SKILL.md", strings.Replace(deploySkill, "Watch", "Ask B to watch", 1))
	run(t, b.Dir, "skill", "add", "SKILL.md")
	b.Write("lint.md", "---\nname: lint\ndescription: Run the linters before a commit.\n---\nmake lint\n")
	run(t, b.Dir, "skill", "add", "lint.md")
	run(t, a.Dir, "push")
	run(t, b.Dir, "push") // fetches a's memory, merges, pushes the union
	run(t, a.Dir, "fetch")
	for _, c := range []*testgit.Repo{a, b} {
		got := listSkills(t, c.Dir)
		if skillNames(got) != "deploy@Deploy the s,lint@Run the lint" || got[0].Versions != 3 {
			t.Fatalf("%s: %s (%d versions)", c.Dir, skillNames(got), got[0].Versions)
		}
		if doc := run(t, c.Dir, "skill", "show", "deploy"); !strings.Contains(doc, "Ask B to watch") {
			t.Fatalf("%s: newest version should win:\n%s", c.Dir, doc)
		}
	}
	// A removal on one side reaches the other.
	run(t, a.Dir, "skill", "remove", "lint")
	run(t, a.Dir, "push")
	run(t, b.Dir, "fetch")
	if got := skillNames(listSkills(t, b.Dir)); got != "deploy@Deploy the s" {
		t.Fatalf("b after removal: %s", got)
	}
}
