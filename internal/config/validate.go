package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// validator collects every problem with a merged, defaulted Config, so one
// run of the server reports all of them rather than one per attempt.
type validator struct {
	errs []error
}

// check records a problem with field unless ok.
func (v *validator) check(ok bool, field, format string, args ...any) {
	if !ok {
		v.errs = append(v.errs, fieldErr(field, 0, format, args...))
	}
}

// validate reports every invalid field of c, which must already have its
// defaults applied. The errors are joined, one "config: field: ..." a line.
func (c *Config) validate() error {
	var v validator
	v.addr(c.Addr)
	v.oneOf("transport", c.Transport, TransportAuto, TransportEpoll, TransportPortable)
	v.tls(c.TLS, c.Transport)
	v.check(c.Loops > 0, "loops", "must be > 0, got %d", c.Loops)
	v.activityTimeout(c.ActivityTimeout)
	v.positiveDuration("pong_wait", c.PongWait)
	v.positiveDuration("shutdown_timeout", c.ShutdownTimeout)
	v.check(c.GCPercent >= 10 && c.GCPercent <= 1000, "gc_percent", "must be between 10 and 1000, got %d", c.GCPercent)
	v.limits(&c.Limits)
	v.apps(c.Apps)
	v.oneOf("log.level", c.Log.Level, "debug", "info", "warn", "error")
	v.oneOf("log.format", c.Log.Format, "text", "json")
	v.redis(c.Redis)
	return errors.Join(v.errs...)
}

// addr checks a listen address is host:port with a numeric port.
func (v *validator) addr(addr string) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		v.check(false, "addr", "want host:port, got %q", addr)
		return
	}
	_, err = strconv.ParseUint(port, 10, 16)
	v.check(err == nil, "addr", "port %q is not a number from 0 to 65535", port)
}

// oneOf checks value is one of allowed.
func (v *validator) oneOf(field, value string, allowed ...string) {
	v.check(slices.Contains(allowed, value), field, "%q is not one of %q", value, allowed)
}

// tls checks the certificate and key come as a pair, and that the transport
// can serve TLS (only the portable transport does; docs/design.md, "A
// portable transport beside epoll").
func (v *validator) tls(t TLS, transport string) {
	v.check(t.CertFile != "" || t.KeyFile == "", "tls.cert_file", "must be set when tls.key_file is set")
	v.check(t.KeyFile != "" || t.CertFile == "", "tls.key_file", "must be set when tls.cert_file is set")
	v.check(!t.Enabled() || transport != TransportEpoll, "transport",
		"%q cannot serve TLS; use %q or %q, or terminate TLS at a proxy", TransportEpoll, TransportAuto, TransportPortable)
}

// activityTimeout checks the timeout can be sent to clients as a whole
// number of seconds > 0 (Pusher Channels protocol, connection_established).
func (v *validator) activityTimeout(d time.Duration) {
	v.check(d >= time.Second && d%time.Second == 0, "activity_timeout",
		"must be a whole number of seconds, at least 1s, got %v", d)
}

// positiveDuration checks d > 0.
func (v *validator) positiveDuration(field string, d time.Duration) {
	v.check(d > 0, field, "must be > 0, got %v", d)
}

// positive checks n > 0.
func (v *validator) positive(field string, n int) {
	v.check(n > 0, field, "must be > 0, got %d", n)
}

// limits checks every limit is positive.
func (v *validator) limits(l *Limits) {
	v.positive("limits.max_message_size", l.MaxMessageSize)
	v.positive("limits.max_body_size", l.MaxBodySize)
	v.positive("limits.max_event_data", l.MaxEventData)
	v.positive("limits.write_backlog", l.WriteBacklog)
	v.positiveDuration("limits.write_timeout", l.WriteTimeout)
	v.positiveDuration("limits.handshake_timeout", l.HandshakeTimeout)
	v.positive("limits.max_header_bytes", l.MaxHeaderBytes)
	v.positive("limits.client_events_per_second", l.ClientEventsPerSecond)
}

// redis checks the URL, if any, is a redis:// or rediss:// URL with a host.
// The URL itself is never quoted back: it may hold a password.
func (v *validator) redis(r Redis) {
	if r.URL == "" {
		return
	}
	u, err := url.Parse(r.URL)
	v.check(err == nil && (u.Scheme == "redis" || u.Scheme == "rediss") && u.Host != "",
		"redis.url", "want redis://host:port or rediss://host:port")
}

// apps checks each app and that ids and keys are unique.
func (v *validator) apps(apps []App) {
	ids := make(map[string]int, len(apps))
	keys := make(map[string]int, len(apps))
	for i := range apps {
		path := fmt.Sprintf("apps[%d]", i)
		v.app(path, &apps[i])
		v.unique(ids, apps[i].ID, i, "id")
		v.unique(keys, apps[i].Key, i, "key")
	}
}

// app checks one app's credentials and quotas.
func (v *validator) app(path string, a *App) {
	v.name(path+".id", a.ID)
	v.name(path+".key", a.Key)
	v.check(a.Secret != "", path+".secret", "must not be empty")
	v.check(a.MaxConnections >= 0, path+".max_connections", "must be >= 0 (0 means unlimited), got %d", a.MaxConnections)
	v.positive(path+".max_presence_members", a.MaxPresenceMembers)
	v.positive(path+".max_presence_user_info", a.MaxPresenceUserInfo)
}

// name checks an app id or key is non-empty and uses only A-Za-z0-9_-. so
// it is safe in URL paths (/app/{key}, /apps/{id}) and log lines.
func (v *validator) name(field, s string) {
	if s == "" {
		v.check(false, field, "must not be empty")
		return
	}
	v.check(validName(s), field, "%q may only hold letters, digits, '_', '-' and '.'", s)
}

// validName reports whether s holds only ASCII letters, digits, _ - and .
func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		ok := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.'
		if !ok {
			return false
		}
	}
	return true
}

// unique records value as app i's field, reporting an earlier app with the
// same value by both indexes. Empty values are reported elsewhere.
func (v *validator) unique(seen map[string]int, value string, i int, field string) {
	if value == "" {
		return
	}
	if j, dup := seen[value]; dup {
		v.check(false, fmt.Sprintf("apps[%d].%s", i, field), "%q is also apps[%d].%s", value, j, field)
		return
	}
	seen[value] = i
}
