package config

import (
	"errors"
	"strings"
	"testing"
)

func TestValidationErrorsNameTheFieldAndSource(t *testing.T) {
	tests := []struct {
		yaml string
		env  []string
		want string
	}{
		{"addr: localhost\n", nil, `config: addr (line 1): want host:port, got "localhost"`},
		{"addr: \"localhost:http\"\n", nil, `config: addr (line 1): port "http" is not a number from 0 to 65535`},
		{"addr: \"localhost:70000\"\n", nil, `config: addr (line 1): port "70000"`},
		{"", []string{"ROOST_ADDR=localhost"}, `config: addr (ROOST_ADDR): want host:port`},
		{"transport: kqueue\n", nil, `config: transport (line 1): "kqueue" is not one of ["auto" "epoll" "epoll+uring" "portable"]`},
		{"tls:\n  cert_file: c.pem\n", nil, "config: tls.key_file (line 1): must be set when tls.cert_file is set"},
		{"", []string{"ROOST_TLS_KEY=k.pem"}, "config: tls.cert_file: must be set when tls.key_file is set"},
		{"tls: {cert_file: c.pem, key_file: k.pem, acme: {domains: [a.example], cache_dir: /c}}\n", nil,
			"config: tls.acme.domains (line 1): set together with tls.cert_file"},
		{"", []string{"ROOST_TLS_ACME_DOMAINS=a.example"}, "config: tls.acme.cache_dir: must be set when tls.acme.domains is set"},
		{"tls: {acme: {domains: [a.example], cache_dir: /c, directory_url: \"ftp://x\"}}\n", nil, "config: tls.acme.directory_url (line 1): "},
		{"", []string{"ROOST_TLS_ACME_HTTP_ADDR=80"}, "config: tls.acme.http_addr (ROOST_TLS_ACME_HTTP_ADDR): want host:port"},
		{"tls: {watch_interval: -1s}\n", nil, "config: tls.watch_interval (line 1): must be > 0"},
		{"cluster: {advertise_url: \"10.0.0.5:6001\"}\n", nil, `config: cluster.advertise_url (line 1): "10.0.0.5:6001" is not an http:// or https:// URL`},
		{"", []string{"ROOST_CLUSTER_ADVERTISE_URL=ftp://x"}, `config: cluster.advertise_url (ROOST_CLUSTER_ADVERTISE_URL): "ftp://x" is not an http://`},
		{"\n\nloops: -1\n", nil, "config: loops (line 3): must be >= 0, got -1"},
		{"activity_timeout: 1500ms\n", nil, "config: activity_timeout (line 1): must be a whole number of seconds, at least 1s, got 1.5s"},
		{"activity_timeout: -10s\n", nil, "config: activity_timeout (line 1): must be a whole number of seconds"},
		{"pong_wait: -1s\n", nil, "config: pong_wait (line 1): must be > 0, got -1s"},
		{"", []string{"ROOST_SHUTDOWN_TIMEOUT=-5s"}, "config: shutdown_timeout (ROOST_SHUTDOWN_TIMEOUT): must be > 0, got -5s"},
		{"gc_percent: 5\n", nil, "config: gc_percent (line 1): must be >= 10, got 5"},
		{"", []string{"ROOST_GC_PERCENT=1001"}, "config: gc_percent (ROOST_GC_PERCENT): must be <= 1000, got 1001"},
		{"limits: {max_message_size: -1}\n", nil, "config: limits.max_message_size (line 1): must be > 0"},
		{"limits:\n  max_body_size: -1\n", nil, "config: limits.max_body_size (line 2): must be > 0"},
		{"limits: {max_event_data: -1}\n", nil, "config: limits.max_event_data (line 1): must be > 0"},
		{"limits: {write_backlog: -1}\n", nil, "config: limits.write_backlog (line 1): must be > 0"},
		{"", []string{"ROOST_WRITE_TIMEOUT=-1s"}, "config: limits.write_timeout (ROOST_WRITE_TIMEOUT): must be > 0"},
		{"", []string{"ROOST_HANDSHAKE_TIMEOUT=-1s"}, "config: limits.handshake_timeout (ROOST_HANDSHAKE_TIMEOUT): must be > 0"},
		{"limits: {max_header_bytes: -1}\n", nil, "config: limits.max_header_bytes (line 1): must be > 0"},
		{"", []string{"ROOST_CLIENT_EVENTS_PER_SECOND=-1"}, "config: limits.client_events_per_second (ROOST_CLIENT_EVENTS_PER_SECOND): must be > 0"},
		{"log: {level: verbose}\n", nil, `config: log.level (line 1): "verbose" is not one of ["debug" "info" "warn" "error"]`},
		{"", []string{"ROOST_LOG_FORMAT=xml"}, `config: log.format (ROOST_LOG_FORMAT): "xml" is not one of`},
		{"redis: {url: \"http://x\"}\n", nil, "config: redis.url (line 1): want redis://[user:password@]host:port[/db]"},
		{"", []string{"ROOST_APPS_URL=sqlite:///x.db"}, "config: app_store.url (ROOST_APPS_URL): want postgres://"},
		{"app_store: {table: \"apps; drop table x\"}\n", nil, `config: app_store.table (line 1): "apps; drop table x" is not a table name`},
		{"app_store: {table: a.b.c}\n", nil, `config: app_store.table (line 1): "a.b.c" is not a table name: at most schema.table`},
		{"app_store: {refresh: 0s}\n", []string{"ROOST_APPS_REFRESH=-1s"}, "config: app_store.refresh (ROOST_APPS_REFRESH): must be > 0"},
		{"admin: {token: short}\n", nil, "config: admin.token (line 1): must be at least 16 characters"},
		{"redis: {url: \"redis://\"}\n", nil, "config: redis.url (line 1): want redis://"},
		{"", []string{"ROOST_REDIS_URL=redis+sentinel://s:26379"}, "config: redis.url (ROOST_REDIS_URL): no master name"},
		{"redis: {url: \"redis+cluster://a:7000/2\"}\n", nil, "config: redis.url (line 1): a Redis Cluster has only database 0"},
		{"redis: {prefix: \"{app}\"}\n", nil, "config: redis.prefix (line 1): must not hold '{' or '}'"},
		{"nats: {url: \"redis://h:1\"}\n", nil, "config: nats.url (line 1): want nats://host:port or tls://host:port"},
		{"", []string{"ROOST_NATS_URL=nats://a:1,http://b:2"}, "config: nats.url (ROOST_NATS_URL): want nats://"},
		{"nats: {prefix: a.b}\n", nil, `config: nats.prefix (line 1): "a.b" may only hold letters, digits, '_' and '-'`},
		{"redis: {url: \"redis://h:1\"}\n", []string{"ROOST_NATS_URL=nats://h:4222"},
			"config: nats.url (ROOST_NATS_URL): set together with redis.url: a cluster runs on one backend"},
		{"apps:\n  - key: k\n    secret: s\n", nil, "config: apps[0].id (line 2): must not be empty"},
		{"apps: [{id: a, secret: s}]\n", nil, "config: apps[0].key (line 1): must not be empty"},
		{"apps:\n  - {id: a, key: k, secret: s}\n  - {id: b, key: kb}\n", nil, "config: apps[1].secret (line 3): must not be empty"},
		{"apps: [{id: a b, key: k, secret: s}]\n", nil, `config: apps[0].id (line 1): "a b" may only hold letters, digits, '_', '-' and '.'`},
		{"apps: [{id: a, key: k/1, secret: s}]\n", nil, `config: apps[0].key (line 1): "k/1" may only hold`},
		{"", []string{"ROOST_APP_ID=ü", "ROOST_APP_KEY=k", "ROOST_APP_SECRET=s"}, `config: apps[0].id (ROOST_APP_ID): "ü" may only hold`},
		{"apps:\n  - {id: a, key: k1, secret: s}\n  - {id: a, key: k2, secret: s}\n", nil, `config: apps[1].id (line 3): "a" is also apps[0].id`},
		{"apps:\n- {id: a, key: k, secret: s}\n- {id: b, key: x, secret: s}\n- {id: c, key: k, secret: s}\n", nil, `config: apps[2].key (line 4): "k" is also apps[0].key`},
		{"apps:\n  - id: a\n    key: k\n    secret: s\n    max_connections: -1\n", nil, "config: apps[0].max_connections (line 5): must be >= 0, got -1"},
		{"apps: [{id: a, key: k, secret: s, max_presence_members: -1}]\n", nil, "config: apps[0].max_presence_members (line 1): must be > 0"},
		{"", []string{"ROOST_APP_ID=a", "ROOST_APP_KEY=k", "ROOST_APP_SECRET=s", "ROOST_APP_MAX_PRESENCE_USER_INFO=0B", "ROOST_APP_MAX_CONNECTIONS=-2"},
			"config: apps[0].max_connections (ROOST_APP_MAX_CONNECTIONS): must be >= 0, got -2"},
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
		"gc_percent: 10\n",
		"apps: [{id: A_b-c.1, key: K.2, secret: \"any secret at all!\", max_connections: 0}]\n",
	} {
		mustParse(t, yaml)
	}
}
