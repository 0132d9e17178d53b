// Command app serves the store over HTTP.
package main

import (
	"fmt"
	"net/http"

	"example.com/mixed/internal/store"
)

func main() {
	s := store.New()
	http.HandleFunc("/get", func(w http.ResponseWriter, r *http.Request) {
		v, _ := s.Get(r.URL.Query().Get("key"))
		fmt.Fprintln(w, v)
	})
	http.ListenAndServe(":8080", nil)
}
