//go:build race

package main

// raceEnabled says the tests run with -race (and so build the binary with it).
const raceEnabled = true
