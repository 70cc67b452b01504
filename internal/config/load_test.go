package config

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fullYAML sets every field to a value other than its default.
const fullYAML = `
addr: "0.0.0.0:7001"
tls:
  cert_file: /etc/roost/cert.pem
  key_file: /etc/roost/key.pem
  watch_interval: 1m
  acme: {email: ops@example.com, cache_dir: /var/lib/roost/acme, directory_url: "https://acme.example/dir", ca_file: /etc/roost/acme-ca.pem, http_addr: "127.0.0.1:8080"}
transport: portable
loops: 3
activity_timeout: 60s
pong_wait: 15s
shutdown_timeout: 1m
node_ttl: 6s
gc_percent: 40
limits:
  max_message_size: 32KiB
  max_body_size: 2MB
  max_event_data: 20480
  write_backlog: "512 KiB"
  write_backlog_total: 32MiB
  send_buffer: 64KiB
  write_timeout: 3s
  handshake_timeout: 2s
  max_header_bytes: 8KiB
  api_body_timeout: 4s
  api_requests_per_ip: 8
  api_body_memory: 16MiB
  client_events_per_second: 20
  max_subscriptions_per_connection: 300
  max_connections: 900
  max_connections_per_ip: 30
  handshakes_per_second: 500
  handshakes_per_second_per_ip: 5
  max_memory: 1GiB
  ipv6_prefix: 48
trusted_proxies: [10.0.0.0/8, "2001:db8::/32"]
forwarded_header: forwarded
proxy_protocol: true
apps:
  - id: "1"
    key: k1
    secret: s1
    enabled: false
    client_events: true
    subscription_count: true
    compression: true
    allowed_origins: [example.com, "*.example.org"]
    max_connections: 500
    max_presence_members: 50
    max_presence_user_info: 2KiB
    max_backend_events_per_sec: 300
    max_read_req_per_sec: 40
    max_client_events_per_sec: 400
    webhooks:
      - url: https://hooks.example/pusher
        event_types: [channel_occupied, member_added]
  - {id: app-2, key: k2, secret: s2}
webhooks:
  delay: 2s
  batch_wait: 100ms
  batch_max: 20
  timeout: 3s
  retry_for: 1m
  queue_bytes: 1MiB
  outbox: false
log: {level: debug, format: json}
redis: {url: "redis://localhost:6379/0", prefix: chat}
nats: {prefix: chat-nats}
cluster: {advertise_url: "http://10.0.0.5:6001"}
app_store: {url: "postgres://roost@db/roost", table: roost.apps, refresh: 3s, unknown_ttl: 1s, wait: 500ms}
admin: {token: "0123456789abcdef0123"}
dashboard: {enabled: false, console: false, requests_per_second: 7, console_events_per_second: 9}
metrics: {addr: "127.0.0.1:9601", token: t0ken}
`

// fullConfig is what fullYAML loads as.
func fullConfig() Config {
	f, t := false, true
	return Config{
		Addr: "0.0.0.0:7001",
		TLS: TLS{CertFile: "/etc/roost/cert.pem", KeyFile: "/etc/roost/key.pem", WatchInterval: time.Minute,
			ACME: ACME{Email: "ops@example.com", CacheDir: "/var/lib/roost/acme", DirectoryURL: "https://acme.example/dir",
				CAFile: "/etc/roost/acme-ca.pem", HTTPAddr: "127.0.0.1:8080"}},
		Transport:       "portable",
		Loops:           3,
		ActivityTimeout: 60 * time.Second,
		PongWait:        15 * time.Second,
		ShutdownTimeout: time.Minute, NodeTTL: 6 * time.Second, GCPercent: 40,
		Limits: Limits{
			MaxMessageSize: 32 << 10, MaxBodySize: 2e6, MaxEventData: 20480, WriteBacklog: 512 << 10,
			WriteBacklogTotal: 32 << 20, SendBuffer: 64 << 10,
			WriteTimeout: 3 * time.Second, HandshakeTimeout: 2 * time.Second,
			MaxHeaderBytes: 8 << 10, APIBodyTimeout: 4 * time.Second, APIRequestsPerIP: 8,
			APIBodyMemory: 16 << 20, ClientEventsPerSecond: 20, MaxSubscriptionsPerConnection: 300,
			MaxConnections: 900, MaxConnectionsPerIP: 30, HandshakesPerSecond: 500, HandshakesPerSecondPerIP: 5,
			MaxMemory: 1 << 30, IPv6Prefix: 48,
		},
		TrustedProxies: []string{"10.0.0.0/8", "2001:db8::/32"}, ForwardedHeader: "forwarded", ProxyProtocol: true,
		Apps: []App{
			{ID: "1", Key: "k1", Secret: "s1", Enabled: &f, ClientEvents: true, SubscriptionCount: true, Compression: true,
				AllowedOrigins: []string{"example.com", "*.example.org"}, MaxConnections: 500, MaxPresenceMembers: 50,
				MaxPresenceUserInfo: 2048, MaxBackendEventsPerSec: 300, MaxReadReqPerSec: 40, MaxClientEventsPerSec: 400,
				Webhooks: []Webhook{{URL: "https://hooks.example/pusher", EventTypes: []string{"channel_occupied", "member_added"}}}},
			{ID: "app-2", Key: "k2", Secret: "s2", Enabled: &t, MaxPresenceMembers: 100, MaxPresenceUserInfo: 1024},
		},
		Webhooks: Webhooks{Delay: 2 * time.Second, BatchWait: 100 * time.Millisecond, BatchMax: 20,
			Timeout: 3 * time.Second, RetryFor: time.Minute, QueueBytes: 1 << 20, Outbox: &f},
		Log:     Log{Level: "debug", Format: "json"},
		Redis:   Redis{URL: "redis://localhost:6379/0", Prefix: "chat"},
		NATS:    NATS{Prefix: "chat-nats"},
		Cluster: Cluster{AdvertiseURL: "http://10.0.0.5:6001"},
		AppStore: AppStore{URL: "postgres://roost@db/roost", Table: "roost.apps", Refresh: 3 * time.Second,
			UnknownTTL: time.Second, Wait: 500 * time.Millisecond},
		Admin:     Admin{Token: "0123456789abcdef0123"},
		Dashboard: Dashboard{Enabled: &f, Console: &f, RequestsPerSecond: 7, ConsoleEventsPerSecond: 9},
		Metrics:   Metrics{Addr: "127.0.0.1:9601", Token: "t0ken"},
	}
}

// mustParse parses yaml and env or fails the test.
func mustParse(t *testing.T, yaml string, env ...string) Config {
	t.Helper()
	c, err := Parse([]byte(yaml), env)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return c
}

// assertConfig compares configs, ignoring the lookup index.
func assertConfig(t *testing.T, got, want Config) {
	t.Helper()
	got.index, want.index = appIndex{}, appIndex{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("config mismatch\n got: %+v\nwant: %+v", got, want)
	}
}

func TestDefault(t *testing.T) {
	c := Default()
	enabled := true
	want := Config{
		Addr: "127.0.0.1:6001", Transport: "auto", Loops: runtime.GOMAXPROCS(0),
		TLS: TLS{WatchInterval: 10 * time.Second,
			ACME: ACME{DirectoryURL: "https://acme-v02.api.letsencrypt.org/directory", HTTPAddr: ":80"}},
		ActivityTimeout: 120 * time.Second, PongWait: 30 * time.Second, ShutdownTimeout: 10 * time.Second, NodeTTL: 15 * time.Second, GCPercent: 50,
		Limits: Limits{
			MaxMessageSize: 65536, MaxBodySize: 1 << 20, MaxEventData: 10240, WriteBacklog: 1 << 20, SendBuffer: 128 << 10,
			WriteTimeout: 10 * time.Second, HandshakeTimeout: 5 * time.Second,
			MaxHeaderBytes: 16384, APIBodyTimeout: 10 * time.Second, APIRequestsPerIP: 32,
			APIBodyMemory: 64 << 20, ClientEventsPerSecond: 10, MaxSubscriptionsPerConnection: 100,
			IPv6Prefix: 64,
		},
		ForwardedHeader: "x-forwarded-for",
		Apps: []App{{ID: "app-id", Key: "app-key", Secret: "app-secret", Enabled: &enabled, ClientEvents: true,
			MaxPresenceMembers: 100, MaxPresenceUserInfo: 1024}},
		Webhooks: Webhooks{Delay: 3 * time.Second, BatchWait: 250 * time.Millisecond, BatchMax: 50,
			Timeout: 5 * time.Second, RetryFor: 5 * time.Minute, QueueBytes: 8 << 20, Outbox: &enabled},
		Log:       Log{Level: "info", Format: "text"},
		Redis:     Redis{Prefix: "roost"},
		NATS:      NATS{Prefix: "roost"},
		AppStore:  AppStore{Table: "apps", Refresh: 10 * time.Second, UnknownTTL: 5 * time.Second, Wait: 2 * time.Second},
		Dashboard: Dashboard{Enabled: &enabled, Console: &enabled, RequestsPerSecond: 20, ConsoleEventsPerSecond: 50},
	}
	assertConfig(t, c, want)
	if err := c.validate(); err != nil {
		t.Errorf("Default() is invalid: %v", err)
	}
	if !c.IsDevelopment() {
		t.Error("Default().IsDevelopment() = false")
	}
}

func TestLoadNothingIsDefault(t *testing.T) {
	c, err := Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertConfig(t, c, Default())
}

func TestEveryFieldFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "roost.yaml")
	if err := os.WriteFile(path, []byte(fullYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, []string{"HOME=/root", "PATH=/bin"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertConfig(t, c, fullConfig())
	if c.IsDevelopment() {
		t.Error("IsDevelopment() = true with real apps")
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.yaml")
	_, err := Load(path, nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "config: ") || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want a config error naming %s", err, path)
	}
}

func TestPrecedence(t *testing.T) {
	file := "addr: \"0.0.0.0:7001\"\npong_wait: 15s\n"
	c := mustParse(t, file, "ROOST_ADDR=10.0.0.1:8000")
	if c.Addr != "10.0.0.1:8000" {
		t.Errorf("Addr = %q, env must beat file", c.Addr)
	}
	if c.PongWait != 15*time.Second {
		t.Errorf("PongWait = %v, file must beat default", c.PongWait)
	}
	if c.ShutdownTimeout != 10*time.Second {
		t.Errorf("ShutdownTimeout = %v, want the default", c.ShutdownTimeout)
	}
}

func TestEnvAppReplacesFileApps(t *testing.T) {
	c := mustParse(t, fullYAML, "ROOST_APP_ID=9", "ROOST_APP_KEY=k9", "ROOST_APP_SECRET=s9")
	enabled := true
	want := []App{{ID: "9", Key: "k9", Secret: "s9", Enabled: &enabled, MaxPresenceMembers: 100, MaxPresenceUserInfo: 1024}}
	if !reflect.DeepEqual(c.Apps, want) {
		t.Errorf("Apps = %+v, want %+v", c.Apps, want)
	}
}

func TestExampleLoadsAsTheDefaults(t *testing.T) {
	c := mustParse(t, Example())
	if len(c.Apps) != 1 || c.Apps[0].ID != "my-app" || c.IsDevelopment() {
		t.Fatalf("Example apps = %+v", c.Apps)
	}
	// Apart from the example app (and loops: 0, which means GOMAXPROCS),
	// Example must load as the defaults, since it says it shows them.
	want := Default()
	want.Apps = c.Apps
	assertConfig(t, c, want)
	enabled := true
	app := App{ID: "my-app", Key: "my-app-key", Secret: "change-me", Enabled: &enabled,
		MaxPresenceMembers: 100, MaxPresenceUserInfo: 1024,
		Webhooks: []Webhook{{URL: "https://backend.example/pusher/webhooks", EventTypes: []string{"channel_occupied", "channel_vacated"}}}}
	if !reflect.DeepEqual(c.Apps[0], app) {
		t.Errorf("Example app = %+v, want the defaults for all but its credentials", c.Apps[0])
	}
}

func TestExampleSetsEverySetting(t *testing.T) {
	for _, f := range settings(schema()) {
		line := "\n" + strings.Repeat(" ", strings.Count(f.path, ".")*2+strings.Count(f.path, "[]")*2)
		if !strings.Contains(Example(), line+f.key+": ") && !strings.Contains(Example(), "- "+f.key+": ") {
			t.Errorf("Example does not set %s", f.path)
		}
		if !strings.Contains(Example(), "("+f.env) {
			t.Errorf("Example does not name %s", f.env)
		}
	}
}
