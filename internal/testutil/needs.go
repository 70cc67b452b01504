package testutil

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// InCI reports whether the tests run in CI (CI=true or CI=1).
func InCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}

// Needs stops a test that lacks something it needs (a Redis, a binary):
// it skips the test, saying why, or fails it in CI, which must run every
// test.
func Needs(t testing.TB, format string, args ...any) {
	t.Helper()
	why := fmt.Sprintf(format, args...)
	if InCI() {
		t.Fatalf("%s; CI=true, so the test fails instead of skipping", why)
	}
	t.Skipf("skipped: %s", why)
}
