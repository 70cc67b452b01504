// Package apps finds the Pusher apps a node serves, by the key a client
// connects with or the id an HTTP API path names.
//
// Apps come from the configuration (the file and ROOST_APP_*, always) and,
// when app_store.url is set, from a PostgreSQL or MySQL table with soketi's
// columns. The table is read lazily: an app is loaded the first time it is
// asked for, cached, and read again every app_store.refresh; a key or id the
// table lacks is remembered as unknown for app_store.unknown_ttl. A lookup
// that misses the cache waits for the database at most app_store.wait; one
// that hits it never waits. When the database is unreachable, cached apps
// keep being served and a lookup that needs the database fails with
// ErrUnavailable.
//
// Source layers the two: an app of the configuration wins over a row with
// the same id or key, and the row is ignored with one log line.
package apps
