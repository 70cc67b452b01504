// Package metrics serves a roost node's state in the Prometheus text
// exposition format (GET /metrics), so operators can watch connections,
// subscriptions and traffic, and so `roost bench` can read a server's RSS
// and CPU from another machine.
//
// Every roost metric is computed at scrape time from counters the transports
// and the hub already keep: scraping adds no work to the message path, and
// no label is per connection or per channel, so the exposition stays a few
// kilobytes however many connections the node holds. The process and Go
// runtime collectors of github.com/prometheus/client_golang are included:
// process_resident_memory_bytes and process_cpu_seconds_total are the
// figures the capacity guide (docs/capacity.md) is built on.
package metrics
