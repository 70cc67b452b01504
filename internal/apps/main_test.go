package apps

import (
	"testing"

	"github.com/roostproject/roost/internal/testutil"
)

// TestMain fails the run if a store leaves its goroutines behind.
func TestMain(m *testing.M) { testutil.CheckGoroutineLeaks(m) }
