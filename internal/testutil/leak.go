package testutil

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// leakWait is how long CheckGoroutineLeaks gives goroutines stopped by the
// tests' cleanups to return.
const leakWait = 5 * time.Second

// CheckGoroutineLeaks runs the package's tests and exits with their code,
// or with 1 when they passed but left a goroutine behind that was not
// running before them. Call it as the whole body of TestMain:
//
//	func TestMain(m *testing.M) { testutil.CheckGoroutineLeaks(m) }
func CheckGoroutineLeaks(m *testing.M) {
	before := goroutineIDs(goroutines())
	code := m.Run()
	if code == 0 {
		if leaked := leakedSince(before); len(leaked) > 0 {
			fmt.Fprintf(os.Stderr, "goroutines leaked by the tests:\n\n%s\n", strings.Join(leaked, "\n\n"))
			code = 1
		}
	}
	os.Exit(code)
}

// leakedSince polls until every goroutine but the caller's was already
// running when before was taken, and returns the stacks of the others if
// some remain after leakWait.
func leakedSince(before map[string]bool) []string {
	var leaked []string
	Poll(leakWait, func() bool {
		leaked = leaked[:0]
		for _, g := range goroutines()[1:] { // the caller's comes first
			if !before[goroutineID(g)] && !ignored(g) {
				leaked = append(leaked, g)
			}
		}
		return len(leaked) == 0
	})
	return leaked
}

// ignored reports goroutines the standard library starts once and keeps:
// the signal watcher (started by signal.Notify, e.g. in the fuzzing engine).
func ignored(stack string) bool {
	return strings.Contains(stack, "os/signal.loop")
}

// goroutines returns the stack of every goroutine, the caller's first.
func goroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Split(strings.TrimSpace(string(buf[:n])), "\n\n")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// goroutineIDs returns the set of ids of the given stacks.
func goroutineIDs(stacks []string) map[string]bool {
	ids := make(map[string]bool, len(stacks))
	for _, g := range stacks {
		ids[goroutineID(g)] = true
	}
	return ids
}

// goroutineID returns the id in a stack's first line, "goroutine 7 [...]:".
// Go never reuses an id within a process.
func goroutineID(stack string) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(stack, "goroutine "), " ")
	return id
}
