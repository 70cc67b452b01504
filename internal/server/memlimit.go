package server

import (
	"math"
	"os"
	"runtime/debug"

	"github.com/roostproject/roost/internal/config"
)

// SoftMemoryLimit makes the memory ceiling (limits.max_memory, or its
// default from the cgroup) the Go runtime's soft memory limit, so that the
// collector runs more often as the heap, garbage included, nears it: what
// a collection would free does not get new connections refused with 503,
// nor the node killed by its cgroup. With no ceiling the runtime has no
// limit; GOMEMLIMIT, when set, wins. It is the process's, so the roost
// command calls it, at start and after each reload, and tests do not.
func SoftMemoryLimit(l config.Limits) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(math.MaxInt64)
	if ceiling := memoryCeiling(l); ceiling > 0 && ceiling < math.MaxInt64 {
		limit = int64(ceiling)
	}
	debug.SetMemoryLimit(limit)
}
