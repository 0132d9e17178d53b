package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/mcp"
)

// inspectorEnv names the official MCP inspector's executable (npm
// @modelcontextprotocol/inspector, node_modules/.bin/mcp-inspector):
// `make inspector` installs the version scripts/inspector pins and
// `make test` sets it.
const inspectorEnv = "KONTEKS_INSPECTOR"

// TestInspector runs the official MCP inspector, in CLI mode, against
// the server as an agent starts it (`git-konteks -C REPO mcp`, spawned
// by the inspector over stdio) and against `git-konteks mcp --http` over
// streamable HTTP. In the inspector's legacy era (sessions, what it
// negotiates by default) it makes every call of the checks below; in
// its modern era (the stateless revision) the handshake and the tool
// call again. Every call is a fresh Node process and a fresh connection,
// as the inspector makes them; they run a few at a time.
func TestInspector(t *testing.T) {
	t.Parallel()
	insp := os.Getenv(inspectorEnv)
	if insp == "" {
		t.Skip("$" + inspectorEnv + " is unset: `make inspector` installs the official MCP inspector (npm) and `make test` runs this test with it")
	}
	if _, err := os.Stat(insp); err != nil {
		t.Fatalf("$%s: %v (run make inspector)", inspectorEnv, err)
	}
	r := mixedRepo(t)
	run(t, r.Dir, "extract")
	files := strings.Fields(r.Git("ls-files"))
	t.Logf("inspector %s (%s)", inspectorVersion(t, insp), insp)

	env := inspectorProcEnv(t)
	// The stdio server gets only the environment the inspector passes:
	// a few variables of its own and these, which keep it off the
	// machine's git configuration.
	stdio := []string{binary, "-C", r.Dir, "mcp"}
	for _, kv := range testgit.Env() {
		if strings.HasPrefix(kv, "GIT_") {
			stdio = append(stdio, "-e", kv)
		}
	}
	targets := map[string][]string{
		"stdio": stdio,
		"http":  {startInspectorHTTP(t, r.Dir), "--transport", "http"},
	}

	var (
		mu       sync.Mutex
		versions = map[string]string{} // "transport era" → the protocol version negotiated
	)
	// Each check gets the call's label ("stdio legacy tools/list"), its
	// result and the inspector's stderr.
	checks := []struct {
		args   []string
		legacy bool // only in the legacy era: the modern era repeats the handshake and a tool call
		check  func(label string, res json.RawMessage, stderr string)
	}{
		{args: []string{"--method", "initialize"}, check: func(label string, res json.RawMessage, _ string) {
			var init struct {
				ServerInfo      struct{ Name, Version string } `json:"serverInfo"`
				ProtocolVersion string                         `json:"protocolVersion"`
				Instructions    string                         `json:"instructions"`
			}
			inspectorDecode(t, label, res, &init)
			if init.ServerInfo.Name != mcp.Name || init.ProtocolVersion == "" || init.Instructions == "" {
				t.Errorf("%s: %s", label, res)
			}
			mu.Lock()
			versions[strings.Join(strings.Fields(label)[:2], " ")] = init.ProtocolVersion
			mu.Unlock()
		}},
		// --strict: a tool schema problem of error severity (one a client
		// could not map) fails the call.
		{args: []string{"--method", "tools/list", "--strict"}, legacy: true, check: func(label string, res json.RawMessage, stderr string) {
			inspectorNames(t, label, res, "tools", mcp.Tools)
			if strings.HasPrefix(label, "stdio legacy") {
				t.Logf("%s: %d schema portability warnings, no errors", label, strings.Count(stderr, "Warning: "))
			}
		}},
		{args: []string{"--method", "resources/list"}, legacy: true, check: func(label string, res json.RawMessage, _ string) {
			var list struct{ Resources []struct{ URI string } }
			inspectorDecode(t, label, res, &list)
			if !slices.ContainsFunc(list.Resources, func(r struct{ URI string }) bool { return r.URI == mcp.ResourceProject }) {
				t.Errorf("%s: no %s: %s", label, mcp.ResourceProject, res)
			}
		}},
		{args: []string{"--method", "prompts/list"}, legacy: true, check: func(label string, res json.RawMessage, _ string) {
			inspectorNames(t, label, res, "prompts", mcp.Prompts)
		}},
		{args: []string{"--method", "tools/call", "--tool-name", mcp.ToolRecall, "--tool-arg", "task=get the value stored for a key"},
			check: func(label string, res json.RawMessage, _ string) {
				var out struct {
					IsError           bool             `json:"isError"`
					StructuredContent mcp.RecallOutput `json:"structuredContent"`
				}
				inspectorDecode(t, label, res, &out)
				hits := out.StructuredContent.Hits
				if out.IsError || len(hits) == 0 || hits[0].Path != "internal/store/store.go" {
					t.Errorf("%s: %s", label, res)
				}
				for _, h := range hits {
					if !slices.Contains(files, h.Path) {
						t.Errorf("%s: a hit names %q, not a file of the repository", label, h.Path)
					}
				}
			}},
		{args: []string{"--method", "resources/read", "--uri", mcp.ResourceProject}, legacy: true, check: func(label string, res json.RawMessage, _ string) {
			var read struct {
				Contents []struct{ URI, MIMEType, Text string }
			}
			inspectorDecode(t, label, res, &read)
			if len(read.Contents) != 1 || read.Contents[0].URI != mcp.ResourceProject || !strings.Contains(read.Contents[0].Text, "Project") {
				t.Errorf("%s: %s", label, res)
			}
		}},
	}

	// Node's start dominates each call (about 0.5 s of CPU): a few at a
	// time keep both cores busy without starving the package's other
	// tests.
	sem := make(chan struct{}, 3)
	var wg sync.WaitGroup
	for _, tr := range []string{"stdio", "http"} {
		for _, era := range []string{"legacy", "modern"} {
			for _, c := range checks {
				if c.legacy && era != "legacy" {
					continue
				}
				label := tr + " " + era + " " + c.args[1]
				args := append([]string{"--cli"}, targets[tr]...)
				args = append(args, "--protocol-era", era, "--format", "json")
				args = append(args, c.args...)
				wg.Add(1)
				go func() {
					defer wg.Done()
					sem <- struct{}{}
					defer func() { <-sem }()
					start := time.Now()
					res, stderr, err := runInspector(insp, r.Dir, env, args)
					t.Logf("%s: %v", label, time.Since(start).Round(time.Millisecond))
					if err != nil {
						t.Errorf("%s: %v\nstderr: %s", label, err, stderr)
						return
					}
					c.check(label, res, stderr)
				}()
			}
		}
	}
	wg.Wait()

	// The eras negotiate different revisions, each the same on both
	// transports.
	for _, era := range []string{"legacy", "modern"} {
		if s, h := versions["stdio "+era], versions["http "+era]; s != h {
			t.Errorf("%s era: protocol %q over stdio, %q over HTTP", era, s, h)
		}
	}
	legacy, modern := versions["stdio legacy"], versions["stdio modern"]
	if legacy == "" || modern == "" || legacy >= modern {
		t.Errorf("protocol versions: %q in the legacy era, %q in the modern era", legacy, modern)
	}
	t.Logf("protocol versions: %s (the inspector's legacy era, its default), %s (modern era)", legacy, modern)
}

// runInspector runs the inspector in dir, in a process group of its own
// (with the stdio server it spawns), and returns its JSON result and
// stderr. The group is killed when the call ends, a stray server with
// it, and on a timeout.
func runInspector(insp, dir string, env, args []string) (json.RawMessage, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), scaled(time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, insp, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	err := cmd.Wait()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		// With --format json, a failure is an error envelope on stdout or
		// stderr and a non-zero exit (5 for a tool's isError, 6 for a
		// --strict schema error).
		return nil, stderr.String(), fmt.Errorf("%v: %s", err, strings.TrimSpace(stdout.String()))
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, stderr.String(), fmt.Errorf("decode the inspector's output: %v\n%s", err, stdout.String())
	}
	if out.Error != nil || out.Result == nil {
		return nil, stderr.String(), fmt.Errorf("inspector: %s", stdout.String())
	}
	return out.Result, stderr.String(), nil
}

// inspectorProcEnv is the inspector's environment: the tests' own, with
// a home of its own, where it may keep its catalog and settings.
func inspectorProcEnv(t *testing.T) []string {
	home := t.TempDir()
	var env []string
	for _, kv := range testgit.Env() {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "XDG_CONFIG_HOME" && k != "XDG_DATA_HOME" && k != "XDG_STATE_HOME" && !strings.HasPrefix(k, "MCP_") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"))
}

// inspectorVersion is the inspector's version, from the package.json of
// the package its executable belongs to (running it costs a Node start).
func inspectorVersion(t *testing.T, insp string) string {
	p, err := filepath.EvalSymlinks(insp)
	if err != nil {
		t.Fatalf("$%s: %v", inspectorEnv, err)
	}
	for dir := filepath.Dir(p); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		var pkg struct{ Name, Version string }
		if json.Unmarshal(b, &pkg) == nil && pkg.Name == "@modelcontextprotocol/inspector" {
			return pkg.Version
		}
	}
	return "of unknown version"
}

// startInspectorHTTP starts `git-konteks mcp --http` on a free loopback port
// in dir, in a process group of its own that the test's cleanup ends,
// and returns its endpoint.
func startInspectorHTTP(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command(binary, "mcp", "--http", "127.0.0.1:0")
	cmd.Dir = dir
	cmd.Env = testgit.Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	addr := make(chan string, 1)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`at (http://\S+)`)
		for sc.Scan() {
			fmt.Fprintln(&log, sc.Text())
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		pgid := cmd.Process.Pid
		syscall.Kill(-pgid, syscall.SIGINT)
		done := make(chan error, 1)
		go func() { <-scanned; done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil { // a race the -race binary found exits 66
				t.Errorf("HTTP server: %v", err)
			}
		case <-time.After(scaled(10 * time.Second)):
			t.Errorf("the HTTP server did not stop on SIGINT")
		}
		syscall.Kill(-pgid, syscall.SIGKILL)
		if s := log.String(); s != "" {
			t.Logf("HTTP server stderr:\n%s", s)
		}
	})
	select {
	case endpoint := <-addr:
		if !strings.HasSuffix(endpoint, mcp.HTTPPath) {
			t.Fatalf("endpoint %s", endpoint)
		}
		return endpoint
	case <-scanned:
		t.Fatalf("the HTTP server ended before it listened:\n%s", log.String())
	case <-time.After(scaled(time.Minute)):
		t.Fatalf("the HTTP server did not say where it listens:\n%s", log.String())
	}
	return ""
}

func inspectorDecode(t *testing.T, label string, res json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(res, v); err != nil {
		t.Errorf("%s: decode %s: %v", label, res, err)
	}
}

// inspectorNames checks that the list under key of a tools/list or
// prompts/list answer names exactly want.
func inspectorNames(t *testing.T, label string, res json.RawMessage, key string, want []string) {
	t.Helper()
	var lists map[string]json.RawMessage
	var list []struct{ Name string }
	inspectorDecode(t, label, res, &lists)
	inspectorDecode(t, label, lists[key], &list)
	var names []string
	for _, x := range list {
		names = append(names, x.Name)
	}
	if want := inspectorSorted(want); !slices.Equal(inspectorSorted(names), want) {
		t.Errorf("%s: names %v, want %v", label, inspectorSorted(names), want)
	}
}

func inspectorSorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
