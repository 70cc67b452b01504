// Package bench measures what a roost server's connections and messages
// cost, the way docs/design.md ("Performance") and docs/capacity.md
// describe: server RSS and CPU read from the server's own /metrics (and
// /proc when the server runs here), as slopes over several connection
// counts, with the goroutine-per-connection transport measured in the same
// run as the baseline.
//
// The load comes from worker processes (`roost bench worker`, re-executing
// the running binary), each holding at most ~9,000 sockets bound to its own
// source address 127.0.0.x: a process here may open at most 20,000 files,
// and one source address has ~28,000 ephemeral ports. A worker speaks to its
// parent through lines on stdin and JSON lines on stdout.
//
// The modes are Idle (hold N subscribed connections), Fanout (S subscribers
// on one channel, publishes through the signed REST API), Churn (connect
// and disconnect at a rate), Webhook (presence load with an app's
// webhooks off, then on, delivered to a receiver the bench runs) and Report (all of them, over both transports,
// written to docs/bench as JSON, markdown and an SVG chart).
package bench
