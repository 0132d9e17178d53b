package graph

import (
	"path"
	"strings"
)

// Which files a reference by name may link. A name match is evidence of a
// use only where a use is possible: production code does not call into its
// tests, and a TypeScript file that names a Go function has found a word,
// not a callee. References are kept within a family of languages that call
// each other by name (JavaScript and TypeScript; the JVM languages; the C
// family), and into C and assembly from the languages that call them by
// name through a foreign function interface (cgo, Rust's extern "C",
// Cython and extension modules, Swift).

// IsTestPath reports whether p is a test file (or a test fixture) by the
// conventions of the common ecosystems: Go's _test.go, Python's test_*.py
// and *_test.py and conftest.py, JavaScript's *.test.* and *.spec.*,
// Ruby's *_spec.rb and *_test.rb, the JVM's and .NET's *Test and *Tests
// classes, and anything under a test, tests, spec, __tests__ or testdata
// directory (Rust's integration tests, src/test/java, ...).
func IsTestPath(p string) bool {
	lp := strings.ToLower(p)
	for _, seg := range strings.Split(path.Dir(lp), "/") {
		switch seg {
		case "test", "tests", "spec", "specs", "__tests__", "__test__", "testdata", "test_data", "fixtures":
			return true
		}
	}
	base := path.Base(p)
	lb := strings.ToLower(base)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(lb, "_test.go"), strings.HasSuffix(lb, "_test.py"), strings.HasPrefix(lb, "test_") && strings.HasSuffix(lb, ".py"),
		lb == "conftest.py", strings.HasSuffix(lb, "_spec.rb"), strings.HasSuffix(lb, "_test.rb"),
		strings.Contains(lb, ".test."), strings.Contains(lb, ".spec."), strings.HasSuffix(lb, "_test.rs"),
		strings.HasSuffix(lb, "_test.cc"), strings.HasSuffix(lb, "_test.cpp"), strings.HasSuffix(lb, "_unittest.cc"):
		return true
	case strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests") || strings.HasSuffix(stem, "IT") || strings.HasSuffix(stem, "Spec"):
		switch path.Ext(lb) {
		case ".java", ".kt", ".scala", ".groovy", ".cs", ".fs", ".vb", ".swift", ".m", ".php":
			return true
		}
	}
	return false
}

// Language families for references.
const (
	famOther uint8 = iota // a language of its own: only the same language
	famJS
	famJVM
	famDotNet
	famC
	famAsm
	famGo
	famRust
	famPython
	famRuby
	famSwift
	famBEAM
	famLua
	famZig
)

// familyOf maps a linguist language name to its family; famOther means
// the language references only itself.
func familyOf(lang string) uint8 {
	switch lang {
	case "JavaScript", "TypeScript", "TSX", "JSX", "Vue", "Svelte", "CoffeeScript", "Astro", "MDX":
		return famJS
	case "Java", "Kotlin", "Scala", "Groovy", "Clojure":
		return famJVM
	case "C#", "F#", "Visual Basic .NET":
		return famDotNet
	case "C", "C++", "Objective-C", "Objective-C++", "Cuda", "CUDA", "Metal":
		return famC
	case "Assembly", "Unix Assembly", "Motorola 68K Assembly", "GAS":
		return famAsm
	case "Go":
		return famGo
	case "Rust":
		return famRust
	case "Python", "Cython", "Starlark":
		return famPython
	case "Ruby":
		return famRuby
	case "Swift":
		return famSwift
	case "Elixir", "Erlang":
		return famBEAM
	case "Lua":
		return famLua
	case "Zig":
		return famZig
	}
	return famOther
}

// mayReference reports whether a file of language from naming a symbol a
// file of language to defines can be a use of it.
func mayReference(from, to string) bool {
	if from == to {
		return true
	}
	ff, tf := familyOf(from), familyOf(to)
	if ff == famOther || tf == famOther {
		return false // different languages, neither in a family
	}
	if ff == tf {
		return true
	}
	switch tf {
	case famC:
		switch ff {
		case famGo, famRust, famPython, famRuby, famSwift, famLua, famZig, famAsm:
			return true
		}
	case famAsm:
		return ff == famC || ff == famGo || ff == famRust || ff == famZig
	case famSwift:
		return ff == famC // Objective-C calls Swift marked @objc
	}
	return false
}
