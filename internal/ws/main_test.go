package ws

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run if a test leaves goroutines behind: the client and
// the handshake must not start any of their own.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := waitNoGoroutines(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// waitNoGoroutines polls until only the calling goroutine is left, giving
// servers closed by cleanups a moment to return.
func waitNoGoroutines() error {
	var others []string
	for range 200 {
		if others = otherGoroutines(); len(others) == 0 {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("leaked goroutines:\n\n%s", strings.Join(others, "\n\n"))
}

// otherGoroutines returns the stacks of every goroutine but the caller's,
// which runtime.Stack lists first, and the signal watcher that the fuzzing
// engine starts.
func otherGoroutines() []string {
	buf := make([]byte, 1<<20)
	stacks := strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")
	var others []string
	for _, s := range stacks[1:] {
		if !strings.Contains(s, "os/signal.loop") {
			others = append(others, s)
		}
	}
	return others
}
