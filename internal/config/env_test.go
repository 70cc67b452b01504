package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestEveryFieldFromEnv(t *testing.T) {
	env := []string{
		"ROOST_ADDR=0.0.0.0:7001",
		"ROOST_TRANSPORT=portable",
		"ROOST_LOOPS=3",
		"ROOST_ACTIVITY_TIMEOUT=60s",
		"ROOST_PONG_WAIT=15s",
		"ROOST_SHUTDOWN_TIMEOUT=1m",
		"ROOST_GC_PERCENT=40",
		"ROOST_TLS_CERT=/etc/roost/cert.pem",
		"ROOST_TLS_KEY=/etc/roost/key.pem",
		"ROOST_TLS_WATCH_INTERVAL=1m",
		"ROOST_TLS_ACME_EMAIL=ops@example.com",
		"ROOST_TLS_ACME_CACHE_DIR=/var/lib/roost/acme",
		"ROOST_TLS_ACME_DIRECTORY_URL=https://acme.example/dir",
		"ROOST_TLS_ACME_CA_FILE=/etc/roost/acme-ca.pem",
		"ROOST_TLS_ACME_HTTP_ADDR=127.0.0.1:8080",
		"ROOST_MAX_MESSAGE_SIZE=32KiB",
		"ROOST_MAX_BODY_SIZE=2MB",
		"ROOST_MAX_EVENT_DATA=20480",
		"ROOST_WRITE_BACKLOG=512 KiB",
		"ROOST_WRITE_BACKLOG_TOTAL=32MiB",
		"ROOST_SEND_BUFFER=64KiB",
		"ROOST_WRITE_TIMEOUT=3s",
		"ROOST_HANDSHAKE_TIMEOUT=2s",
		"ROOST_MAX_HEADER_BYTES=8KiB",
		"ROOST_API_BODY_TIMEOUT=4s",
		"ROOST_API_REQUESTS_PER_IP=8",
		"ROOST_API_BODY_MEMORY=16MiB",
		"ROOST_CLIENT_EVENTS_PER_SECOND=20",
		"ROOST_MAX_SUBSCRIPTIONS_PER_CONNECTION=300",
		"ROOST_MAX_CONNECTIONS=900",
		"ROOST_MAX_CONNECTIONS_PER_IP=30",
		"ROOST_HANDSHAKES_PER_SECOND=500",
		"ROOST_HANDSHAKES_PER_SECOND_PER_IP=5",
		"ROOST_MAX_MEMORY=1GiB",
		"ROOST_IPV6_PREFIX=48",
		"ROOST_TRUSTED_PROXIES=10.0.0.0/8, 2001:db8::/32",
		"ROOST_FORWARDED_HEADER=forwarded",
		"ROOST_PROXY_PROTOCOL=true",
		"ROOST_METRICS_ADDR=127.0.0.1:9601",
		"ROOST_METRICS_TOKEN=t0ken",
		"ROOST_APP_ALLOWED_ORIGINS=example.com, *.example.org",
		"ROOST_LOG_LEVEL=debug",
		"ROOST_LOG_FORMAT=json",
		"ROOST_REDIS_URL=redis://localhost:6379/0",
		"ROOST_REDIS_PREFIX=chat",
		"ROOST_NATS_URL=", // with redis.url set, nats.url must stay empty
		"ROOST_NATS_PREFIX=chat-nats",
		"ROOST_CLUSTER_ADVERTISE_URL=http://10.0.0.5:6001",
		"ROOST_APPS_URL=postgres://roost@db/roost",
		"ROOST_APPS_TABLE=roost.apps",
		"ROOST_APPS_REFRESH=3s",
		"ROOST_APPS_UNKNOWN_TTL=1s",
		"ROOST_APPS_WAIT=500ms",
		"ROOST_ADMIN_TOKEN=0123456789abcdef0123",
		"ROOST_DASHBOARD=false",
		"ROOST_DASHBOARD_CONSOLE=false",
		"ROOST_DASHBOARD_REQUESTS_PER_SECOND=7",
		"ROOST_DASHBOARD_CONSOLE_EVENTS_PER_SECOND=9",
		"ROOST_APP_ID=1",
		"ROOST_APP_KEY=k1",
		"ROOST_APP_SECRET=s1",
		"ROOST_APP_ENABLED=false",
		"ROOST_APP_CLIENT_EVENTS=true",
		"ROOST_APP_SUBSCRIPTION_COUNT=true",
		"ROOST_APP_COMPRESSION=true",
		"ROOST_APP_MAX_CONNECTIONS=500",
		"ROOST_APP_MAX_PRESENCE_MEMBERS=50",
		"ROOST_APP_MAX_PRESENCE_USER_INFO=2KiB",
		"ROOST_APP_MAX_BACKEND_EVENTS_PER_SEC=300",
		"ROOST_APP_MAX_READ_REQ_PER_SEC=40",
		"ROOST_APP_MAX_CLIENT_EVENTS_PER_SEC=400",
		"ROOST_APP_WEBHOOK_URL=https://hooks.example/pusher",
		"ROOST_APP_WEBHOOK_EVENT_TYPES=channel_occupied, member_added",
		"ROOST_WEBHOOK_DELAY=2s",
		"ROOST_WEBHOOK_BATCH_WAIT=100ms",
		"ROOST_WEBHOOK_BATCH_MAX=20",
		"ROOST_WEBHOOK_TIMEOUT=3s",
		"ROOST_WEBHOOK_RETRY_FOR=1m",
		"ROOST_WEBHOOK_QUEUE_BYTES=1MiB",
		"ROOST_WEBHOOK_OUTBOX=false",
		"ROOST_NODE_TTL=6s",
	}
	// The same values as fullYAML, whose second app the environment cannot
	// give: ROOST_APP_* define one app.
	want := fullConfig()
	want.Apps = want.Apps[:1]
	c := mustParse(t, "", env...)
	assertConfig(t, c, want)
	// tls.acme.domains cannot be set beside tls.cert_file;
	// TestACMEFromEnv sets it.
	if len(env)+1 != len(settings(schema())) {
		t.Errorf("the test sets %d variables and ROOST_TLS_ACME_DOMAINS, there are %d settings", len(env), len(settings(schema())))
	}
}

// TestACMEFromEnv: the ACME domains come from ROOST_TLS_ACME_DOMAINS as a
// comma-separated list, and turn TLS on without any file.
func TestACMEFromEnv(t *testing.T) {
	c := mustParse(t, "", "ROOST_TLS_ACME_DOMAINS=a.example, b.example", "ROOST_TLS_ACME_CACHE_DIR=/c")
	if got := c.TLS.ACME.Domains; !reflect.DeepEqual(got, []string{"a.example", "b.example"}) {
		t.Errorf("domains %q, want a.example and b.example", got)
	}
	if !c.TLS.Enabled() || c.TLS.ACME.HTTPAddr != ":80" {
		t.Errorf("TLS enabled %v, http_addr %q: want TLS on, HTTP-01 on :80", c.TLS.Enabled(), c.TLS.ACME.HTTPAddr)
	}
}

func TestEnvErrorsNameTheVariable(t *testing.T) {
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"ROOST_ACTIVITY_TIMEOUT=abc"}, `config: activity_timeout (ROOST_ACTIVITY_TIMEOUT): invalid duration "abc"`},
		{[]string{"ROOST_PONG_WAIT=30"}, `config: pong_wait (ROOST_PONG_WAIT): invalid duration "30"`},
		{[]string{"ROOST_LOOPS=two"}, `config: loops (ROOST_LOOPS): invalid integer "two"`},
		{[]string{"ROOST_MAX_MESSAGE_SIZE=big"}, `config: limits.max_message_size (ROOST_MAX_MESSAGE_SIZE): invalid size "big"`},
		{[]string{"ROOST_WRITE_BACKLOG=-1"}, `config: limits.write_backlog (ROOST_WRITE_BACKLOG): invalid size "-1"`},
		{[]string{"ROOST_APP_CLIENT_EVENTS=sure"}, `config: apps[0].client_events (ROOST_APP_CLIENT_EVENTS): invalid boolean "sure"`},
		{[]string{"ROOST_APP_ENABLED=off"}, `config: apps[0].enabled (ROOST_APP_ENABLED): invalid boolean "off"`},
		{[]string{"ROOST_METRICS_ADDR=9601"}, `config: metrics.addr (ROOST_METRICS_ADDR): want host:port, got "9601"`},
		{[]string{"ROOST_APP_ID=1", "ROOST_APP_KEY=k", "ROOST_APP_SECRET=s", "ROOST_APP_ALLOWED_ORIGINS=https://example.com"},
			`config: apps[0].allowed_origins (ROOST_APP_ALLOWED_ORIGINS): "https://example.com" is not a host, *.host or *`},
		{[]string{"ROOST_APP_MAX_CONNECTIONS=1.5"}, `config: apps[0].max_connections (ROOST_APP_MAX_CONNECTIONS): invalid integer "1.5"`},
		{[]string{"ROOST_APP_ID=1", "ROOST_APP_SECRET=s"}, "config: apps[0].key (ROOST_APP_KEY): must not be empty"},
		{[]string{"ROOST_APP_KEY=k", "ROOST_APP_SECRET=s"}, "config: apps[0].id (ROOST_APP_ID): must not be empty"},
		{[]string{"ROOST_APP_ID=1", "ROOST_APP_KEY=k"}, "config: apps[0].secret (ROOST_APP_SECRET): must not be empty"},
		{[]string{"ROOST_APP_CLIENT_EVENTS=true"}, "config: apps[0].id (ROOST_APP_ID): must not be empty\n" +
			"config: apps[0].key (ROOST_APP_KEY): must not be empty\nconfig: apps[0].secret (ROOST_APP_SECRET): must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := Parse(nil, tt.env)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant prefix %s", err, tt.want)
			}
		})
	}
}

func TestEnvReportsEveryBadVariable(t *testing.T) {
	_, err := Parse(nil, []string{"ROOST_LOOPS=x", "ROOST_PONG_WAIT=y"})
	if err == nil || !strings.Contains(err.Error(), "ROOST_LOOPS") || !strings.Contains(err.Error(), "ROOST_PONG_WAIT") {
		t.Fatalf("err = %v, want both variables named", err)
	}
}

func TestEnvEmptyValueIsUnset(t *testing.T) {
	c := mustParse(t, "addr: \"0.0.0.0:7001\"\n", "ROOST_ADDR=", "ROOST_APP_ID=")
	if c.Addr != "0.0.0.0:7001" || !c.IsDevelopment() {
		t.Errorf("Addr = %q, apps = %+v: empty variables must change nothing", c.Addr, c.Apps)
	}
}

func TestEnvFirstEntryWins(t *testing.T) {
	c := mustParse(t, "", "ROOST_LOG_LEVEL=warn", "ROOST_LOG_LEVEL=debug")
	if c.Log.Level != "warn" {
		t.Errorf("Log.Level = %q, want the first entry as os.Getenv does", c.Log.Level)
	}
}

func TestEnvIgnoresOtherVariables(t *testing.T) {
	c := mustParse(t, "", "HOME=/root", "roost_addr=x", "NOEQUALS", "ROOSTER=1", "=weird")
	if len(c.Warnings) != 0 {
		t.Errorf("warnings %q for variables without the ROOST_ prefix", c.Warnings)
	}
}

func TestUnknownEnvIsAWarning(t *testing.T) {
	c := mustParse(t, "", "ROOST_ADRR=x", "ROOST_PORT=tcp://10.0.0.1:6001", "ROOST_SERVICE_HOST=10.0.0.1", "ROOST_ADDR=")
	if len(c.Warnings) != 3 || !strings.Contains(c.Warnings[0], "ROOST_ADRR") {
		t.Fatalf("warnings %q, want one per unknown variable, naming it", c.Warnings)
	}
}

func TestEnvDurationBeatsFile(t *testing.T) {
	c := mustParse(t, "pong_wait: 15s\n", "ROOST_PONG_WAIT=1m")
	if c.PongWait != time.Minute {
		t.Errorf("PongWait = %v", c.PongWait)
	}
}
