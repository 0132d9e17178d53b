// Package session reads coding agents' session transcripts (Claude Code,
// Codex CLI, Gemini CLI and a small generic format) and distills each into
// durable memory: the task as the person stated it, the constraints and
// preferences they gave, decisions they accepted, cases (an error met and
// what fixed it), commands that were the right way to build, test or run,
// and the files and commits the session touched.
//
// A transcript is untrusted input: it is read as a stream with bounded
// lines and a bounded total, binary or malformed input is refused with a
// clear error before anything is written, and every text that leaves the
// package passes the one secret detector (package secret). Distillation is
// deterministic and offline: the same transcript always yields the same
// memories.
package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/konteks/git-konteks/secret"
)

// Agents whose transcripts are read.
const (
	AgentClaude  = "claude-code"
	AgentCodex   = "codex"
	AgentGemini  = "gemini"
	AgentGeneric = "generic"
)

// Agents lists the transcript formats Parse reads, by agent name.
var Agents = []string{AgentClaude, AgentCodex, AgentGemini, AgentGeneric}

// aliases are other names of the agents whose formats are read.
var aliases = map[string]string{"claude": AgentClaude, "claude-code": AgentClaude, "codex": AgentCodex, "codex-cli": AgentCodex,
	"gemini": AgentGemini, "gemini-cli": AgentGemini, "generic": AgentGeneric}

// Format is the transcript format of an agent name ("" when the agent's
// format is not one of Agents: it is then detected from the content).
func Format(agent string) string { return aliases[strings.ToLower(strings.TrimSpace(agent))] }

// Limits bound what a transcript may be.
type Limits struct {
	MaxBytes int64 // the whole transcript
	MaxLine  int   // one JSONL line (one JSON value)
}

// DefaultLimits are generous for real sessions (a long Claude Code session
// is tens of MB; one tool output can be a few MB) and refuse what is not a
// transcript.
var DefaultLimits = Limits{MaxBytes: 512 << 20, MaxLine: 32 << 20}

// Roles of events.
const (
	RoleUser      = "user"      // what the person typed
	RoleAssistant = "assistant" // what the agent said
	RoleCall      = "call"      // a tool call by the agent
	RoleResult    = "result"    // a tool call's result
)

// Event is one step of a session, in the agents' common terms.
type Event struct {
	Time time.Time
	Role string
	Text string // message text, or a tool result's output (clipped)
	// Tool calls and results.
	Tool    string   // tool name as the agent calls it
	CallID  string   // pairs a result with its call
	Command string   // a shell command the call runs
	Files   []string // files the call writes (as the agent names them)
	Failed  bool     // a result that failed (error flag or non-zero exit)
	// Redacted counts the credentials in Text and Command replaced by
	// markers, before either was cut.
	Redacted int
}

// Meta is what a transcript says about its session.
type Meta struct {
	Agent string
	ID    string // the agent's session id
	Cwd   string // the directory the agent worked in
}

// maxEventText bounds the text an event carries: a tool output of
// megabytes keeps its head and tail, where errors and summaries are.
const maxEventText = 8 << 10

// ErrNotTranscript marks input that is not a transcript of a known kind.
var ErrNotTranscript = errors.New("not a session transcript")

// Parse reads a transcript of agent (one of Agents, or "" to detect it
// from the content; another name is detected too, and names the agent
// in the metadata) and calls fn for each event in order. It reads r as a
// stream and returns the session's metadata.
func Parse(r io.Reader, agent string, lim Limits, fn func(Event)) (meta Meta, err error) {
	if lim.MaxBytes <= 0 {
		lim = DefaultLimits
	}
	lr := &limitedReader{r: r, n: lim.MaxBytes}
	br := bufio.NewReaderSize(lr, 64<<10)
	head, err := br.Peek(8 << 10)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return Meta{}, err
	}
	if err := checkText(head); err != nil {
		return Meta{}, err
	}
	named := ""
	if agent != "" && Format(agent) == "" {
		named = clip(strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
				return r
			}
			return -1
		}, strings.ToLower(agent)), 40)
	}
	agent = Format(agent)
	if agent == "" {
		if agent, err = detect(head); err != nil {
			return Meta{}, err
		}
	}
	p := &parser{lim: lim, fn: fn, meta: Meta{Agent: agent}}
	defer func() {
		if named != "" {
			meta.Agent = named
		}
	}()
	switch agent {
	case AgentClaude:
		err = p.lines(br, p.claudeLine)
	case AgentCodex:
		err = p.lines(br, p.codexLine)
	case AgentGemini:
		err = p.gemini(br)
	case AgentGeneric:
		err = p.lines(br, p.genericLine)
	}
	if lr.over {
		return p.meta, fmt.Errorf("transcript is over the %d MB limit", lim.MaxBytes>>20)
	}
	if err != nil {
		return p.meta, fmt.Errorf("%s transcript: %w", agent, err)
	}
	if p.events == 0 {
		return p.meta, fmt.Errorf("%w: no %s messages found", ErrNotTranscript, agent)
	}
	return p.meta, nil
}

// checkText refuses binary input: NUL bytes or invalid UTF-8 at the start.
func checkText(head []byte) error {
	if len(bytes.TrimSpace(head)) == 0 {
		return fmt.Errorf("%w: empty input", ErrNotTranscript)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return fmt.Errorf("%w: binary data", ErrNotTranscript)
	}
	// The peek may cut a rune: allow an incomplete one at the end.
	cut := head
	for i := 0; i < 3 && len(cut) > 0 && !utf8.Valid(cut); i++ {
		cut = cut[:len(cut)-1]
	}
	if !utf8.Valid(cut) {
		return fmt.Errorf("%w: not UTF-8 text", ErrNotTranscript)
	}
	return nil
}

// detect names the agent that wrote a transcript from its first bytes.
func detect(head []byte) (string, error) {
	s := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(s) == 0 || s[0] != '{' {
		return "", fmt.Errorf("%w: it does not start with a JSON object", ErrNotTranscript)
	}
	line := s
	if i := bytes.IndexByte(s, '\n'); i >= 0 {
		line = s[:i]
	}
	has := func(key string) bool { return bytes.Contains(line, []byte(`"`+key+`"`)) }
	switch {
	case has("konteks_session") || (has("role") && !has("payload") && !has("sessionId")):
		return AgentGeneric, nil
	case has("payload") || has("record_type") || (has("instructions") && has("id")):
		return AgentCodex, nil
	case has("sessionId") && has("messages") || has("projectHash"):
		return AgentGemini, nil
	case has("sessionId") || has("leafUuid") || has("parentUuid") || has("messageId"):
		return AgentClaude, nil
	case bytes.Equal(bytes.TrimSpace(line), []byte("{")) && bytes.Contains(s, []byte(`"messages"`)):
		return AgentGemini, nil // a pretty-printed JSON document
	}
	return "", fmt.Errorf("%w: not Claude Code, Codex, Gemini or generic; name the agent with --agent", ErrNotTranscript)
}

type limitedReader struct {
	r    io.Reader
	n    int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		// One byte more tells a transcript of exactly the limit from a
		// longer one.
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			l.over = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

type parser struct {
	lim    Limits
	fn     func(Event)
	meta   Meta
	events int
	line   int
}

func (p *parser) emit(e Event) {
	if e.Role == "" {
		return
	}
	// Credentials become markers before anything is cut: a token cut in
	// half (here, or where the distiller clips a subject) is no longer
	// recognisable.
	var mt, mc []secret.Match
	e.Text, mt = secret.RedactString(e.Text)
	e.Command, mc = secret.RedactString(e.Command)
	e.Redacted = len(mt) + len(mc)
	e.Text = clipMiddle(e.Text, maxEventText)
	p.events++
	p.fn(e)
}

// lines reads JSONL: each line one JSON value, handed to each. A line that
// does not parse is an error, except a last line cut short (an agent still
// writing when the session ended).
func (p *parser) lines(br *bufio.Reader, each func([]byte) error) error {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > p.lim.MaxLine {
			return fmt.Errorf("line %d is over the %d MB line limit", p.line+1, p.lim.MaxLine>>20)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			buf = append(buf, chunk...)
			continue
		}
		last := err == io.EOF
		if err != nil && !last {
			return err
		}
		line := chunk
		if len(buf) > 0 {
			line = append(buf, chunk...)
			buf = buf[:0]
		}
		p.line++
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			if perr := each(line); perr != nil {
				if last && p.events > 0 && !bytes.HasSuffix(line, []byte("}")) {
					return nil // a truncated last line
				}
				return fmt.Errorf("line %d: %w", p.line, perr)
			}
		}
		if last {
			return nil
		}
	}
}

// clipMiddle keeps the head and the tail of s within n bytes.
func clipMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	h := n * 3 / 4
	t := n - h - 5
	return strings.ToValidUTF8(s[:h], "") + "\n…\n" + strings.ToValidUTF8(s[len(s)-t:], "")
}

// parseTime reads an RFC 3339 timestamp (zero when it is not one).
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
