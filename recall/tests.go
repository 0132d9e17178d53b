package recall

import (
	"path"
	"strings"

	"github.com/konteks/git-konteks/index"
)

// IsTestPath reports whether a path is test code by the conventions of the
// common languages: a test directory (test, tests, spec, __tests__,
// testdata, ...) or a test file name (foo_test.go, test_foo.py,
// foo_test.py, foo_spec.rb, foo.test.ts, foo.spec.js, FooTest.java,
// FooTests.cs, conftest.py).
func IsTestPath(p string) bool {
	lp := strings.ToLower(p)
	dir, base := path.Split(lp)
	for _, c := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
		switch c {
		case "test", "tests", "spec", "specs", "__tests__", "testdata", "test_data", "testutil", "testutils", "e2e", "integration_tests":
			return true
		}
	}
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(stem, "_test"), strings.HasSuffix(stem, "_tests"), strings.HasSuffix(stem, "_spec"),
		strings.HasPrefix(stem, "test_"), stem == "conftest",
		strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"):
		return true
	}
	// FooTest.java, FooTests.cs, FooSpec.scala: the case tells.
	orig := path.Base(p)
	origStem := strings.TrimSuffix(orig, path.Ext(orig))
	for _, s := range []string{"Test", "Tests", "Spec"} {
		if strings.HasSuffix(origStem, s) && len(origStem) > len(s) {
			return true
		}
	}
	return false
}

// isTestDoc reports whether a section is test code: in a test file, or a
// test function or test module inside a source file (Go's TestXxx and
// BenchmarkXxx, Python's test_xxx, Rust's mod tests).
func isTestDoc(d *index.Doc) bool {
	if IsTestPath(d.Path) {
		return true
	}
	name := d.Name
	if name == "" {
		return false
	}
	for _, pre := range []string{"Test", "Benchmark", "Fuzz"} {
		if strings.HasPrefix(name, pre) && len(name) > len(pre) && name[len(pre)] >= 'A' && name[len(pre)] <= 'Z' {
			return true
		}
	}
	if strings.HasPrefix(name, "test_") || name == "tests" {
		return true
	}
	q := d.QName
	return strings.HasPrefix(q, "tests.") || strings.HasPrefix(q, "tests::") || strings.Contains(q, "::tests::") || strings.Contains(q, ".tests.")
}

// testQuery reports whether a query is about tests ("which test covers
// parsing", "flaky spec"): then tests are answers like any other code.
func testQuery(terms []index.Term) bool {
	for _, t := range terms {
		switch t.Text {
		case "test", "tests", "testing", "spec", "specs", "unittest", "pytest", "fixture", "fixtures", "flaky", "coverage", "mock", "mocks", "assert", "assertion", "benchmark", "bench":
			return true
		}
	}
	return false
}
