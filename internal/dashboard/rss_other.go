//go:build !linux

package dashboard

import "runtime/metrics"

// residentBytes approximates the resident set size where there is no
// /proc: the memory the Go runtime has mapped from the OS.
func residentBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
