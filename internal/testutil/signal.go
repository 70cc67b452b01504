package testutil

import (
	"os/exec"
	"syscall"
	"testing"
)

// signalServer sends sig to a private server's process, named by what for
// the failure; after sigStop it returns only once the process has stopped.
func signalServer(t testing.TB, cmd *exec.Cmd, what string, sig syscall.Signal) {
	t.Helper()
	if cmd == nil {
		t.Fatalf("%s is not running", what)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to %s: %v", sig, what, err)
	}
	if sig == sigStop {
		awaitStopped(t, cmd.Process.Pid)
	}
}
