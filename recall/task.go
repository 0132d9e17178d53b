package recall

import (
	"math"
	"strings"

	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/internal/lazyre"
)

// Task is a task as recall reads it, parsed once: every signal reads this
// value instead of the raw text. Agents hand over tasks in the words of a
// bug report, and a report is mostly not the question: an issue template
// repeats its headings and asks for versions and operating systems, logs
// and stack traces run for pages, code blocks paste a reproduction. What
// the reporter says in prose (and the title above all) is what ranks;
// traces contribute only what they name — files and functions — and
// template boilerplate nothing.
type Task struct {
	Raw   string
	Title string // the first non-empty line
	// Prose is the title and the reporter's own sentences: no template
	// headings, environment lists, checklists, comments, code or logs.
	Prose string
	// Code is the text of code blocks and inline code spans.
	Code string
	// Trace is the text of stack traces and log lines; Errors are the
	// error messages among them (one a line), which often repeat a string
	// the code that raises them holds.
	Trace  string
	Errors []string
	// Paths are the files and directories the task names, anywhere
	// (see pathMentions); TracePaths those named by a stack frame.
	Paths      []string
	TracePaths []string
	// Symbols are the identifiers the task spells as code (see
	// symbolMentions), lowercased: in prose, code spans and frames.
	Symbols map[string]bool
	// Hyphens are the hyphenated words of the title and prose.
	Hyphens []string
	// Long is set when the body is long enough for its noise to matter.
	Long bool
}

// Weights of the parts of a task in its lexical query.
const (
	codeTermWeight  = 0.5 // a term seen only in code blocks
	traceTermWeight = 0.3 // a term seen only in traces and logs
	longTask        = 600 // bytes past which a task is long
)

var (
	fenceLine   = lazyre.New("^\\s*(```|~~~)")
	htmlComment = lazyre.New(`(?s)<!--.*?-->`)
	checkbox    = lazyre.New(`^\s*[-*]\s*\[[ xX]\]`)
	heading     = lazyre.New(`^\s*(#{1,6}\s+|\*\*[^*]+\*\*\s*:?\s*$)`)
	// Frames of the common stack traces: Java, Kotlin, C#, JavaScript
	// ("at pkg.Class.method(File.java:12)", "at fn (file.js:1:2)"),
	// Python ('File "x.py", line 3, in f'), Go ("pkg/file.go:12 +0x1f",
	// "goroutine 1 [running]"), Rust ("at src/lib.rs:12:5"), PHP
	// ("#0 /app/src/X.php(12): f()"), gdb and sanitizers ("#3 0x... in f
	// file.c:12"), Swift and Objective-C crash logs.
	traceLine = lazyre.New(`^\s*(at\s+\S+.*[(:]\S*:\d+|at\s+[\w$.<>]+\([^)]*\)|File "[^"]+", line \d+|Traceback \(most recent call last\)|goroutine \d+ \[|\S+\.go:\d+( \+0x[0-9a-f]+)?$|#\d+\s+(0x[0-9a-f]+\s+in\s+|\S+\(\d+\):)|\d+\s+\S+\s+0x[0-9a-f]+\s|thread '.*' panicked at|Exception in thread|Caused by:|\.\.\. \d+ more)`)
	logLine   = lazyre.New(`^\s*(\[?\d{4}[-/]\d{2}[-/]\d{2}[ T]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}|\[?(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\]?[\s:]|\$ |> |PS [A-Z]:\\|[A-Z]:\\)`)
	errorLine = lazyre.New(`(?i)(\berror\b|exception|panic|fatal|failed|traceback|undefined|cannot|can't|unable|not found|no such)`)
	envLine   = lazyre.New(`(?i)^\s*[-*]?\s*(\*\*)?(os|operating system|platform|version|[\w .-]{0,24} version|browser|node|npm|yarn|python|java|jdk|go|rustc|cargo|php|ruby|dotnet|\.net|kotlin|swift|xcode|gradle|maven|device|arch|architecture|kernel|distro|environment|ide|editor|terminal|shell|compiler|toolchain|build|commit|installed via|installation method|package manager)(\*\*)?\s*[:=]`)
	// Headings of issue templates: what they introduce is the report's,
	// the heading is the template's.
	templateHeadings = lazyre.New(`(?i)^(describe the (bug|issue|problem|feature|solution)|bug (report|description)|description|summary|to reproduce|steps to reproduce|reproduction( steps)?|minimal reproduction|expected (behaviou?r|result|outcome)|actual (behaviou?r|result|outcome)|current behaviou?r|what (happened|did you expect|is the problem|version)|screenshots?|additional (context|information|info)|environment|system info(rmation)?|version(s)?|platform|checklist|prerequisites|context|possible solution|motivation|alternatives( considered)?|is your feature request related to a problem|logs?|output|stack ?trace|error message|code (sample|example)|example|relevant log output|anything else|notes?|proposal|use case)\??:?$`)
	// Sections whose content is environment, not the report.
	envHeadings = lazyre.New(`(?i)^(environment|system info(rmation)?|versions?|platform|checklist|prerequisites|your environment|setup|configuration|installed versions)\??:?$`)
)

// ParseTask reads a task.
func ParseTask(raw string) *Task {
	t := &Task{Raw: raw}
	text := htmlComment.ReplaceAllString(strings.ReplaceAll(raw, "\r\n", "\n"), "")
	var prose, code, trace strings.Builder
	inFence, fenceTrace := false, false
	var fence []string
	inEnv := false
	first := true
	flushFence := func() {
		// a fenced block is code unless most of its lines are frames or logs
		n := 0
		for _, l := range fence {
			if traceLine.MatchString(l) || logLine.MatchString(l) {
				n++
			}
		}
		fenceTrace = n*3 >= len(fence) && n > 0
		for _, l := range fence {
			if fenceTrace || traceLine.MatchString(l) {
				t.traceLine(l, &trace)
			} else {
				code.WriteString(l)
				code.WriteByte('\n')
			}
		}
		fence = fence[:0]
	}
	for _, line := range strings.Split(text, "\n") {
		if fenceLine.MatchString(line) {
			if inFence {
				flushFence()
			}
			inFence = !inFence
			continue
		}
		if inFence {
			fence = append(fence, line)
			continue
		}
		s := strings.TrimSpace(line)
		if s == "" {
			continue
		}
		if first {
			first = false
			t.Title = s
			prose.WriteString(s)
			prose.WriteByte('\n')
			continue
		}
		if heading.MatchString(line) {
			h := strings.Trim(strings.TrimLeft(s, "#"), " *:_")
			inEnv = envHeadings.MatchString(h)
			if templateHeadings.MatchString(h) {
				continue
			}
			prose.WriteString(h)
			prose.WriteByte('\n')
			continue
		}
		switch {
		case inEnv, checkbox.MatchString(line), envLine.MatchString(line):
			continue
		case traceLine.MatchString(line):
			t.traceLine(line, &trace)
			continue
		case logLine.MatchString(line) && !strings.HasPrefix(s, "> "):
			t.traceLine(line, &trace)
			continue
		case strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t"):
			code.WriteString(line)
			code.WriteByte('\n')
			continue
		}
		prose.WriteString(strings.TrimLeft(s, "> "))
		prose.WriteByte('\n')
	}
	if inFence {
		flushFence()
	}
	t.Prose, t.Code, t.Trace = prose.String(), code.String(), trace.String()
	// inline code spans are code as well as prose
	for _, span := range inlineCode.FindAllStringSubmatch(t.Prose, -1) {
		t.Code += span[1] + "\n"
	}
	t.Long = len(raw) > longTask
	t.Paths = pathMentions(t.Prose + "\n" + t.Code + "\n" + t.Trace)
	t.TracePaths = pathMentions(t.Trace)
	t.Symbols = symbolMentions(t.Prose + "\n" + t.Code + "\n" + t.Trace)
	t.Hyphens = hyphenMentions(t.Prose)
	return t
}

var inlineCode = lazyre.New("`([^`\n]{1,200})`")

func (t *Task) traceLine(line string, trace *strings.Builder) {
	trace.WriteString(line)
	trace.WriteByte('\n')
	if !traceLine.MatchString(line) && errorLine.MatchString(line) && len(t.Errors) < 8 {
		t.Errors = append(t.Errors, strings.TrimSpace(line))
	}
}

// Terms are the task's lexical query: each term of the title and prose at
// 1+ln(count) (a word said five times is not five times the question),
// the title's terms again at subject, error messages as prose, and terms
// seen only in code or only in traces at a fraction.
func (t *Task) Terms(subject float64) []index.Term {
	idx := map[string]int{}
	var out []index.Term
	add := func(text string, w float64) {
		for _, tm := range index.QueryTerms(text) {
			if i, ok := idx[tm.Text]; ok {
				out[i].Weight = math.Max(out[i].Weight, w)
				continue
			}
			idx[tm.Text] = len(out)
			out = append(out, index.Term{Text: tm.Text, Weight: w})
		}
	}
	for _, tm := range index.QueryTerms(t.Prose + "\n" + strings.Join(t.Errors, "\n")) {
		idx[tm.Text] = len(out)
		out = append(out, index.Term{Text: tm.Text, Weight: 1 + math.Log(tm.Weight)})
	}
	add(t.Code, codeTermWeight)
	add(t.Trace, traceTermWeight)
	if subject > 0 && strings.Contains(strings.TrimSpace(t.Raw), "\n") {
		for _, tm := range index.QueryTerms(t.Title) {
			if i, ok := idx[tm.Text]; ok {
				out[i].Weight += subject
			}
		}
	}
	return out
}

// EmbeddingText is what the task's vector is made of: the title and the
// prose, without question words, bounded.
func (t *Task) EmbeddingText() string {
	s := t.Prose
	if len(t.Errors) > 0 {
		s += "\n" + strings.Join(t.Errors, "\n")
	}
	if len(s) > 2000 {
		s = s[:2000]
	}
	return withoutQuestionWords(s)
}
