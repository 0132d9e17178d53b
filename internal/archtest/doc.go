// Package archtest holds the tests that keep docs/architecture.md true:
// the package map matches the packages the module has, and go-git is
// imported by gitstore alone.
package archtest
