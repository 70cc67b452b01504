// Package dashboard serves roost's web dashboard at /dashboard: live
// figures of the node with fifteen minutes of history, each app's webhook
// figures (the counters /metrics reports), the apps and their
// occupied channels, a debug console that streams connections,
// subscriptions and events as they happen, and an event creator.
//
// The page is plain HTML, CSS and JavaScript embedded in the binary; it
// loads nothing from elsewhere. Its data comes from JSON endpoints under
// /dashboard/api/ and a Server-Sent Events stream for the console, all
// behind the admin token (a bearer header, or a cookie set by the login
// form), compared in constant time and rate limited per client address.
// No endpoint sends an app secret, and the console never shows the data of
// an encrypted channel, only its size.
//
// The console costs nothing while nobody watches: it is attached to the hub
// (hub.Console) when the first stream opens and detached when the last one
// closes.
package dashboard
