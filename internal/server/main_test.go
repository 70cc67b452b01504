package server

import (
	"testing"

	"github.com/roostproject/roost/internal/testutil"
)

// TestMain fails the run if a test leaves goroutines behind: every server a
// test starts must stop completely.
func TestMain(m *testing.M) { testutil.CheckGoroutineLeaks(m) }
