package history

import (
	"fmt"
	"strings"
	"time"
)

// writeSession names the agent session a commit was made in.
func writeSession(b *strings.Builder, s *SessionLink) {
	if s != nil {
		fmt.Fprintf(b, "    made in a %s session (git konteks session show %.10s): %s\n", s.Agent, s.Record, s.Task)
	}
}

// Briefs are the briefs of the commits, in order.
func (r *WhyResult) Briefs() []*Brief {
	return briefsOf(r.Commits, func(c *WhyCommit) *Brief { return &c.Brief })
}

// briefsOf is the brief of each of xs, in order.
func briefsOf[T any](xs []T, brief func(*T) *Brief) []*Brief {
	bs := make([]*Brief, len(xs))
	for i := range xs {
		bs[i] = brief(&xs[i])
	}
	return bs
}

// Text renders a `why` answer for people and models: one block per
// commit, the commit that matters most first.
func (r *WhyResult) Text() string {
	var b strings.Builder
	what := r.Path
	switch {
	case r.Anchor != "":
		what = fmt.Sprintf("%s#%s (lines %d-%d)", r.Path, r.Anchor, r.Start, r.End)
	case r.Start > 0:
		what = fmt.Sprintf("%s:%d-%d", r.Path, r.Start, r.End)
	}
	fmt.Fprintf(&b, "why %s — by %s at %.12s", what, r.Method, r.Rev)
	if len(r.Names) > 1 {
		fmt.Fprintf(&b, "; also known as %s", strings.Join(r.Names[1:], ", "))
	}
	b.WriteString("\n")
	for _, c := range r.Commits {
		fmt.Fprintf(&b, "\n%.12s %s  %s  %s\n", c.Hash, day(c.Time), c.Author, c.Subject)
		var facts []string
		if c.Lines > 0 {
			facts = append(facts, fmt.Sprintf("%d line(s) of the range", c.Lines))
		}
		if c.Kind != "" {
			facts = append(facts, fmt.Sprintf("%s %s %s", kindWord(c.Kind), c.Path, lineWords(c.Added, c.Del)))
		}
		if c.Files > 1 {
			facts = append(facts, fmt.Sprintf("%d files in the commit", c.Files))
		}
		if len(c.Flags) > 0 {
			facts = append(facts, strings.Join(c.Flags, ","))
		}
		if len(facts) > 0 {
			fmt.Fprintf(&b, "    %s\n", strings.Join(facts, "; "))
		}
		if c.Body != "" {
			fmt.Fprintf(&b, "    %s\n", indent(firstLines(c.Body, 6)))
		}
		writeSession(&b, c.Session)
	}
	if r.Skipped > 0 {
		fmt.Fprintf(&b, "\n(%d formatting-only or mass commit(s) left out)\n", r.Skipped)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// Briefs are the briefs of the hits, in order.
func (r *SearchResult) Briefs() []*Brief {
	return briefsOf(r.Hits, func(h *Hit) *Brief { return &h.Brief })
}

// Text renders a `history` answer: each commit with the files it touched.
func (r *SearchResult) Text() string {
	var b strings.Builder
	if len(r.Hits) == 0 {
		fmt.Fprintf(&b, "no recorded commit matches %q (%d commits recorded)\n", r.Query, r.Commits)
	}
	for i, h := range r.Hits {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%.12s %s  %s  %s\n", h.Hash, day(h.Time), h.Author, h.Subject)
		if len(h.Flags) > 0 {
			fmt.Fprintf(&b, "    [%s]\n", strings.Join(h.Flags, ","))
		}
		for _, ch := range h.Changes {
			p := ch.Path
			if ch.Old != "" {
				p = ch.Old + " -> " + ch.Path
			}
			fmt.Fprintf(&b, "    %s %s %s\n", ch.Kind, p, lineWords(ch.Add, ch.Del))
		}
		if more := h.Files - len(h.Changes); more > 0 {
			fmt.Fprintf(&b, "    ... and %d more file(s)\n", more)
		}
		writeSession(&b, h.Session)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// lineWords renders a change's line counts: "+3 -1", "(binary)", or
// "(lines unknown)" when git could not count them (a partial clone
// without the blobs).
func lineWords(add, del int) string {
	switch {
	case add == LinesUnknown || del == LinesUnknown:
		return "(lines unknown)"
	case add < 0 || del < 0:
		return "(binary)"
	}
	return fmt.Sprintf("+%d -%d", add, del)
}

func day(t int64) string {
	if t == 0 {
		return "          "
	}
	return time.Unix(t, 0).UTC().Format("2006-01-02")
}

func kindWord(k string) string {
	switch k {
	case "A":
		return "added"
	case "D":
		return "deleted"
	case "R":
		return "renamed to"
	case "C":
		return "copied to"
	case "T":
		return "type of"
	}
	return "changed"
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	if len(ls) > n {
		ls = append(ls[:n], "...")
	}
	return strings.Join(ls, "\n")
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }
