package config

import (
	"errors"
	"testing"
)

// FuzzLoad checks that no YAML input panics, and that whatever Parse
// accepts is a valid, fully defaulted Config.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		Example(), fullYAML, "", "~", "addr: a\naddr: b\n", "apps: [{id: a, key: k, secret: s}]\n",
		"limits: &l {max_message_size: 1KiB}\nx: *l\n", "- 1\n", "a: 1\n---\nb: 2\n",
		"activity_timeout: 1500ms\n", "apps: [{id: 0123, key: 1e3, secret: true, enabled: ~}]\n",
		"log: {level: debug, format: json}\nredis: {url: \"rediss://h:1\"}\n",
		"apps:\n  - id: a\n    key: k\n    secret: s\n    max_connections: 0x10\n    enabled: false\n",
		"limits: {max_header_bytes: 4_096, write_backlog: \"512 KiB\"}\ngc_percent: \"40\"\n",
		hookApp + "      - url: https://h.example/hooks\n        event_types: [member_added, cache_miss]\n      - url: http://h:8080\n",
		hookApp + "      - {url: \"http://[::1]:9/x?y=1\", event_types: []}\n", hookApp + "      - url: ftp://h\n",
		"webhooks: {delay: 1s, batch_wait: 10ms, batch_max: 1, timeout: 1s, retry_for: 1s, queue_bytes: 1KiB}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, nil)
		if err != nil {
			return
		}
		if err := c.validate(); err != nil {
			t.Fatalf("Parse accepted an invalid config: %v", err)
		}
		for i := range c.Apps {
			if c.AppByKey(c.Apps[i].Key) != &c.Apps[i] || c.AppByID(c.Apps[i].ID) != &c.Apps[i] {
				t.Fatalf("app %d not found by its own key or id", i)
			}
		}
	})
}

// FuzzParseSize checks sizes never panic and that accepted sizes are >= 0.
func FuzzParseSize(f *testing.F) {
	for _, seed := range []string{"65536", "64KiB", "1MB", " 2 GiB ", "-1", "9223372036854775807KB", "x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err == nil && n < 0 {
			t.Fatalf("parseSize(%q) = %d", s, n)
		}
		if err != nil && !errors.Is(err, errSize) {
			t.Fatalf("parseSize(%q) error %v is not errSize", s, err)
		}
	})
}

// FuzzEnv checks that no value of any ROOST_* variable panics, and that
// whatever Parse accepts from the environment is valid.
func FuzzEnv(f *testing.F) {
	all := settings(schema())
	for i, s := range all {
		f.Add(uint8(i), s.def)
		f.Add(uint8(i), s.example)
	}
	f.Add(uint8(0), "[::1]:0")
	f.Add(uint8(3), "64 KiB")
	f.Fuzz(func(t *testing.T, i uint8, value string) {
		s := all[int(i)%len(all)]
		env := []string{s.env + "=" + value, "ROOST_APP_ID=a", "ROOST_APP_KEY=k", "ROOST_APP_SECRET=x"}
		c, err := Parse(nil, env)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("%s=%q: error %v names no field", s.env, value, err)
			}
			return
		}
		if err := c.validate(); err != nil {
			t.Fatalf("%s=%q: Parse accepted an invalid config: %v", s.env, value, err)
		}
	})
}
