//go:build !unix

package admission

// FileLimit returns 0: this system has no RLIMIT_NOFILE.
func FileLimit() uint64 { return 0 }
