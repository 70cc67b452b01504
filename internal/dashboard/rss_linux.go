package dashboard

import (
	"bytes"
	"os"
	"strconv"
)

// residentBytes reads the process's resident set size from
// /proc/self/statm (its second field, in pages; proc(5)).
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}
