// Package server serves widgets.
package server

import "net/http"

// Server holds the routes.
type Server struct {
	mux *http.ServeMux
}

// Handler is anything that serves.
type Handler interface {
	Serve()
}

// New makes a Server.
func New() *Server {
	return &Server{mux: http.NewServeMux()}
}

func (s *Server) Start(addr string) error {
	return http.ListenAndServe(addr, s.mux)
}

func Map[K comparable, V any](m map[K]V) []K {
	return nil
}
