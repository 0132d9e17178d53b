package mcp

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// The streamable HTTP transport (the MCP specification's, through the
// SDK's handler), for clients and containers that connect over HTTP
// rather than starting the server themselves.
//
// Decision: loopback only unless asked. Memory is the repository's code
// and its people's notes; a server reachable from the network must be
// asked for explicitly (AllowRemote) and then needs a bearer token. The
// token comes from an environment variable, not a flag, so it does not
// show in the process list. The SDK's handler also refuses requests to a
// loopback address whose Host header is not loopback (DNS rebinding), and
// cross-origin browser requests are refused.

// TokenEnv is the environment variable the bearer token is read from.
const TokenEnv = "KONTEKS_MCP_TOKEN"

// HTTPPath is where the MCP endpoint is served.
const HTTPPath = "/mcp"

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	// Addr is host:port to listen on (port 0 picks one).
	Addr string
	// AllowRemote permits a non-loopback address.
	AllowRemote bool
	// Token, when set, is the bearer token every request must carry.
	Token string
	// Ready, when set, is called with the address listened on.
	Ready func(addr string)
}

// CheckAddr refuses an address that is not loopback unless allowRemote,
// and a remote one without a token.
func CheckAddr(addr string, allowRemote bool, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %s: want HOST:PORT, e.g. 127.0.0.1:8765 (%v)", addr, err)
	}
	if isLoopback(host) {
		return nil
	}
	if !allowRemote {
		return fmt.Errorf("--http %s is not a loopback address: memory would be reachable from the network; use 127.0.0.1:PORT, or pass --allow-remote with a token in $%s", addr, TokenEnv)
	}
	if token == "" {
		return fmt.Errorf("--allow-remote needs a bearer token: set $%s (clients send it as Authorization: Bearer TOKEN)", TokenEnv)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Handler is the HTTP handler of the MCP endpoint: every session is served
// by this server; token, when set, is required as a bearer token.
func (s *Server) Handler(token string) http.Handler {
	h := bounded(s.sdkHandlers())
	var next http.Handler = h
	if token != "" {
		next = bearer(token, h)
	}
	return http.NewCrossOriginProtection().Handler(next)
}

// bearer requires "Authorization: Bearer token" (the scheme, as HTTP
// says, in any case).
func bearer(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="git-konteks"`)
			http.Error(w, "unauthorized: send Authorization: Bearer $"+TokenEnv, http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Limits of the HTTP endpoint: a request body is read whole within
// bodyTimeout and up to maxBody bytes before the SDK sees it, so a client
// that trickles a body cannot hold a connection open for ever; sessions
// idle for sessionIdle are closed (era.go), and at most maxSessions are
// open at once. Tests shorten them.
var (
	bodyTimeout = 30 * time.Second
	maxBody     = int64(8 << 20)
	sessionIdle = 30 * time.Minute
	maxSessions = 256
)

// bounded reads each request body whole, within bodyTimeout and maxBody,
// and then lifts the read deadline for the response (which may stream).
func bounded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Now().Add(bodyTimeout))
			b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
			if err != nil {
				code := http.StatusRequestTimeout
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					code = http.StatusRequestEntityTooLarge
				}
				http.Error(w, "request body: "+err.Error(), code)
				return
			}
			_ = rc.SetReadDeadline(time.Time{})
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP serves the MCP endpoint at HTTPPath until ctx ends.
func (s *Server) ServeHTTP(ctx context.Context, opt HTTPOptions) error {
	if err := CheckAddr(opt.Addr, opt.AllowRemote, opt.Token); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opt.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", opt.Addr, err)
	}
	mux := http.NewServeMux()
	h := s.Handler(opt.Token)
	mux.Handle(HTTPPath, h)
	mux.Handle(HTTPPath+"/", h)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "git konteks serves MCP at "+HTTPPath, http.StatusNotFound)
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if opt.Ready != nil {
		opt.Ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		err := hs.Shutdown(sctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = hs.Close()
		}
		return err
	}
}
