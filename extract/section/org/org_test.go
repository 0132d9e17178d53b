package org

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
)

const fixtures = "../../../testdata/sections/org"

var input = section.Input{Path: "notes.org", Language: "Org"}

var split = sectiontest.Bind(Split, input, Kind, Parser)

func TestNotes(t *testing.T) {
	content := sectiontest.Read(t, fixtures, "notes.org")
	res := split(t, content)
	sectiontest.CheckRanges(t, res, content, []sectiontest.Range{
		sectiontest.R("preamble", 1, 4),
		sectiontest.R("Project", 6, 7),
		// Keyword, priority, statistics cookie and tags are dropped; the
		// escaped star in the source block is text.
		sectiontest.R("Project > Release", 8, 13),
		sectiontest.R("Project > Review the pull request", 14, 14),
		sectiontest.R("Project > Review the pull request > code and italic words", 15, 16),
		sectiontest.R("Project > Hidden draft", 17, 17),
		// Stars without a space are no headline.
		sectiontest.R("Another top", 18, 19),
		sectiontest.R("untitled", 20, 20),
	})
	if s := res.Sections[2]; s.Name != "Release" || s.Summary != "Project > Release" {
		t.Errorf("name %q summary %q", s.Name, s.Summary)
	}
}

func TestEdgeCases(t *testing.T) {
	sectiontest.Cases(t, Split, input, Kind, Parser, slow*5*time.Second, []sectiontest.Case{
		sectiontest.C("empty", ""),
		sectiontest.C("text only", "just text\n", "preamble"),
		sectiontest.C("headline only", "* H", "H"),
		sectiontest.C("levels", "** B\n* A\n*** C\n** D\n", "B", "A", "A > C", "A > D"),
		sectiontest.C("undeclared keyword", "* WAIT x\n", "WAIT x"),
		sectiontest.C("keyword only", "* TODO\n", "untitled"),
		sectiontest.C("tags only", "* :a:b:\n", "untitled"),
		sectiontest.C("indented star", " * x\n", "preamble"),
		sectiontest.C("crlf", "* A\r\n** B\r\ntext\r\n", "A", "A > B"),
		sectiontest.C("invalid utf8", "* Ti\xfftle\n", "Ti\uFFFDtle"),
		sectiontest.C("deep", strings.Repeat("*", 100000)+" deep\n", "deep"),
	})
}

func FuzzOrg(f *testing.F) {
	sectiontest.Fuzz(f, split, filepath.Join(fixtures, "*.org"),
		"#+TODO: A B(b) | C\n* A [#B] x [1/2] :t:\n*** \n")
}
