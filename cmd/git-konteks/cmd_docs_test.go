package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

// TestDocFormatsThroughExtraction commits reStructuredText, AsciiDoc and
// Org documents and checks that each is sectioned by its titles, that
// `show PATH#ANCHOR` prints one section as `why` and the MCP show find
// it, and that recall prints a heading hit's heading once.
func TestDocFormatsThroughExtraction(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	r.Git("config", "konteks.embed.provider", "none")
	for _, d := range []string{"rst", "asciidoc", "org"} {
		r.CopyTree(filepath.Join("..", "..", "testdata", "sections", d))
	}
	r.Commit("docs")
	extractJSON(t, r.Dir)

	for p, want := range map[string]struct {
		kind   string
		anchor string
	}{
		"api.rst":    {"rst", "API > Useful Functions and Classes > Config > from_envvar"},
		"guide.adoc": {"asciidoc", "Widget Guide > Install > From source"},
		"notes.org":  {"org", "Project > Review the pull request"},
	} {
		rep := show(t, r.Dir, p)
		if rep.Kind != want.kind || rep.Parser != "structural" {
			t.Errorf("%s: kind %q parser %q", p, rep.Kind, rep.Parser)
		}
		found := false
		for _, s := range rep.Sections {
			found = found || s.Anchor == want.anchor
		}
		if !found || len(rep.Sections) < 5 {
			t.Errorf("%s: %d sections, none anchored %q", p, len(rep.Sections), want.anchor)
		}
	}

	// show PATH#ANCHOR: by anchor, by plain name, and as JSON.
	out := run(t, r.Dir, "show", "api.rst#API > Incoming Request Data > request")
	if !strings.HasPrefix(out, "api.rst:21-26  API > Incoming Request Data > request  [API > Incoming Request Data > request]\n") ||
		!strings.Contains(out, "A proxy to the request data") || strings.Contains(out, "Useful Functions") {
		t.Errorf("show PATH#ANCHOR:\n%s", out)
	}
	if out := run(t, r.Dir, "show", "api.rst#from_envvar"); !strings.Contains(out, "Loads a configuration from an environment variable.") {
		t.Errorf("show PATH#NAME:\n%s", out)
	}
	var one struct {
		Path    string `json:"path"`
		Kind    string `json:"kind"`
		Section struct {
			Anchor    string `json:"anchor"`
			StartLine int    `json:"start_line"`
			Content   string `json:"content"`
		} `json:"section"`
	}
	if err := json.Unmarshal([]byte(run(t, r.Dir, "show", "--json", "guide.adoc#Widget Guide > Code")), &one); err != nil {
		t.Fatal(err)
	}
	if one.Path != "guide.adoc" || one.Kind != "asciidoc" || one.Section.StartLine != 40 || !strings.HasPrefix(one.Section.Content, "Code\n----") {
		t.Errorf("show --json PATH#ANCHOR: %+v", one)
	}
	_, errOut, err := tryRun(r.Dir, nil, "show", "api.rst#No Such Section")
	if err == nil || !strings.Contains(errOut, `api.rst has no section "No Such Section"; its anchors: preamble, API,`) {
		t.Errorf("unknown anchor: %v %s", err, errOut)
	}

	// Recall prints a heading hit's path once, not its name and then the
	// path that ends with it.
	out = run(t, r.Dir, "recall", "--mode", "lexical", "Widget Guide Old Style Title underlined")
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "guide.adoc:30-33") {
			line = l
		}
	}
	if line != "guide.adoc:30-33  Widget Guide > Old Style Title" {
		t.Errorf("heading hit line %q in:\n%s", line, out)
	}
}
