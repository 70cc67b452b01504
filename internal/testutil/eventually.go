package testutil

import (
	"testing"
	"time"
)

// pollEvery is how often Poll checks its condition.
const pollEvery = 10 * time.Millisecond

// Eventually polls cond until it holds and fails the test if it does not
// within timeout. The timeout only turns a hang into a failure that names
// what was awaited; no assertion depends on speed, so make it generous.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Poll(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// Poll checks cond every few milliseconds until it holds or timeout
// passes, and reports which. It is for callers that build their own failure
// message from what cond saw.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
	return true
}
