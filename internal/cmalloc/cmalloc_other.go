//go:build !linux || !cgo

package cmalloc

func tune() {}
