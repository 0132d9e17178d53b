package mcp

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// limitsServer serves s's HTTP handler with token, the limits shortened.
func limitsServer(t *testing.T, token string) (*Server, *httptest.Server) {
	t.Helper()
	r := fixture(t)
	s, err := New(context.Background(), Options{Dir: r.Dir, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	hs := httptest.NewServer(s.Handler(token))
	t.Cleanup(hs.Close)
	return s, hs
}

func setLimits(t *testing.T, body, idle time.Duration, sessions int) {
	ob, oi, om := bodyTimeout, sessionIdle, maxSessions
	bodyTimeout, sessionIdle, maxSessions = body, idle, sessions
	t.Cleanup(func() { bodyTimeout, sessionIdle, maxSessions = ob, oi, om })
}

func openSessions(s *Server) int {
	n := 0
	for range s.srv.Sessions() {
		n++
	}
	return n
}

// TestHTTPSessionLimits: new sessions past the cap are refused with 503
// while open ones keep working, and an idle session is closed.
func TestHTTPSessionLimits(t *testing.T) {
	setLimits(t, 30*time.Second, time.Hour, 2)
	_, hs := limitsServer(t, "")
	ctx := context.Background()
	connect := func() (*sdk.ClientSession, error) {
		c := sdk.NewClient(&sdk.Implementation{Name: "limits", Version: "1"}, nil)
		return c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true},
			&sdk.ClientSessionOptions{ProtocolVersion: eraSessions})
	}
	var open []*sdk.ClientSession
	for i := 0; i < 2; i++ {
		cs, err := connect()
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		open = append(open, cs)
	}
	if _, err := connect(); err == nil || !strings.Contains(err.Error(), "503") && !strings.Contains(err.Error(), "Service Unavailable") && !strings.Contains(err.Error(), "too many") {
		t.Fatalf("a third session past a cap of 2: %v", err)
	}
	if _, err := open[0].ListTools(ctx, nil); err != nil {
		t.Fatalf("an open session stopped working at the cap: %v", err)
	}
}

// TestHTTPIdleSessionsClose: a session no request touches for the idle
// time is closed by the server.
func TestHTTPIdleSessionsClose(t *testing.T) {
	setLimits(t, 30*time.Second, 200*time.Millisecond, 256)
	s, hs := limitsServer(t, "")
	c := sdk.NewClient(&sdk.Implementation{Name: "idle", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true},
		&sdk.ClientSessionOptions{ProtocolVersion: eraSessions})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if openSessions(s) == 0 {
		t.Fatal("no session open after connecting")
	}
	for deadline := time.Now().Add(time.Minute); openSessions(s) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still open a minute past an idle time of %s", openSessions(s), sessionIdle)
		}
	}
}

// TestHTTPTrickledBody: a body sent too slowly ends with 408 and the
// connection is released, instead of held open for as long as the client
// likes.
func TestHTTPTrickledBody(t *testing.T) {
	setLimits(t, 300*time.Millisecond, time.Hour, 256)
	_, hs := limitsServer(t, "")
	conn, err := net.Dial("tcp", strings.TrimPrefix(hs.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n{\"jsonrpc\":", 1<<20)
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body: %v", err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("trickled body: status %d, want 408", resp.StatusCode)
	}
}

// TestHTTPBearerScheme: the scheme is case-insensitive; the token is not.
func TestHTTPBearerScheme(t *testing.T) {
	_, hs := limitsServer(t, "s3cret-token")
	for auth, want := range map[string]int{
		"Bearer s3cret-token": http.StatusOK, "bearer s3cret-token": http.StatusOK, "BEARER  s3cret-token": http.StatusOK,
		"Bearer S3CRET-TOKEN": http.StatusUnauthorized, "Basic s3cret-token": http.StatusUnauthorized, "": http.StatusUnauthorized,
	} {
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Authorization %q: status %d, want %d", auth, resp.StatusCode, want)
		}
	}
}
