package mcp

import (
	"fmt"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Two eras of the protocol over one endpoint.
//
// Decision: the 2026-07-28 revision is stateless (no initialize, no
// session id; every request carries its protocol version, in the body's
// _meta and the Mcp-Protocol-Version header), and the SDK serves it over
// streamable HTTP only from a handler in stateless mode. Clients that
// negotiate 2025-11-25 or earlier need the stateful handler: a session
// id, the GET stream for notifications, and server-to-client requests
// (roots). So each request goes to the handler of its era, told by its
// Mcp-Protocol-Version header: 2026-07-28 or later is stateless, anything
// else (an initialize, which carries no header, and every request of a
// legacy session) is stateful. A server/discover without the header is
// answered by the stateful handler with the versions it serves, and the
// client falls back to initialize, as the specification lets it.

// statelessEra is the first protocol version served without sessions.
const statelessEra = "2026-07-28"

// eraHandler routes each request to the handler of its protocol era.
func eraHandler(stateful, stateless http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Mcp-Protocol-Version"); v >= statelessEra {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

// sdkHandlers are the SDK's streamable HTTP handlers of both eras for s.
func (s *Server) sdkHandlers() http.Handler {
	get := func(*http.Request) *sdk.Server { return s.srv }
	stateful := sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{SessionTimeout: sessionIdle})
	return eraHandler(s.sessionCap(stateful, maxSessions),
		sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{Stateless: true}))
}

// sessionCap refuses a new session (a request without Mcp-Session-Id)
// while max are open; requests of open sessions go through.
func (s *Server) sessionCap(next http.Handler, max int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			n := 0
			for range s.srv.Sessions() {
				n++
			}
			if n >= max {
				w.Header().Set("Retry-After", "60")
				http.Error(w, fmt.Sprintf("too many MCP sessions open (%d); idle ones close after %s", n, sessionIdle), http.StatusServiceUnavailable)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
