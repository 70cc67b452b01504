//go:build unix

package testutil

import "syscall"

// The signals that pause and resume a private redis-server.
const (
	sigStop = syscall.SIGSTOP
	sigCont = syscall.SIGCONT
)
