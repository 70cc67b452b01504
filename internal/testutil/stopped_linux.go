package testutil

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// awaitStopped waits until every thread of process pid is stopped. kill(2)
// returns before a thread running on another CPU has taken a SIGSTOP, and
// such a thread can still accept and answer a client; a Pause returns only
// once none can.
func awaitStopped(t testing.TB, pid int) {
	t.Helper()
	Eventually(t, ReadTimeout, "every thread of the paused process stopped", func() bool {
		return allStopped(pid)
	})
}

// allStopped reports whether /proc shows every thread of pid in the
// stopped state.
func allStopped(pid int) bool {
	stats, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "stat"))
	if err != nil || len(stats) == 0 {
		return false
	}
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		// The state follows the command name, which ends with the last ')'.
		stat := string(b)
		state := strings.TrimLeft(stat[strings.LastIndexByte(stat, ')')+1:], " ")
		if state == "" || (state[0] != 'T' && state[0] != 't') {
			return false
		}
	}
	return true
}
