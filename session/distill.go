package session

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/konteks/git-konteks/internal/lazyre"
)

// Kinds of memory a session yields (durable kinds).
const (
	KindConstraint = "constraint"
	KindPreference = "preference"
	KindDecision   = "decision"
	KindCase       = "case"
	KindCommand    = "command"
)

// Scopes of a memory: a fact about the repository every teammate should
// follow, or one person's preference.
const (
	ScopeRepository = "repository"
	ScopePersonal   = "personal"
)

// Memory is one thing a session taught, before it is saved.
type Memory struct {
	Kind    string
	Subject string
	Text    string
	Scope   string
	Files   []string // files it is about, as the agent named them
	Time    time.Time
}

// Digest is what a session comes to: bounded whatever the transcript's
// size.
type Digest struct {
	Meta       Meta
	Start, End time.Time
	Task       string
	Outcome    string
	Memories   []Memory
	Files      []string // files written, as the agent named them
	CommitRefs []string // commit ids printed by git commands in the session
	Messages   int      // user and assistant messages
	Calls      int      // tool calls
	Failures   int      // tool calls that failed
	Hash       string   // SHA-256 of the transcript bytes
	Raw        string   // the conversation's text, when kept (ReadOptions.KeepRaw)
	Redacted   int      // credentials the events' texts held, replaced by markers (Event.Redacted)
}

// Caps on what a digest holds.
const (
	maxTask        = 400
	maxMemoryText  = 400
	maxConstraints = 8
	maxDecisions   = 4
	maxCases       = 4
	maxCommands    = 4
	maxFiles       = 50
	maxCommits     = 50
	maxPending     = 4096
)

// ReadOptions say how to read a transcript.
type ReadOptions struct {
	Agent  string // one of Agents; "" detects it
	Limits Limits
	// KeepRaw keeps the conversation's text (user and agent messages,
	// capped; redacted when saved) in Digest.Raw.
	KeepRaw bool
}

// maxRaw caps the raw conversation text a digest keeps.
const maxRaw = 8 << 10

// Read parses a transcript and distills it.
func Read(r io.Reader, o ReadOptions) (Digest, error) {
	h := sha256.New()
	d := NewDistiller()
	d.keepRaw = o.KeepRaw
	meta, err := Parse(io.TeeReader(r, h), o.Agent, o.Limits, d.Add)
	if err != nil {
		return Digest{}, err
	}
	out := d.Digest(meta)
	out.Hash = hex.EncodeToString(h.Sum(nil))
	return out, nil
}

// Distiller turns a stream of events into a Digest, holding only bounded
// state.
type Distiller struct {
	start, end    time.Time
	task          string
	lastAssistant string
	lastAsstTime  time.Time
	outcome       string
	constraints   []Memory
	decisions     []Memory
	cases         []Memory
	seen          map[string]bool
	pending       map[string]Event
	open          map[string]*failure // by command family
	commands      map[string]*cmdStat // by exact command
	files         []string
	fileSet       map[string]bool
	commits       []string
	messages      int
	calls         int
	failures      int
	redacted      int
	order         int
	keepRaw       bool
	raw           strings.Builder
}

type failure struct {
	cmd   string
	sig   string
	files []string
	ran   []string
	time  time.Time
}

type cmdStat struct {
	cmd, family  string
	n            int
	afterFailure bool
	last         int
	time         time.Time
}

// NewDistiller returns an empty distiller.
func NewDistiller() *Distiller {
	return &Distiller{seen: map[string]bool{}, pending: map[string]Event{}, open: map[string]*failure{},
		commands: map[string]*cmdStat{}, fileSet: map[string]bool{}}
}

// Add takes the next event.
func (d *Distiller) Add(e Event) {
	d.redacted += e.Redacted
	if !e.Time.IsZero() {
		if d.start.IsZero() || e.Time.Before(d.start) {
			d.start = e.Time
		}
		if e.Time.After(d.end) {
			d.end = e.Time
		}
	}
	if d.keepRaw && (e.Role == RoleUser || e.Role == RoleAssistant) && d.raw.Len() < maxRaw {
		d.raw.WriteString(e.Role + ": " + clip(strings.TrimSpace(e.Text), maxRaw-d.raw.Len()) + "\n")
	}
	switch e.Role {
	case RoleUser:
		d.user(e)
	case RoleAssistant:
		d.messages++
		if t := strings.TrimSpace(e.Text); t != "" {
			d.lastAssistant, d.lastAsstTime = clip(t, 4<<10), e.Time
			d.outcome = t
		}
	case RoleCall:
		d.calls++
		if len(d.pending) >= maxPending {
			d.pending = map[string]Event{}
		}
		d.pending[e.CallID] = e
		for _, f := range e.Files {
			d.touch(f)
		}
	case RoleResult:
		call, ok := d.pending[e.CallID]
		if !ok {
			return
		}
		delete(d.pending, e.CallID)
		if e.Failed {
			d.failures++
		}
		switch {
		case call.Command != "":
			d.command(call, e)
		case call.Tool == "ExitPlanMode" && !e.Failed && call.Text != "":
			d.decide(Memory{Kind: KindDecision, Text: "Plan accepted: " + firstLines(call.Text, 3), Scope: ScopeRepository, Time: call.Time})
		}
	}
}

func (d *Distiller) touch(f string) {
	f = strings.TrimSpace(f)
	if f == "" || d.fileSet[f] {
		return
	}
	for _, o := range d.open {
		if len(o.files) < 10 {
			o.files = append(o.files, f)
		}
	}
	if len(d.files) < maxFiles*4 {
		d.fileSet[f] = true
		d.files = append(d.files, f)
	}
}

// noise are user messages that are not the person's words: agents' own
// wrappers around commands, hooks and environment context.
var noisePrefixes = []string{"<command-", "<local-command", "caveat:", "<environment_context", "<user_instructions",
	"# agents.md instructions", "[request interrupted", "<user-prompt-submit-hook", "<bash-", "this session is being continued"}

var systemReminder = lazyre.New(`(?s)<system-reminder>.*?</system-reminder>`)

func cleanUser(s string) string {
	if strings.Contains(s, "<system-reminder>") {
		s = systemReminder.ReplaceAllString(s, "")
	}
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	for _, p := range noisePrefixes {
		if strings.HasPrefix(low, p) {
			return ""
		}
	}
	return s
}

func (d *Distiller) user(e Event) {
	text := cleanUser(e.Text)
	if text == "" {
		return
	}
	d.messages++
	if d.task == "" && len(strings.Fields(text)) >= 3 {
		d.task = clipWords(oneLine(text), maxTask)
	}
	if isAcceptance(text) && d.lastAssistant != "" {
		if s := decisionIn(d.lastAssistant); s != "" {
			d.decide(Memory{Kind: KindDecision, Text: "Accepted: " + s, Scope: ScopeRepository, Time: e.Time})
		}
		d.lastAssistant = ""
	}
	for _, s := range sentences(text) {
		if m, ok := rule(s); ok {
			m.Time = e.Time
			key := m.Kind + "\x00" + normalize(m.Text)
			if !d.seen[key] && len(d.constraints) < maxConstraints*4 {
				d.seen[key] = true
				d.constraints = append(d.constraints, m)
			}
		}
	}
}

func (d *Distiller) decide(m Memory) {
	key := "decision\x00" + normalize(m.Text)
	if d.seen[key] || len(d.decisions) >= maxDecisions {
		return
	}
	d.seen[key] = true
	m.Text = clipWords(m.Text, maxMemoryText)
	d.decisions = append(d.decisions, m)
}

var commitLine = lazyre.New(`(?m)^\[[^\]\n]*?\b([0-9a-f]{7,40})\]`)

func (d *Distiller) command(call, res Event) {
	cmd := normCommand(call.Command)
	if cmd == "" {
		return
	}
	if strings.Contains(cmd, "git ") && !res.Failed {
		for _, m := range commitLine.FindAllStringSubmatch(res.Text, 5) {
			if len(d.commits) < maxCommits {
				d.commits = append(d.commits, m[1])
			}
		}
	}
	fam := family(cmd)
	if res.Failed {
		if _, ok := d.open[fam]; !ok && len(d.open) < 32 {
			if sig := errorSignature(res.Text); sig != "" {
				d.open[fam] = &failure{cmd: cmd, sig: sig, time: res.Time}
			}
		}
		return
	}
	f, after := d.open[fam]
	if after {
		delete(d.open, fam)
		d.closeCase(f, cmd, res.Time)
	} else if !readOnly(cmd) {
		for _, o := range d.open {
			if len(o.ran) < 2 && family(cmd) != family(o.cmd) {
				o.ran = append(o.ran, cmd)
			}
		}
	}
	if purpose(cmd) != "" && len(cmd) <= 200 && !strings.Contains(cmd, "\n") {
		st := d.commands[cmd]
		if st == nil {
			if len(d.commands) >= 256 {
				return
			}
			st = &cmdStat{cmd: cmd, family: fam, time: res.Time}
			d.commands[cmd] = st
		}
		st.n++
		d.order++
		st.last = d.order
		st.afterFailure = st.afterFailure || after
	}
}

func (d *Distiller) closeCase(f *failure, passed string, t time.Time) {
	if len(f.files) == 0 && len(f.ran) == 0 {
		return // passed on a retry: nothing learned
	}
	var fix []string
	if len(f.files) > 0 {
		fix = append(fix, "changing "+strings.Join(baseNames(f.files, 5), ", "))
	}
	for _, r := range f.ran {
		fix = append(fix, "running `"+clip(r, 100)+"`")
	}
	text := "`" + clip(f.cmd, 120) + "` failed with: " + f.sig + ". Fixed by " + strings.Join(fix, " and ") +
		"; then `" + clip(passed, 120) + "` passed."
	key := "case\x00" + normalize(f.sig)
	if d.seen[key] || len(d.cases) >= maxCases {
		return
	}
	d.seen[key] = true
	d.cases = append(d.cases, Memory{Kind: KindCase, Subject: clip(f.sig, 120), Text: clipWords(text, maxMemoryText),
		Scope: ScopeRepository, Files: f.files, Time: t})
}

// Digest returns what the session came to.
func (d *Distiller) Digest(meta Meta) Digest {
	out := Digest{Meta: meta, Start: d.start, End: d.end, Task: d.task, Messages: d.messages, Calls: d.calls,
		Failures: d.failures, CommitRefs: d.commits, Raw: clip(d.raw.String(), maxRaw), Redacted: d.redacted}
	if d.outcome != "" {
		out.Outcome = clipWords(oneLine(firstParagraph(d.outcome)), 300)
	}
	cons := d.constraints
	if len(cons) > maxConstraints {
		cons = cons[len(cons)-maxConstraints:] // the latest revise the earlier
	}
	out.Memories = append(out.Memories, cons...)
	out.Memories = append(out.Memories, d.decisions...)
	out.Memories = append(out.Memories, d.cases...)
	out.Memories = append(out.Memories, d.bestCommands()...)
	for _, f := range d.files {
		if len(out.Files) < maxFiles {
			out.Files = append(out.Files, f)
		}
	}
	return out
}

// bestCommands picks, per command family, the command that worked most
// (one that passed after a failure first).
func (d *Distiller) bestCommands() []Memory {
	best := map[string]*cmdStat{}
	for _, st := range d.commands {
		b := best[st.family]
		score := func(s *cmdStat) int {
			n := s.n
			if s.afterFailure {
				n += 3
			}
			return n
		}
		if b == nil || score(st) > score(b) || (score(st) == score(b) && st.last > b.last) {
			best[st.family] = st
		}
	}
	var all []*cmdStat
	for _, st := range best {
		all = append(all, st)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].afterFailure != all[j].afterFailure {
			return all[i].afterFailure
		}
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].cmd < all[j].cmd
	})
	var out []Memory
	for _, st := range all {
		if len(out) == maxCommands {
			break
		}
		p := purpose(st.cmd)
		out = append(out, Memory{Kind: KindCommand, Subject: p, Text: strings.ToUpper(p[:1]) + p[1:] + " with `" + st.cmd + "`",
			Scope: ScopeRepository, Time: st.time})
	}
	return out
}

// Constraints and preferences the person states.
var (
	constraintStart = []string{"always ", "never ", "don't ", "do not ", "dont ", "must ", "make sure ", "avoid ",
		"only use ", "stop using ", "no more ", "we never ", "we always ", "we don't ", "we do not ", "we must "}
	weUse      = lazyre.New(`\b(we|this project|this repo|the project|the team) (use|uses|prefer|prefers|stick to|sticks to)\b.*(, not |\bnot |\binstead of\b|\brather than\b)`)
	useInstead = lazyre.New(`^use \S.*(\binstead of\b|\brather than\b|, not )`)
	personal   = lazyre.New(`\b(i prefer|i'd prefer|i would prefer|i like|i'd rather|i would rather|my preference|i want you to always|i want you to never)\b`)
	leadIn     = []string{"please ", "and ", "also ", "but ", "remember: ", "remember, ", "note: ", "important: ", "rule: ", "ps: ", "oh and "}
)

// rule reads a sentence as a constraint or preference.
func rule(s string) (Memory, bool) {
	if len(s) < 12 || len(s) > 300 || strings.HasSuffix(s, "?") {
		return Memory{}, false
	}
	low := strings.ToLower(s)
	for again := true; again; {
		again = false
		for _, p := range leadIn {
			if strings.HasPrefix(low, p) {
				low, s, again = low[len(p):], s[len(p):], true
			}
		}
	}
	text := strings.ToUpper(s[:1]) + s[1:]
	switch {
	case personal.MatchString(low):
		return Memory{Kind: KindPreference, Text: text, Scope: ScopePersonal}, true
	case weUse.MatchString(low) || useInstead.MatchString(low):
		return Memory{Kind: KindConstraint, Text: text, Scope: ScopeRepository}, true
	case strings.HasPrefix(low, "prefer "):
		return Memory{Kind: KindPreference, Text: text, Scope: ScopeRepository}, true
	}
	for _, p := range constraintStart {
		if strings.HasPrefix(low, p) && len(strings.Fields(low)) >= 3 {
			return Memory{Kind: KindConstraint, Text: text, Scope: ScopeRepository}, true
		}
	}
	return Memory{}, false
}

var acceptance = lazyre.New(`^(yes|yep|yeah|ok|okay|sure|sounds good|go ahead|go for it|lgtm|looks good|perfect|do it|approved|agreed|let's do (it|that)|great|ship it|proceed|that works)\b`)

func isAcceptance(s string) bool {
	return len(s) <= 160 && acceptance.MatchString(strings.ToLower(strings.TrimSpace(s)))
}

var decisionCue = lazyre.New(`^(i'll|i will|i'd|i would|i propose|i suggest|i recommend|let's|we should|we can|the plan is|plan:|approach:|my recommendation|i'm going to|recommendation:)\s`)

// decisionIn finds the proposal in an agent's message that an acceptance
// answers: the last sentence that proposes, not a question.
func decisionIn(msg string) string {
	var found string
	for _, s := range sentences(msg) {
		if strings.HasSuffix(s, "?") || len(s) < 16 || len(s) > 300 {
			continue
		}
		if decisionCue.MatchString(strings.ToLower(s)) {
			found = s
		}
	}
	return found
}

// sentences splits a message into sentences: by line (list markers and
// headings removed), then after '.', '!', '?' followed by a space.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		line = strings.TrimLeft(line, "-*•># \t")
		if i := strings.IndexFunc(line, func(r rune) bool { return !unicode.IsDigit(r) }); i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
			line = strings.TrimSpace(line[i+1:])
		}
		start := 0
		for i := 0; i < len(line); i++ {
			c := line[i]
			if (c == '.' || c == '!' || c == '?') && i+1 < len(line) && line[i+1] == ' ' {
				if s := strings.TrimSpace(line[start : i+1]); s != "" {
					out = append(out, s)
				}
				start = i + 1
			}
		}
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
		if len(out) > 400 {
			break
		}
	}
	return out
}

var (
	errorWord = lazyre.New(`(?i)(error|panic|exception|traceback|cannot|can't|undefined|not found|no such|denied|refused|fatal|missing|invalid|unexpected|expected)`)
	failWord  = lazyre.New(`(?i)fail`)
)

// errorSignature is the line of an output that says what went wrong: the
// first that names an error, else the first that says something failed,
// else the first line.
func errorSignature(out string) string {
	first, failed := "", ""
	for i, l := range strings.Split(out, "\n") {
		if i > 400 {
			break
		}
		l = strings.TrimPrefix(strings.TrimSpace(l), "Output: ")
		if l == "" || exitLine.MatchString(l) || strings.HasPrefix(l, "Wall time") || l == "Output:" || l == "…" || l == "Error: (none)" {
			continue
		}
		if first == "" {
			first = l
		}
		if errorWord.MatchString(l) {
			return clip(l, 200)
		}
		if failed == "" && failWord.MatchString(l) && !strings.HasPrefix(l, "FAIL\t") && l != "FAIL" {
			failed = l
		}
	}
	if failed != "" {
		return clip(failed, 200)
	}
	return clip(first, 200)
}

// normCommand trims a shell command to the command itself: surrounding
// space, a leading `cd DIR &&`.
func normCommand(c string) string {
	c = strings.TrimSpace(c)
	for strings.HasPrefix(c, "cd ") {
		i := strings.Index(c, "&&")
		if i < 0 {
			break
		}
		c = strings.TrimSpace(c[i+2:])
	}
	return c
}

var twoWord = map[string]bool{"go": true, "npm": true, "pnpm": true, "yarn": true, "cargo": true, "make": true, "python": true,
	"python3": true, "uv": true, "poetry": true, "bundle": true, "dotnet": true, "mvn": true, "gradle": true, "./gradlew": true,
	"npx": true, "bun": true, "deno": true, "docker": true, "git": true, "just": true, "bazel": true, "pip": true, "rake": true}

// family names what a command does, so that a retry with other
// arguments is the same command: `go test`, `npm run build`, `pytest`.
func family(c string) string {
	var words []string
	for _, w := range strings.Fields(c) {
		if len(words) == 0 && strings.Contains(w, "=") {
			continue // an environment assignment
		}
		if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "|;&<>") {
			if len(words) > 0 {
				break
			}
			continue
		}
		words = append(words, w)
		if len(words) == 3 || (len(words) == 2 && words[1] != "run" && words[1] != "exec" && words[1] != "-m") || (len(words) == 1 && !twoWord[w]) {
			break
		}
	}
	return strings.Join(words, " ")
}

var purposes = []struct{ name, words string }{
	{"test", "test tests pytest jest vitest rspec spec ctest"},
	{"lint", "lint vet check clippy ruff eslint mypy fmt format typecheck staticcheck golangci-lint"},
	{"build", "build compile tsc install generate"},
	{"run", "run serve start dev"},
}

var buildTools = map[string]bool{"go": true, "npm": true, "pnpm": true, "yarn": true, "cargo": true, "make": true, "python": true,
	"python3": true, "uv": true, "poetry": true, "bundle": true, "dotnet": true, "mvn": true, "gradle": true, "./gradlew": true,
	"npx": true, "bun": true, "deno": true, "just": true, "bazel": true, "pytest": true, "jest": true, "vitest": true,
	"tox": true, "nox": true, "rake": true, "rspec": true, "tsc": true, "eslint": true, "ruff": true, "mypy": true,
	"cmake": true, "ninja": true, "ctest": true, "mix": true, "swift": true, "zig": true, "gofmt": true, "golangci-lint": true}

// purpose says whether a command builds, tests, lints or runs the
// project ("" for anything else).
func purpose(c string) string {
	f := strings.Fields(family(c))
	if len(f) == 0 || !(buildTools[f[0]] || strings.HasPrefix(f[0], "./") || strings.HasPrefix(f[0], "scripts/")) {
		return ""
	}
	for _, p := range purposes {
		for _, w := range f {
			for _, k := range strings.Fields(p.words) {
				if w == k || strings.HasSuffix(w, "/"+k) || strings.HasPrefix(w, k+":") {
					return p.name
				}
			}
		}
	}
	if len(f) == 1 && f[0] != "make" {
		if n := f[0]; n == "pytest" || n == "jest" || n == "vitest" || n == "rspec" || n == "ctest" {
			return "test"
		}
	}
	return ""
}

var readOnlyCmd = map[string]bool{"ls": true, "cat": true, "grep": true, "rg": true, "find": true, "head": true, "tail": true,
	"echo": true, "pwd": true, "which": true, "wc": true, "sed": true, "awk": true, "tree": true, "file": true, "stat": true,
	"git status": true, "git diff": true, "git log": true, "git show": true, "git branch": true, "git blame": true}

func readOnly(c string) bool {
	f := family(c)
	if readOnlyCmd[f] {
		return true
	}
	if i := strings.IndexByte(f, ' '); i > 0 && readOnlyCmd[f[:i]] {
		return true
	}
	return false
}

func baseNames(files []string, n int) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		b := f
		if i := strings.LastIndexByte(f, '/'); i >= 0 && i+1 < len(f) {
			b = f[i+1:]
		}
		if !seen[b] && len(out) < n {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out
}

func firstLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(l, "#*- "))
		if l != "" {
			out = append(out, l)
		}
		if len(out) == n {
			break
		}
	}
	return strings.Join(out, "; ")
}

func firstParagraph(s string) string {
	if i := strings.Index(s, "\n\n"); i > 0 {
		return s[:i]
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func normalize(s string) string { return strings.ToLower(oneLine(s)) }

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// clipWords cuts s to at most n bytes at a word boundary, marking the cut.
func clipWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	c := clip(s, n-3)
	if i := strings.LastIndexByte(c, ' '); i > n/2 {
		c = c[:i]
	}
	return c + "…"
}
