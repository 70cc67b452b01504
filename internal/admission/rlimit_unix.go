//go:build unix

package admission

import "syscall"

// FileLimit returns the process's soft limit on open files (RLIMIT_NOFILE),
// or 0 if it cannot be read. The Go runtime raises the soft limit to the
// hard one at start, so this is the most the process can open.
func FileLimit() uint64 {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return 0
	}
	return uint64(l.Cur)
}
