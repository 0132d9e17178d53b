package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// bigClaude is a Claude Code transcript of about size bytes: test runs
// with long outputs, a failure every seventh, edits and rules.
func bigClaude(size int, cwd string) []byte {
	var buf bytes.Buffer
	line := func(typ string, content any, i int) {
		b, _ := json.Marshal(map[string]any{"type": typ, "sessionId": "big", "cwd": cwd, "uuid": fmt.Sprint(i),
			"timestamp": time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano),
			"message":   map[string]any{"role": typ, "content": content}})
		buf.Write(b)
		buf.WriteByte('\n')
	}
	out := strings.Repeat("=== RUN   TestSomething\n--- PASS: TestSomething (0.00s)\n", 100) // ~6 KB
	line("user", "Make the client retry with backoff and keep the tests green. Never use time.Sleep in tests.", 0)
	for i := 1; buf.Len() < size; i++ {
		id := fmt.Sprint("toolu_", i)
		cmd := fmt.Sprintf("go test ./pkg%d/...", i%40)
		failed := i%7 == 0
		res := out
		if failed {
			res = fmt.Sprintf("pkg%d/x_test.go:%d: undefined: helper%d\n", i%40, i, i%13) + out
		}
		line("assistant", []any{map[string]any{"type": "text", "text": "Running the tests of the package again to see where it stands."},
			map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}}, i)
		line("user", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": res, "is_error": failed}}, i)
		if failed {
			eid := id + "e"
			line("assistant", []any{map[string]any{"type": "tool_use", "id": eid, "name": "Edit", "input": map[string]any{"file_path": fmt.Sprintf("%s/pkg%d/x.go", cwd, i%40)}}}, i)
			line("user", []any{map[string]any{"type": "tool_result", "tool_use_id": eid, "content": "updated"}}, i)
		}
		if i%50 == 0 {
			line("user", fmt.Sprintf("Always keep package pkg%d free of globals.", i%40), i)
		}
	}
	return buf.Bytes()
}

func BenchmarkRead(b *testing.B) {
	data := bigClaude(20<<20, "/home/dev/shop")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
