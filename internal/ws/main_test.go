package ws_test

import (
	"testing"

	"github.com/roostproject/roost/internal/testutil"
)

// TestMain fails the run if a test leaves goroutines behind: the client and
// the handshake must not start any of their own.
func TestMain(m *testing.M) { testutil.CheckGoroutineLeaks(m) }
