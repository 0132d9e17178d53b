package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/konteks/git-konteks/internal/lazyre"
)

// Claude Code writes one JSON object per line to
// ~/.claude/projects/<project>/<session-id>.jsonl: "user" and "assistant"
// lines carry a message whose content is a string or a list of blocks
// (text, tool_use, tool_result, thinking); other line types (summary,
// system, file-history-snapshot) carry no conversation.

type claudeLine struct {
	Type        string `json:"type"`
	SessionID   string `json:"sessionId"`
	Timestamp   string `json:"timestamp"`
	Cwd         string `json:"cwd"`
	IsMeta      bool   `json:"isMeta"`
	IsSidechain bool   `json:"isSidechain"`
	Message     *struct {
		Role    string        `json:"role"`
		Content []claudeBlock `json:"content"`
	} `json:"message"`
}

// claudeText is a line whose message content is a plain string (what the
// person typed); tried when the content is not a list of blocks.
type claudeText struct {
	Message struct {
		Content string `json:"content"`
	} `json:"message"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// smallOutput is the size up to which a successful tool output is read
// (for the commit ids git prints); longer successful outputs, file
// contents and listings, are skipped undecoded.
const smallOutput = 4 << 10

func (p *parser) claudeLine(b []byte) error {
	var l claudeLine
	var text *string
	// Decoded in one pass: content is a list of blocks, or else (a short
	// line the person typed) a string.
	if err := json.Unmarshal(b, &l); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field != "message.content" {
			return err
		}
		var ct claudeText
		if err := json.Unmarshal(b, &ct); err != nil {
			return err
		}
		text = &ct.Message.Content
		if l.Message != nil {
			l.Message.Content = nil
		}
	}
	if p.meta.ID == "" && l.SessionID != "" {
		p.meta.ID = l.SessionID
	}
	if p.meta.Cwd == "" && l.Cwd != "" {
		p.meta.Cwd = l.Cwd
	}
	if l.Message == nil || (l.Type != "user" && l.Type != "assistant") {
		return nil
	}
	t := parseTime(l.Timestamp)
	if text != nil {
		if l.Type == "user" && !l.IsMeta && !l.IsSidechain {
			p.emit(Event{Time: t, Role: RoleUser, Text: *text})
		} else if l.Type == "assistant" {
			p.emit(Event{Time: t, Role: RoleAssistant, Text: *text})
		}
		return nil
	}
	for _, bl := range l.Message.Content {
		switch bl.Type {
		case "text":
			switch {
			case l.Type == "assistant":
				p.emit(Event{Time: t, Role: RoleAssistant, Text: bl.Text})
			case !l.IsMeta && !l.IsSidechain:
				p.emit(Event{Time: t, Role: RoleUser, Text: bl.Text})
			}
		case "tool_use":
			e := Event{Time: t, Role: RoleCall, Tool: bl.Name, CallID: bl.ID}
			var in struct {
				Command  string `json:"command"`
				FilePath string `json:"file_path"`
				Notebook string `json:"notebook_path"`
				Plan     string `json:"plan"`
			}
			_ = json.Unmarshal(bl.Input, &in)
			switch bl.Name {
			case "Bash":
				e.Command = in.Command
			case "Edit", "Write", "MultiEdit":
				e.Files = []string{in.FilePath}
			case "NotebookEdit":
				e.Files = []string{in.Notebook}
			case "ExitPlanMode":
				e.Text = in.Plan
			}
			p.emit(e)
		case "tool_result":
			out := ""
			if bl.IsError || len(bl.Content) <= smallOutput {
				out = flatText(bl.Content)
			}
			p.emit(Event{Time: t, Role: RoleResult, CallID: bl.ToolUseID, Text: out, Failed: bl.IsError})
		}
	}
	return nil
}

// flatText is the text of a string or of a list of {type:text,text} parts.
func flatText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, pt := range parts {
		if pt.Text != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(pt.Text)
		}
	}
	return b.String()
}

// Codex CLI writes ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl:
// each line {timestamp, type, payload}, where session_meta names the
// session and response_item carries messages (content parts of
// input_text/output_text), function calls (shell commands, apply_patch)
// and their outputs. Rollouts older than the payload wrapper hold the
// items themselves, after a first line with the session's id.

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Cwd       string          `json:"cwd"`
	Timestamp string          `json:"timestamp"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    *struct {
		Command []string `json:"command"`
	} `json:"action"`
	Status string `json:"status"`
}

func (p *parser) codexLine(b []byte) error {
	var l codexLine
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	raw := l.Payload
	if len(raw) == 0 {
		raw = b // an older rollout: the line is the item
	}
	var it codexItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	if l.Type == "session_meta" || (len(l.Payload) == 0 && it.Type == "" && it.ID != "") {
		if p.meta.ID == "" {
			p.meta.ID = it.ID
		}
		if p.meta.Cwd == "" {
			p.meta.Cwd = it.Cwd
		}
		return nil
	}
	if l.Type == "turn_context" && p.meta.Cwd == "" {
		p.meta.Cwd = it.Cwd
	}
	if l.Type != "" && l.Type != "response_item" && len(l.Payload) > 0 {
		return nil // event_msg repeats the response items; turn_context, compacted
	}
	t := parseTime(l.Timestamp)
	switch it.Type {
	case "message":
		text := flatText(it.Content)
		switch it.Role {
		case "user":
			p.emit(Event{Time: t, Role: RoleUser, Text: text})
		case "assistant":
			p.emit(Event{Time: t, Role: RoleAssistant, Text: text})
		}
	case "function_call", "custom_tool_call", "local_shell_call":
		e := Event{Time: t, Role: RoleCall, Tool: it.Name, CallID: it.CallID}
		if it.Action != nil {
			e.Tool, e.Command = "shell", shellCommand(it.Action.Command)
		}
		var args struct {
			Command json.RawMessage `json:"command"`
			Cmd     string          `json:"cmd"`
			Input   string          `json:"input"`
		}
		if it.Arguments != "" {
			_ = json.Unmarshal([]byte(it.Arguments), &args)
		}
		if args.Cmd != "" {
			e.Command = args.Cmd
		} else if len(args.Command) > 0 {
			var s string
			var argv []string
			if json.Unmarshal(args.Command, &s) == nil {
				e.Command = s
			} else if json.Unmarshal(args.Command, &argv) == nil {
				e.Command = shellCommand(argv)
			}
		}
		patch := it.Input
		if patch == "" {
			patch = args.Input
		}
		if strings.HasPrefix(e.Command, "apply_patch") {
			patch, e.Command = e.Command, ""
		}
		e.Files = patchFiles(patch)
		p.emit(e)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		out, failed := codexOutput(it.Output)
		p.emit(Event{Time: t, Role: RoleResult, CallID: it.CallID, Text: out, Failed: failed})
	}
	return nil
}

// shellCommand is the command line of an argv: the script of
// `bash -lc SCRIPT`, else the words joined.
func shellCommand(argv []string) string {
	if n := len(argv); n >= 3 && (argv[n-2] == "-lc" || argv[n-2] == "-c") {
		return argv[n-1]
	}
	return strings.Join(argv, " ")
}

var patchFile = lazyre.New(`(?m)^\*\*\* (?:Add|Update|Delete) File: (.+)$`)

// patchFiles lists the files an apply_patch input writes.
func patchFiles(patch string) []string {
	var out []string
	for _, m := range patchFile.FindAllStringSubmatch(patch, 50) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

var exitLine = lazyre.New(`(?i)^(?:exit code|process exited with code)[: ]\s*(-?\d+)`)

// codexOutput reads a tool output: a JSON string holding either
// {"output", "metadata": {"exit_code"}} or plain text that may start with
// "Exit code: N".
func codexOutput(raw json.RawMessage) (string, bool) {
	s := flatText(raw)
	if s == "" {
		var obj struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(raw, &obj) == nil {
			s = obj.Content
		}
	}
	var wrapped struct {
		Output   string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &wrapped) == nil && wrapped.Metadata.ExitCode != nil {
		return wrapped.Output, *wrapped.Metadata.ExitCode != 0
	}
	return s, failedByExitLine(s)
}

// failedByExitLine reports an "Exit code: N" line with N ≠ 0 among the
// first lines of an output.
func failedByExitLine(s string) bool {
	lines := strings.Split(s, "\n")
	if len(lines) > 12 {
		lines = append(lines[:6], lines[len(lines)-6:]...)
	}
	for _, l := range lines {
		if m := exitLine.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n != 0
		}
	}
	return false
}

// Gemini CLI writes ~/.gemini/tmp/<project>/chats/session-<time>-<id>.json:
// one JSON document {sessionId, projectHash, startTime, lastUpdated,
// messages}; each message has a type (user, gemini, info, error), content
// (a string or parts) and, for gemini, toolCalls with name, args, status
// and result. The document is read with a token decoder, one message at a
// time, so its size does not matter.

type geminiMessage struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Args      json.RawMessage `json:"args"`
		Result    json.RawMessage `json:"result"`
		Status    string          `json:"status"`
		Error     string          `json:"error"`
		Timestamp string          `json:"timestamp"`
		Display   string          `json:"resultDisplay"`
	} `json:"toolCalls"`
}

func (p *parser) gemini(br *bufio.Reader) error {
	d := json.NewDecoder(br)
	tok, err := d.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return err
		}
		switch k {
		case "sessionId":
			if err := d.Decode(&p.meta.ID); err != nil {
				return fmt.Errorf("sessionId: %w", err)
			}
		case "messages":
			if tok, err := d.Token(); err != nil || tok != json.Delim('[') {
				return errors.New("messages is not a list")
			}
			for i := 0; d.More(); i++ {
				var m geminiMessage
				if err := d.Decode(&m); err != nil {
					return fmt.Errorf("message %d: %w", i, err)
				}
				p.geminiMessage(m)
			}
			if _, err := d.Token(); err != nil {
				return err
			}
		default:
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return fmt.Errorf("%v: %w", k, err)
			}
		}
	}
	return nil
}

func (p *parser) geminiMessage(m geminiMessage) {
	t := parseTime(m.Timestamp)
	text := flatText(m.Content)
	switch m.Type {
	case "user":
		p.emit(Event{Time: t, Role: RoleUser, Text: text})
	case "gemini", "model", "assistant":
		if text != "" {
			p.emit(Event{Time: t, Role: RoleAssistant, Text: text})
		}
	}
	for _, c := range m.ToolCalls {
		var args struct {
			Command  string `json:"command"`
			FilePath string `json:"file_path"`
			Path     string `json:"path"`
		}
		_ = json.Unmarshal(c.Args, &args)
		e := Event{Time: t, Role: RoleCall, Tool: c.Name, CallID: c.ID}
		switch c.Name {
		case "run_shell_command", "shell":
			e.Command = args.Command
		case "write_file", "replace", "edit", "edit_file":
			e.Files = []string{args.FilePath + args.Path}
		}
		p.emit(e)
		out := c.Display
		var parts []struct {
			FunctionResponse struct {
				Response struct {
					Output string `json:"output"`
					Error  string `json:"error"`
				} `json:"response"`
			} `json:"functionResponse"`
		}
		if json.Unmarshal(c.Result, &parts) == nil {
			for _, pt := range parts {
				if r := pt.FunctionResponse.Response; r.Output+r.Error != "" {
					out = r.Output + r.Error
				}
			}
		}
		if c.Error != "" {
			out = c.Error + "\n" + out
		}
		failed := c.Status == "error" || c.Status == "cancelled" || failedByExitLine(out)
		p.emit(Event{Time: parseTime(c.Timestamp), Role: RoleResult, CallID: c.ID, Text: out, Failed: failed})
	}
}

// The generic format is JSONL, for agents without a parser of their own:
//
//	{"konteks_session": 1, "agent": "NAME", "id": "SESSION-ID", "cwd": "/path"}   (optional first line)
//	{"role": "user", "text": "...", "time": "2026-01-02T15:04:05Z"}
//	{"role": "assistant", "text": "..."}
//	{"role": "tool", "command": "go test ./...", "exit_code": 1, "output": "..."}
//	{"role": "tool", "files": ["path/written.go"]}
//
// "time" is optional everywhere; a tool line may carry a command, files
// written, or both, and "failed": true instead of an exit code.

type genericLine struct {
	Session  int      `json:"konteks_session"`
	Agent    string   `json:"agent"`
	ID       string   `json:"id"`
	Cwd      string   `json:"cwd"`
	Role     string   `json:"role"`
	Text     string   `json:"text"`
	Time     string   `json:"time"`
	Command  string   `json:"command"`
	ExitCode *int     `json:"exit_code"`
	Failed   bool     `json:"failed"`
	Output   string   `json:"output"`
	Files    []string `json:"files"`
}

func (p *parser) genericLine(b []byte) error {
	var l genericLine
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	if l.Session != 0 {
		if l.Session != 1 {
			return fmt.Errorf("konteks_session version %d is not known (1 is)", l.Session)
		}
		p.meta.ID, p.meta.Cwd = l.ID, l.Cwd
		if l.Agent != "" {
			p.meta.Agent = AgentGeneric + ":" + clip(l.Agent, 40)
		}
		return nil
	}
	t := parseTime(l.Time)
	switch l.Role {
	case "user", "human":
		p.emit(Event{Time: t, Role: RoleUser, Text: l.Text})
	case "assistant", "agent":
		p.emit(Event{Time: t, Role: RoleAssistant, Text: l.Text})
	case "tool":
		id := "g" + strconv.Itoa(p.line)
		p.emit(Event{Time: t, Role: RoleCall, Tool: "tool", CallID: id, Command: l.Command, Files: l.Files})
		failed := l.Failed || (l.ExitCode != nil && *l.ExitCode != 0)
		p.emit(Event{Time: t, Role: RoleResult, CallID: id, Text: l.Output + l.Text, Failed: failed})
	default:
		return fmt.Errorf("unknown role %q (user, assistant or tool)", l.Role)
	}
	return nil
}
