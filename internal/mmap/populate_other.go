//go:build !linux

package mmap

// populate is Linux's MAP_POPULATE; elsewhere pages map at first touch.
const populate = 0
