package cluster

import (
	"os"
	"strings"
	"testing"
	"time"
)

// pollEvery is how often waitFor checks its condition.
const pollEvery = 20 * time.Millisecond

// waitFor polls cond until it holds. The deadline only turns a hang into a
// failure that names what was awaited; no assertion depends on speed.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !poll(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// poll checks cond until it holds or timeout passes, and reports which.
func poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
	return true
}

// inCI reports whether the tests run in CI, where a missing Redis fails
// them instead of skipping them.
func inCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}

// needs skips the test with why, or fails it in CI.
func needs(t *testing.T, why string) {
	t.Helper()
	if inCI() {
		t.Fatalf("%s; CI=true, so the cluster failure tests fail instead of skipping", why)
	}
	t.Skipf("cluster failure tests skipped: %s", why)
}
