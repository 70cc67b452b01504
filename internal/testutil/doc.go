// Package testutil holds what roost's tests share: polling for a condition
// (Eventually, Poll), a TestMain that fails the run when goroutines leak
// (CheckGoroutineLeaks), and a Pusher protocol 7 test client (Client).
//
// Only tests import it: it calls testing.TB and exits the process, which
// production code must never do. The layout test enforces that no non-test
// file imports it.
package testutil
