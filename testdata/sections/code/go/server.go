// Package server runs the demo HTTP server.
package server

import (
	"fmt"
	"net/http"
)

// DefaultAddr is where the server listens.
const DefaultAddr = ":8080"

// Server serves HTTP requests.
//
// It is safe for concurrent use.
type Server struct {
	addr    string
	handler http.Handler
}

// Start starts the server.
func (s *Server) Start() error {
	return http.ListenAndServe(s.addr, s.handler)
}

// Stop stops it.
func (s Server) Stop() {}

// Store keeps values.
type Store interface {
	Get(key string) (string, error)
}

type (
	ID   int
	Name = string
)

// Len returns the length.
func (l *List[T]) Len() int { return len(l.items) }

var handle = func(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintln(w, "ok")
}

// New makes a server.
func New(addr string) *Server {
	return &Server{addr: addr}
}
