package testgit

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCacheDirIsTheTests: importing the package points the user cache
// directory, where gitstore keeps git's version, away from the user's.
func TestCacheDirIsTheTests(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the user cache directory does not follow XDG_CACHE_HOME here")
	}
	d, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if d != CacheDir() {
		t.Fatalf("user cache directory %s, want the tests' own %s", d, CacheDir())
	}
	if !strings.HasPrefix(d, filepath.Clean(os.TempDir())+string(filepath.Separator)) {
		t.Fatalf("the tests' cache directory %s is not under %s", d, os.TempDir())
	}
	for _, kv := range Env() {
		if kv == "XDG_CACHE_HOME="+CacheDir() {
			return
		}
	}
	t.Fatal("commands run by tests do not get the tests' cache directory")
}
