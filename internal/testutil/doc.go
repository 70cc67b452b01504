// Package testutil holds what roost's tests share: polling for a condition
// (Eventually, Poll), a TestMain that fails the run when goroutines leak
// (CheckGoroutineLeaks), a Pusher protocol 7 test client (Client), a canary
// that measures delivery while a test makes trouble (Canary), and a private
// redis-server to kill, pause or restart (Redis) and its NATS twin (NATS).
//
// Only tests import it: it calls testing.TB and exits the process, which
// production code must never do. The layout test enforces that no non-test
// file imports it.
package testutil
