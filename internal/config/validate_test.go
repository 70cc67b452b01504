package config

import (
	"errors"
	"strings"
	"testing"
)

func TestValidationErrorsNameTheField(t *testing.T) {
	tests := []struct {
		yaml string
		env  []string
		want string
	}{
		{"addr: localhost\n", nil, `config: addr: want host:port, got "localhost"`},
		{"addr: \"localhost:http\"\n", nil, `config: addr: port "http" is not a number from 0 to 65535`},
		{"addr: \"localhost:70000\"\n", nil, `config: addr: port "70000"`},
		{"transport: kqueue\n", nil, `config: transport: "kqueue" is not one of`},
		{"tls: {cert_file: c.pem}\n", nil, "config: tls.key_file: must be set when tls.cert_file is set"},
		{"", []string{"ROOST_TLS_KEY=k.pem"}, "config: tls.cert_file: must be set when tls.key_file is set"},
		{"transport: epoll\ntls: {cert_file: c, key_file: k}\n", nil, `config: transport: "epoll" cannot serve TLS`},
		{"loops: -1\n", nil, "config: loops: must be > 0, got -1"},
		{"activity_timeout: 1500ms\n", nil, "config: activity_timeout: must be a whole number of seconds, at least 1s, got 1.5s"},
		{"activity_timeout: -10s\n", nil, "config: activity_timeout: must be a whole number of seconds"},
		{"pong_wait: -1s\n", nil, "config: pong_wait: must be > 0, got -1s"},
		{"", []string{"ROOST_SHUTDOWN_TIMEOUT=-5s"}, "config: shutdown_timeout: must be > 0"},
		{"limits: {max_message_size: -1}\n", nil, "config: limits.max_message_size: must be > 0"},
		{"limits: {max_body_size: -1}\n", nil, "config: limits.max_body_size: must be > 0"},
		{"limits: {max_event_data: -1}\n", nil, "config: limits.max_event_data: must be > 0"},
		{"limits: {write_backlog: -1}\n", nil, "config: limits.write_backlog: must be > 0"},
		{"limits: {write_timeout: -1s}\n", nil, "config: limits.write_timeout: must be > 0"},
		{"limits: {handshake_timeout: -1s}\n", nil, "config: limits.handshake_timeout: must be > 0"},
		{"limits: {max_header_bytes: -1}\n", nil, "config: limits.max_header_bytes: must be > 0"},
		{"limits: {client_events_per_second: -1}\n", nil, "config: limits.client_events_per_second: must be > 0"},
		{"log: {level: verbose}\n", nil, `config: log.level: "verbose" is not one of ["debug" "info" "warn" "error"]`},
		{"log: {format: xml}\n", nil, `config: log.format: "xml" is not one of`},
		{"redis: {url: \"http://x\"}\n", nil, "config: redis.url: want redis://host:port or rediss://host:port"},
		{"redis: {url: \"redis://\"}\n", nil, "config: redis.url: want redis://"},
		{"apps: [{key: k, secret: s}]\n", nil, "config: apps[0].id: must not be empty"},
		{"apps: [{id: a, secret: s}]\n", nil, "config: apps[0].key: must not be empty"},
		{"apps: [{id: a, key: k}, {id: b, key: kb}]\n", nil, "config: apps[0].secret: must not be empty"},
		{"apps: [{id: a, key: k, secret: s}, {id: b, key: kb}]\n", nil, "config: apps[1].secret: must not be empty"},
		{"apps: [{id: a b, key: k, secret: s}]\n", nil, `config: apps[0].id: "a b" may only hold letters, digits, '_', '-' and '.'`},
		{"apps: [{id: a, key: k/1, secret: s}]\n", nil, `config: apps[0].key: "k/1" may only hold`},
		{"", []string{"ROOST_APP_ID=ü", "ROOST_APP_KEY=k", "ROOST_APP_SECRET=s"}, `config: apps[0].id: "ü" may only hold`},
		{"apps: [{id: a, key: k1, secret: s}, {id: a, key: k2, secret: s}]\n", nil, `config: apps[1].id: "a" is also apps[0].id`},
		{"apps: [{id: a, key: k, secret: s}, {id: b, key: x, secret: s}, {id: c, key: k, secret: s}]\n", nil, `config: apps[2].key: "k" is also apps[0].key`},
		{"apps: [{id: a, key: k, secret: s, max_connections: -1}]\n", nil, "config: apps[0].max_connections: must be >= 0"},
		{"apps: [{id: a, key: k, secret: s, max_presence_members: -1}]\n", nil, "config: apps[0].max_presence_members: must be > 0"},
		{"apps: [{id: a, key: k, secret: s, max_presence_user_info: -1}]\n", nil, "config: apps[0].max_presence_user_info: must be > 0"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), tt.env)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant prefix %s", err, tt.want)
			}
		})
	}
}

func TestValidationReportsEveryProblem(t *testing.T) {
	_, err := Parse([]byte("loops: -1\nlog: {level: loud, format: xml}\n"), nil)
	var fields []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *FieldError
		if errors.As(e, &fe) {
			fields = append(fields, fe.Field)
		}
	}
	if got := strings.Join(fields, ","); got != "loops,log.level,log.format" {
		t.Errorf("fields = %s", got)
	}
}

func TestRedisURLNotEchoed(t *testing.T) {
	_, err := Parse(nil, []string{"ROOST_REDIS_URL=http://user:hunter2@x"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v; must fail without quoting the password", err)
	}
}

func TestValidConfigsPass(t *testing.T) {
	for _, yaml := range []string{
		"addr: \":0\"\n",
		"addr: \"[::1]:6001\"\n",
		"transport: epoll\n",
		"tls: {cert_file: c, key_file: k}\ntransport: portable\n",
		"redis: {url: \"redis://localhost\"}\n",
		"apps: [{id: A_b-c.1, key: K.2, secret: \"any secret at all!\", max_connections: 0}]\n",
	} {
		mustParse(t, yaml)
	}
}
