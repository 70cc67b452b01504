package server

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/roostproject/roost/internal/config"
)

// TestSoftMemoryLimit: the memory ceiling becomes the runtime's soft memory
// limit, none lifts it again, and GOMEMLIMIT wins over both.
func TestSoftMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	t.Setenv("GOMEMLIMIT", "")
	SoftMemoryLimit(config.Limits{MaxMemory: 3 << 30})
	if got := debug.SetMemoryLimit(-1); got != 3<<30 {
		t.Errorf("max_memory 3 GiB: soft limit %d", got)
	}
	t.Setenv("GOMEMLIMIT", "5GiB")
	SoftMemoryLimit(config.Limits{MaxMemory: 1 << 30})
	if got := debug.SetMemoryLimit(-1); got != 3<<30 {
		t.Errorf("with GOMEMLIMIT set: soft limit %d, want it left alone", got)
	}
	t.Setenv("GOMEMLIMIT", "")
	if memoryCeiling(config.Limits{}) != 0 {
		return // a cgroup limit here: the default ceiling is not none
	}
	SoftMemoryLimit(config.Limits{})
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("no ceiling: soft limit %d, want none", got)
	}
}
