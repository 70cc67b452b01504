package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFileErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown top-level", "adr: x\n", "config: adr (line 1): unknown field"},
		{"unknown nested", "limits:\n  max_mesage_size: 1\n", "config: limits.max_mesage_size (line 2): unknown field"},
		{"unknown in app", "apps:\n  - id: a\n    max_conections: 3\n", "config: apps[0].max_conections (line 3): unknown field"},
		{"unknown in second app", "apps:\n  - {id: a}\n  - {id: b, sekret: x}\n", "config: apps[1].sekret (line 3): unknown field"},
		{"unknown under tls", "tls: {cert: x}\n", "config: tls.cert (line 1): unknown field"},
		{"unknown under log", "log: {lvl: x}\n", "config: log.lvl (line 1): unknown field"},
		{"unknown under redis", "redis:\n  host: x\n", "config: redis.host (line 2): unknown field"},
		{"anchors are not fields", "base: &b {level: info}\n", "config: base (line 1): unknown field"},
		{"merge keys are not fields", "log:\n  <<: {level: info}\n", "config: log.<< (line 2): unknown field"},
		{"duplicate key", "addr: a\naddr: b\n", "config: addr (line 2): duplicate key, first set on line 1"},
		{"duplicate nested key", "log:\n  level: info\n  level: warn\n", "config: log.level (line 3): duplicate key, first set on line 2"},
		{"bad duration", "pong_wait: abc\n", `config: pong_wait (line 1): invalid duration "abc"`},
		{"duration without unit", "activity_timeout: 120\n", `config: activity_timeout (line 1): invalid duration "120"`},
		{"bad nested duration", "limits: {write_timeout: soon}\n", `config: limits.write_timeout (line 1): invalid duration "soon"`},
		{"bad size", "limits: {max_message_size: 64XB}\n", `config: limits.max_message_size (line 1): invalid size "64XB"`},
		{"float size", "limits: {max_body_size: 1.5}\n", `config: limits.max_body_size (line 1): invalid size "1.5"`},
		{"bad int", "loops: many\n", `config: loops (line 1): invalid integer "many"`},
		{"bad app int", "apps:\n- max_connections: 1.5\n", `config: apps[0].max_connections (line 2): invalid integer "1.5"`},
		{"bad bool", "apps: [{client_events: yes}]\n", `config: apps[0].client_events (line 1): invalid boolean "yes"`},
		{"bad enabled", "apps: [{enabled: 1}]\n", `config: apps[0].enabled (line 1): invalid boolean "1"`},
		{"mapping for string", "addr: {host: x}\n", "config: addr (line 1): expected a string, got a mapping"},
		{"list for duration", "pong_wait: [1s]\n", "config: pong_wait (line 1): expected a duration, got a list"},
		{"scalar for mapping", "limits: 5\n", `config: limits (line 1): expected a mapping, got "5"`},
		{"mapping for apps", "apps: {id: x}\n", "config: apps (line 1): expected a list, got a mapping"},
		{"scalar app", "apps:\n  - x\n", `config: apps[0] (line 2): expected a mapping, got "x"`},
		{"list root", "- a\n", "config: line 1: the file must be a mapping of settings, got a list"},
		{"two documents", "addr: a\n---\naddr: b\n", "config: line 2: the file must hold one YAML document"},
		{"syntax", "addr: [\n", "config: yaml: "},
		{"complex key", "? [a]\n: b\n", "config: ? (line 1): a key must be a plain name"},
		{"every problem", "loops: x\npong_wait: y\n", "config: loops (line 1): invalid integer \"x\"\nconfig: pong_wait (line 2): invalid duration"},
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
	c := mustParse(t, "apps: [{id: a, key: b, secret: c, enabled: null}, {id: d, key: e, secret: f, enabled: false}]\n")
	if !c.Apps[0].IsEnabled() || c.Apps[1].IsEnabled() {
		t.Errorf("enabled = %v, %v; want true (the default), false", c.Apps[0].IsEnabled(), c.Apps[1].IsEnabled())
	}
}

func TestFileErrorsNameTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "roost.yaml")
	if err := os.WriteFile(path, []byte("apps:\n  - id: a\n    key: k\n    secret: s\n    max_connections: lots\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, nil, nil)
	want := `config: apps[0].max_connections (` + path + `:5): invalid integer "lots"`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Source != path || fe.Line != 5 || fe.Field != "apps[0].max_connections" {
		t.Fatalf("FieldError = %+v", fe)
	}
}

func TestSyntaxErrorNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "roost.yaml")
	if err := os.WriteFile(path, []byte("addr: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, nil, nil); err == nil || !strings.HasPrefix(err.Error(), "config: "+path+": yaml: ") {
		t.Fatalf("err = %v", err)
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
