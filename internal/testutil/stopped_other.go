//go:build !linux

package testutil

import "testing"

// awaitStopped cannot see a process's threads without /proc: a Pause
// returns once the signal is sent.
func awaitStopped(testing.TB, int) {}
