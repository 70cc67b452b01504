//go:build !unix

package testutil

import "syscall"

// Systems without job-control signals cannot pause a private redis-server:
// signalling the process with these fails, and so does the test that asked.
const (
	sigStop = syscall.Signal(-1)
	sigCont = syscall.Signal(-1)
)
