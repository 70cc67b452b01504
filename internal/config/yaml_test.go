package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestFileErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown top-level", "adr: x\n", "config: adr: unknown field (line 1)"},
		{"unknown nested", "limits:\n  max_mesage_size: 1\n", "config: limits.max_mesage_size: unknown field (line 2)"},
		{"unknown in app", "apps:\n  - id: a\n    max_conections: 3\n", "config: apps[0].max_conections: unknown field (line 3)"},
		{"unknown in second app", "apps:\n  - {id: a}\n  - {id: b, sekret: x}\n", "config: apps[1].sekret: unknown field (line 3)"},
		{"unknown under tls", "tls: {cert: x}\n", "config: tls.cert: unknown field"},
		{"unknown under log", "log: {lvl: x}\n", "config: log.lvl: unknown field"},
		{"unknown under redis", "redis: {host: x}\n", "config: redis.host: unknown field"},
		{"merge keys are not fields", "base: &b {level: info}\n", "config: base: unknown field"},
		{"duplicate key", "addr: a\naddr: b\n", "config: addr: duplicate key (first set on line 1) (line 2)"},
		{"duplicate nested key", "log:\n  level: info\n  level: warn\n", "config: log.level: duplicate key"},
		{"bad duration", "pong_wait: abc\n", `config: pong_wait: invalid duration "abc"`},
		{"duration without unit", "activity_timeout: 120\n", `config: activity_timeout: invalid duration "120"`},
		{"bad nested duration", "limits: {write_timeout: soon}\n", `config: limits.write_timeout: invalid duration "soon"`},
		{"bad size", "limits: {max_message_size: 64XB}\n", `config: limits.max_message_size: invalid size "64XB"`},
		{"float size", "limits: {max_body_size: 1.5}\n", `config: limits.max_body_size: invalid size "1.5"`},
		{"bad int", "loops: many\n", `config: loops: invalid integer "many"`},
		{"bad app int", "apps: [{max_connections: 1.5}]\n", `config: apps[0].max_connections: invalid integer "1.5"`},
		{"bad bool", "apps: [{client_events: yes}]\n", `config: apps[0].client_events: invalid boolean "yes"`},
		{"bad enabled", "apps: [{enabled: 1}]\n", `config: apps[0].enabled: invalid boolean "1"`},
		{"mapping for string", "addr: {host: x}\n", "config: addr: expected a string, got a mapping"},
		{"list for duration", "pong_wait: [1s]\n", "config: pong_wait: expected a duration, got a list"},
		{"scalar for mapping", "limits: 5\n", `config: limits: expected a mapping, got "5"`},
		{"mapping for apps", "apps: {id: x}\n", "config: apps: expected a list of apps, got a mapping"},
		{"scalar app", "apps: [x]\n", `config: apps[0]: expected a mapping, got "x"`},
		{"list root", "- a\n", "config: line 1: the file must be a mapping of settings, got a list"},
		{"two documents", "addr: a\n---\naddr: b\n", "config: line 2: the file must hold one YAML document"},
		{"syntax", "addr: [\n", "config: yaml: "},
		{"complex key", "? [a]\n: b\n", "config: ?: a key must be a plain name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), nil)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant prefix %s", err, tt.want)
			}
		})
	}
}

func TestUnknownFieldIsErrUnknownField(t *testing.T) {
	_, err := Parse([]byte("limits: {bogus: 1}\n"), nil)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "limits.bogus" || !errors.Is(err, errUnknownField) {
		t.Fatalf("err = %#v, want a FieldError for limits.bogus", err)
	}
}

func TestEmptyAndNullValuesMeanDefault(t *testing.T) {
	for _, yaml := range []string{"", "\n", "# only a comment\n", "---\n", "~\n", "limits:\napps:\nlog: ~\naddr:\n", "apps: []\n"} {
		c := mustParse(t, yaml)
		assertConfig(t, c, Default())
	}
}

func TestNullEnabledMeansEnabled(t *testing.T) {
	c := mustParse(t, "apps: [{id: a, key: b, secret: c, enabled: null}]\n")
	if c.Apps[0].Enabled != nil || !c.Apps[0].IsEnabled() {
		t.Errorf("Enabled = %v", c.Apps[0].Enabled)
	}
}

func TestAliases(t *testing.T) {
	yaml := "limits: &l {max_message_size: 1KiB}\napps:\n  - &a {id: a, key: ka, secret: &s shared}\n  - {id: b, key: kb, secret: *s}\n"
	c := mustParse(t, yaml)
	if c.Limits.MaxMessageSize != 1024 || c.Apps[1].Secret != "shared" {
		t.Errorf("aliases not followed: %+v %+v", c.Limits, c.Apps)
	}
}

func TestScalarsKeepTheirText(t *testing.T) {
	c := mustParse(t, "apps: [{id: 0123, key: 1e3, secret: true, max_connections: \"7\"}]\nloops: 0x4\nlimits: {max_header_bytes: 4_096}\n")
	a := c.Apps[0]
	if a.ID != "0123" || a.Key != "1e3" || a.Secret != "true" || a.MaxConnections != 7 {
		t.Errorf("app = %+v, want strings exactly as written", a)
	}
	if c.Loops != 4 || c.Limits.MaxHeaderBytes != 4096 {
		t.Errorf("loops = %d, max_header_bytes = %d", c.Loops, c.Limits.MaxHeaderBytes)
	}
}

func TestDurationForms(t *testing.T) {
	c := mustParse(t, "activity_timeout: 2m\npong_wait: 1m30s\nshutdown_timeout: 500ms\n")
	if c.ActivityTimeout != 2*time.Minute || c.PongWait != 90*time.Second || c.ShutdownTimeout != 500*time.Millisecond {
		t.Errorf("durations = %v %v %v", c.ActivityTimeout, c.PongWait, c.ShutdownTimeout)
	}
}
