package admission

import (
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// memSampler reads the memory figure at most every sampleEvery, so that a
// burst of handshakes does not read the runtime's statistics for each.
type memSampler struct {
	read func() uint64
	at   atomic.Int64 // Unix ns of the last reading
	val  atomic.Uint64
}

// sampleEvery bounds how stale the memory figure Admit compares may be.
const sampleEvery = 100 * time.Millisecond

func (m *memSampler) sample(now time.Time) uint64 {
	t := now.UnixNano()
	if last := m.at.Load(); t-last >= int64(sampleEvery) && m.at.CompareAndSwap(last, t) {
		m.val.Store(m.read())
	}
	return m.val.Load()
}

// goMemoryMetrics are the runtime/metrics samples GoMemory reads.
var goMemoryMetrics = []string{"/memory/classes/total:bytes", "/memory/classes/heap/released:bytes"}

// GoMemory returns the memory the Go runtime has mapped and not returned
// to the system: close to the process's RSS, without opening /proc (which
// fails when the process is out of descriptors, exactly when it matters).
// Socket buffers are the kernel's and are not included.
func GoMemory() uint64 {
	s := []metrics.Sample{{Name: goMemoryMetrics[0]}, {Name: goMemoryMetrics[1]}}
	metrics.Read(s)
	total, released := s[0].Value.Uint64(), s[1].Value.Uint64()
	if released > total {
		return 0
	}
	return total - released
}

// cgroupShare is the part of the cgroup's memory.max that CgroupMemory
// leaves to the Go runtime: the kernel charges socket buffers and page
// cache to the same cgroup, and they must fit in the rest.
const cgroupShare = 0.8

// CgroupMemory returns 80% of the memory.max of the cgroup (v2) the process
// runs in, or 0 when it has none: the default memory ceiling, so that new
// connections are refused before the OOM killer takes every open one.
func CgroupMemory() uint64 {
	b, err := os.ReadFile("/sys/fs/cgroup/memory.max")
	if err != nil {
		return 0
	}
	return cgroupCeiling(string(b))
}

// cgroupCeiling parses a memory.max file: a byte count, or "max".
func cgroupCeiling(s string) uint64 {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0
	}
	return uint64(float64(n) * cgroupShare)
}

// FileLimitConnections returns the default connection cap for a file limit
// of limit descriptors: the limit less max(64, 5%), which stay free for the
// listener, Redis, /metrics, the HTTP API and the handshakes being refused.
// 0 (no limit known) gives 0, no cap.
func FileLimitConnections(limit uint64) int {
	if limit == 0 || limit > 1<<40 {
		return 0
	}
	headroom := FileLimitHeadroom(limit)
	if limit <= headroom {
		return 1
	}
	return int(limit - headroom)
}

// FileLimitHeadroom is how many of limit descriptors FileLimitConnections
// leaves free: max(64, 5%).
func FileLimitHeadroom(limit uint64) uint64 { return max(64, limit/20) }
