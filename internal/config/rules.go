package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/roostproject/roost/internal/realip"
	"github.com/roostproject/roost/internal/redisurl"
)

// rule checks one setting's final value, after defaults; nil means valid.
// Its error says what is wrong; the caller adds the setting's path.
type rule func(v any) error

// ruleMakers are the checks a check tag may name, each built from the text
// after "=" ("min=10" gives "10"). "unique" is not here: it compares the
// entries of a list rather than one value (see validator.unique).
var ruleMakers = map[string]func(arg string) (rule, error){
	"positive": noArg(positive),
	"min":      intBound("min", func(n, b int) bool { return n >= b }, ">="),
	"max":      intBound("max", func(n, b int) bool { return n <= b }, "<="),
	"seconds":  noArg(wholeSeconds),
	"hostport": noArg(hostPort),
	"optional_hostport": noArg(func(v any) error {
		if v.(string) == "" {
			return nil
		}
		return hostPort(v)
	}),
	"origins":      noArg(originPatterns),
	"transport":    noArg(oneOf(TransportAuto, TransportEpoll, TransportEpollUring, TransportPortable)),
	"log_level":    noArg(oneOf("debug", "info", "warn", "error")),
	"log_format":   noArg(oneOf("text", "json")),
	"name":         noArg(name),
	"required":     noArg(required),
	"redis_url":    noArg(redisURL),
	"redis_prefix": noArg(func(v any) error { return redisurl.CheckPrefix(v.(string)) }),
	"apps_url":     noArg(appsURL),
	"sql_name":     noArg(sqlName),
	"token":        noArg(token),
	"http_url":     noArg(httpURL),
	"optional_http_url": noArg(func(v any) error {
		if v.(string) == "" {
			return nil
		}
		return httpURL(v)
	}),

	"nats_url":    noArg(natsURL),
	"nats_prefix": noArg(natsPrefix),

	"webhook_events": noArg(webhookEvents),

	"cidrs": noArg(func(v any) error {
		_, err := realip.ParseTrust(v.([]string))
		return err
	}),
	"forwarded_header": noArg(oneOf("x-forwarded-for", "forwarded")),
}

// noArg makes a rule that takes no argument.
func noArg(r rule) func(string) (rule, error) {
	return func(arg string) (rule, error) {
		if arg != "" {
			return nil, errors.New("takes no argument")
		}
		return r, nil
	}
}

// intBound makes min=N and max=N for integer settings.
func intBound(name string, ok func(n, bound int) bool, op string) func(string) (rule, error) {
	return func(arg string) (rule, error) {
		bound, err := strconv.Atoi(arg)
		if err != nil {
			return nil, fmt.Errorf("%s needs an integer, got %q", name, arg)
		}
		return func(v any) error {
			if n := v.(int); !ok(n, bound) {
				return fmt.Errorf("must be %s %d, got %d", op, bound, n)
			}
			return nil
		}, nil
	}
}

// positive checks an integer, size or duration is > 0.
func positive(v any) error {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case time.Duration:
		n = int64(x)
	}
	if n <= 0 {
		return fmt.Errorf("must be > 0, got %v", v)
	}
	return nil
}

// wholeSeconds checks a duration can be sent to clients as a whole number
// of seconds > 0, as activity_timeout is (Pusher Channels protocol,
// "pusher:connection_established").
func wholeSeconds(v any) error {
	if d := v.(time.Duration); d < time.Second || d%time.Second != 0 {
		return fmt.Errorf("must be a whole number of seconds, at least 1s, got %v", d)
	}
	return nil
}

// hostPort checks a listen address is host:port with a numeric port.
func hostPort(v any) error {
	_, port, err := net.SplitHostPort(v.(string))
	if err != nil {
		return fmt.Errorf("want host:port, got %q", v)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	return nil
}

// oneOf makes a rule that a string is one of allowed.
func oneOf(allowed ...string) rule {
	return func(v any) error {
		if !slices.Contains(allowed, v.(string)) {
			return fmt.Errorf("%q is not one of %q", v, allowed)
		}
		return nil
	}
}

// required checks a string is not empty.
func required(v any) error {
	if v.(string) == "" {
		return errors.New("must not be empty")
	}
	return nil
}

// name checks an app id or key is set and uses only A-Za-z0-9_-. so it is
// safe in URL paths (/app/{key}, /apps/{id}) and log lines.
func name(v any) error {
	s := v.(string)
	if s == "" {
		return errors.New("must not be empty")
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		ok := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.'
		if !ok {
			return fmt.Errorf("%q may only hold letters, digits, '_', '-' and '.'", s)
		}
	}
	return nil
}

// redisURL checks a URL, if any, is one of the forms redisurl reads. The
// URL itself is never quoted back: it may hold a password.
func redisURL(v any) error {
	s := v.(string)
	if s == "" {
		return nil
	}
	_, err := redisurl.Parse(s)
	return err
}

// natsURL checks a URL list, if any: each nats:// or tls:// with a host.
// Like redisURL it never quotes the URL back.
func natsURL(v any) error {
	s := v.(string)
	if s == "" {
		return nil
	}
	for _, one := range strings.Split(s, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
			return errors.New("want nats://host:port or tls://host:port, comma-separated for several servers")
		}
	}
	return nil
}

// natsPrefix checks a prefix can start a JetStream bucket name and a
// subject token: letters, digits, '_' and '-'.
func natsPrefix(v any) error {
	s := v.(string)
	if s == "" {
		return errors.New("must not be empty")
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("%q may only hold letters, digits, '_' and '-'", s)
		}
	}
	return nil
}

// appsURL checks a URL, if any, is postgres://, postgresql:// or mysql://
// with a host. Like redisURL it never quotes the URL back.
func appsURL(v any) error {
	s := v.(string)
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	ok := err == nil && u.Host != "" && slices.Contains([]string{"postgres", "postgresql", "mysql"}, u.Scheme)
	if !ok {
		return errors.New("want postgres://user:pass@host/db or mysql://user:pass@host:3306/db")
	}
	return nil
}

// sqlName checks a table name is one or two plain SQL identifiers
// ("apps", "roost.apps"): it is written into queries, so nothing that
// would need quoting is allowed.
func sqlName(v any) error {
	s := v.(string)
	for part := range strings.SplitSeq(s, ".") {
		if !isIdentifier(part) {
			return fmt.Errorf("%q is not a table name: letters, digits and '_', not starting with a digit, optionally schema.table", s)
		}
	}
	if strings.Count(s, ".") > 1 {
		return fmt.Errorf("%q is not a table name: at most schema.table", s)
	}
	return nil
}

// isIdentifier reports whether s is a plain SQL identifier.
func isIdentifier(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_') {
			return false
		}
	}
	return true
}

// minTokenLen is the shortest admin token accepted: shorter ones can be
// guessed.
const minTokenLen = 16

// token checks an admin token, if any, is long enough. It is never quoted
// back.
func token(v any) error {
	if s := v.(string); s != "" && len(s) < minTokenLen {
		return fmt.Errorf("must be at least %d characters", minTokenLen)
	}
	return nil
}
