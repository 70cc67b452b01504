package config

import (
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
		"ROOST_TLS_CERT=/etc/roost/cert.pem",
		"ROOST_TLS_KEY=/etc/roost/key.pem",
		"ROOST_MAX_MESSAGE_SIZE=32KiB",
		"ROOST_WRITE_BACKLOG=524288",
		"ROOST_WRITE_TIMEOUT=3s",
		"ROOST_LOG_LEVEL=debug",
		"ROOST_LOG_FORMAT=json",
		"ROOST_REDIS_URL=rediss://user:pw@redis:6380/1",
		"ROOST_REDIS_PREFIX=chat",
		"ROOST_APP_ID=42",
		"ROOST_APP_KEY=key-42",
		"ROOST_APP_SECRET=secret-42",
		"ROOST_APP_CLIENT_EVENTS=true",
	}
	want := Default()
	want.Addr, want.Transport, want.Loops = "0.0.0.0:7001", "portable", 3
	want.ActivityTimeout, want.PongWait, want.ShutdownTimeout = 60*time.Second, 15*time.Second, time.Minute
	want.TLS = TLS{CertFile: "/etc/roost/cert.pem", KeyFile: "/etc/roost/key.pem"}
	want.Limits.MaxMessageSize, want.Limits.WriteBacklog, want.Limits.WriteTimeout = 32<<10, 512<<10, 3*time.Second
	want.Log = Log{Level: "debug", Format: "json"}
	want.Redis = Redis{URL: "rediss://user:pw@redis:6380/1", Prefix: "chat"}
	want.Apps = []App{{ID: "42", Key: "key-42", Secret: "secret-42", ClientEvents: true,
		MaxPresenceMembers: 100, MaxPresenceUserInfo: 1024}}
	assertConfig(t, mustParse(t, "", env...), want)
}

func TestEnvErrorsNameTheVariable(t *testing.T) {
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"ROOST_ACTIVITY_TIMEOUT=abc"}, `config: ROOST_ACTIVITY_TIMEOUT: invalid duration "abc"`},
		{[]string{"ROOST_PONG_WAIT=30"}, `config: ROOST_PONG_WAIT: invalid duration "30"`},
		{[]string{"ROOST_LOOPS=two"}, `config: ROOST_LOOPS: invalid integer "two"`},
		{[]string{"ROOST_MAX_MESSAGE_SIZE=big"}, `config: ROOST_MAX_MESSAGE_SIZE: invalid size "big"`},
		{[]string{"ROOST_WRITE_BACKLOG=-1"}, `config: ROOST_WRITE_BACKLOG: invalid size "-1"`},
		{[]string{"ROOST_APP_CLIENT_EVENTS=sure"}, `config: ROOST_APP_CLIENT_EVENTS: invalid boolean "sure"`},
		{[]string{"ROOST_APP_ID=1", "ROOST_APP_SECRET=s"}, "config: ROOST_APP_KEY: not set; ROOST_APP_ID, ROOST_APP_KEY and ROOST_APP_SECRET must be set together"},
		{[]string{"ROOST_APP_KEY=k", "ROOST_APP_SECRET=s"}, "config: ROOST_APP_ID: not set"},
		{[]string{"ROOST_APP_ID=1", "ROOST_APP_KEY=k"}, "config: ROOST_APP_SECRET: not set"},
		{[]string{"ROOST_APP_CLIENT_EVENTS=true"}, "config: ROOST_APP_ID: not set"},
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
	mustParse(t, "", "HOME=/root", "roost_addr=x", "NOEQUALS", "ROOSTER=1", "=weird")
}

func TestUnknownEnvIsAWarning(t *testing.T) {
	c := mustParse(t, "", "ROOST_ADRR=x", "ROOST_PORT=tcp://10.0.0.1:6001", "ROOST_SERVICE_HOST=10.0.0.1")
	if len(c.Warnings) != 3 || !strings.Contains(c.Warnings[0], "ROOST_ADRR") {
		t.Fatalf("warnings %q, want one per unknown variable, naming it", c.Warnings)
	}
}
