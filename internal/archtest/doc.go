// Package archtest holds the test that keeps docs/architecture.md, the
// package map, true to the packages the module has.
package archtest
