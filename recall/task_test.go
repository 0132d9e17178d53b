package recall

import (
	"slices"
	"strings"
	"testing"
)

// A bug report in the shape issue templates give them: the template's
// headings, an environment list, a checklist, a stack trace and a code
// block around one sentence that matters.
const templatedIssue = `Connection pool leaks when the server closes keep-alive sockets
<!-- Please fill in the template below. Issues without a reproduction will be closed. -->
### Describe the bug
After the server closes an idle keep-alive connection, the pool keeps handing it out and every request fails.

### To Reproduce
` + "```java" + `
ConnectionPool pool = new ConnectionPool(5, 1, TimeUnit.MINUTES);
client.newCall(request).execute();
` + "```" + `

### Stack trace
` + "```" + `
java.io.IOException: unexpected end of stream on Connection{example.com:443}
	at okhttp3.internal.http1.Http1ExchangeCodec.readResponseHeaders(Http1ExchangeCodec.kt:205)
	at okhttp3.internal.connection.RealConnectionPool.cleanup(RealConnectionPool.kt:243)
	at java.base/java.lang.Thread.run(Thread.java:833)
Caused by: java.io.EOFException: \n not found: limit=0 content=…
	... 12 more
` + "```" + `

### Environment
- OS: macOS 14.2
- Version: 4.12.0
- JDK version: 17

- [x] I searched existing issues
`

func TestParseTaskSeparatesProseFromTemplateAndTraces(t *testing.T) {
	task := ParseTask(templatedIssue)
	if task.Title != "Connection pool leaks when the server closes keep-alive sockets" {
		t.Errorf("title %q", task.Title)
	}
	for _, noise := range []string{"Describe the bug", "To Reproduce", "macOS", "4.12.0", "searched existing", "Please fill"} {
		if strings.Contains(task.Prose, noise) {
			t.Errorf("prose holds template text %q:\n%s", noise, task.Prose)
		}
	}
	if !strings.Contains(task.Prose, "pool keeps handing it out") {
		t.Errorf("prose lost the reporter's sentence:\n%s", task.Prose)
	}
	if !strings.Contains(task.Code, "new ConnectionPool") {
		t.Errorf("code block not kept as code: %q", task.Code)
	}
	if strings.Contains(task.Code, "RealConnectionPool.cleanup") || !strings.Contains(task.Trace, "RealConnectionPool.cleanup") {
		t.Errorf("stack trace not read as a trace:\ncode %q\ntrace %q", task.Code, task.Trace)
	}
	if !slices.Contains(task.TracePaths, "RealConnectionPool.kt") {
		t.Errorf("trace paths %v, want RealConnectionPool.kt", task.TracePaths)
	}
	if !task.Symbols["realconnectionpool"] || !task.Symbols["connectionpool"] {
		t.Errorf("symbols %v", task.Symbols)
	}
	if len(task.Errors) == 0 || !strings.Contains(task.Errors[0], "unexpected end of stream") {
		t.Errorf("errors %q", task.Errors)
	}
}

func TestTaskTermsWeighProseOverNoise(t *testing.T) {
	task := ParseTask(templatedIssue)
	w := map[string]float64{}
	for _, tm := range task.Terms(1) {
		w[tm.Text] = tm.Weight
	}
	if w["pool"] <= w["thread"] {
		t.Errorf("pool %.2f should outweigh the trace's thread %.2f", w["pool"], w["thread"])
	}
	if _, ok := w["maco"]; ok {
		t.Errorf("environment list reached the query: %v", w)
	}
	if _, ok := w["macos"]; ok {
		t.Errorf("environment list reached the query: %v", w)
	}
	if w["keep"] < 2 {
		t.Errorf("a title term weighs %.2f, want the subject's extra weight", w["keep"])
	}
}

func TestParseTaskTracesOfManyLanguages(t *testing.T) {
	for _, c := range []struct{ name, text, path string }{
		{"python", "KeyError in loader\nTraceback (most recent call last):\n  File \"/usr/lib/python3/site-packages/pkg/loader.py\", line 88, in load\n    return table[key]\nKeyError: 'x'", "/usr/lib/python3/site-packages/pkg/loader.py"},
		{"go", "panic on empty config\ngoroutine 1 [running]:\nmain.parse(...)\n\t/src/app/config/parse.go:42 +0x1d", "/src/app/config/parse.go"},
		{"rust", "crash on empty input\nthread 'main' panicked at src/lexer.rs:120:9:\nindex out of bounds", "src/lexer.rs"},
		{"php", "fatal on upload\n#0 /var/www/src/Http/UploadedFile.php(77): move()\n#1 {main}", "/var/www/src/Http/UploadedFile.php"},
		{"csharp", "NullReferenceException when mapping\n   at AutoMap.Mapper.Map(Object src) in C:\\src\\Mapper.cs:line 55", ""},
	} {
		task := ParseTask(c.text)
		if task.Trace == "" {
			t.Errorf("%s: no trace read from %q", c.name, c.text)
		}
		if c.path != "" && !slices.Contains(task.TracePaths, strings.TrimPrefix(c.path, "/")) {
			t.Errorf("%s: trace paths %v, want %s", c.name, task.TracePaths, c.path)
		}
	}
}

func TestParseTaskShortTaskIsAllProse(t *testing.T) {
	for _, q := range []string{"where are durable memories merged", "fix: retry push when the remote moved\n\nThe push loop gave up after one try."} {
		task := ParseTask(q)
		if task.Trace != "" || task.Code != "" {
			t.Errorf("%q: trace %q code %q", q, task.Trace, task.Code)
		}
		if strings.Join(strings.Fields(task.Prose), " ") != strings.Join(strings.Fields(q), " ") {
			t.Errorf("%q: prose %q", q, task.Prose)
		}
	}
}

func TestTaggedWith(t *testing.T) {
	for _, c := range []struct {
		path string
		tags []string
		want bool
	}{
		{"internal/store/store.go", []string{"store"}, true},
		{"internal/store/cache.go", []string{"Store"}, true},
		{"share/push.go", []string{"push"}, true},
		{"share/push.go", []string{"store", "pushes"}, false},
		{"share/push.go", nil, false},
		{"storefront/a.go", []string{"store"}, false},
	} {
		if got := taggedWith(c.path, c.tags); got != c.want {
			t.Errorf("taggedWith(%q, %q) = %v", c.path, c.tags, got)
		}
	}
}
