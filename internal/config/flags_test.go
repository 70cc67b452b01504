package config

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadWithFlags runs Load on a file holding yaml, with environ and the
// command-line args.
func loadWithFlags(t *testing.T, yaml string, environ []string, args ...string) (Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flags := RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	path := ""
	if yaml != "" {
		path = filepath.Join(t.TempDir(), "roost.yaml")
		if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return Load(path, environ, flags)
}

func TestPrecedenceFileEnvFlag(t *testing.T) {
	file := "addr: \"10.0.0.1:1\"\ntransport: epoll\nredis: {prefix: file}\n"
	env := []string{"ROOST_ADDR=10.0.0.2:2", "ROOST_TRANSPORT=portable"}
	c, err := loadWithFlags(t, file, env, "--addr", "10.0.0.3:3")
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "10.0.0.3:3" || c.Transport != "portable" || c.Redis.Prefix != "file" {
		t.Errorf("addr %q transport %q prefix %q: want flag > env > file", c.Addr, c.Transport, c.Redis.Prefix)
	}
}

func TestEveryFlagSetsItsSetting(t *testing.T) {
	c, err := loadWithFlags(t, "", nil, "--addr=:7001", "--transport=portable", "--tls-cert=c.pem", "--tls-key=k.pem",
		"--redis-url=redis://h:1", "--redis-prefix=p")
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Addr, want.Transport = ":7001", "portable"
	want.TLS.CertFile, want.TLS.KeyFile = "c.pem", "k.pem"
	want.Redis = Redis{URL: "redis://h:1", Prefix: "p"}
	assertConfig(t, c, want)
}

func TestFlagErrorsNameTheFlag(t *testing.T) {
	tests := []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--addr=localhost"}, `config: addr (--addr): want host:port, got "localhost"`},
		{[]string{"ROOST_ADDR=:1"}, []string{"--addr=localhost"}, `config: addr (--addr): want host:port`},
		{[]string{"ROOST_ADDR=localhost"}, nil, `config: addr (ROOST_ADDR): want host:port`},
		{nil, []string{"--transport=kqueue"}, `config: transport (--transport): "kqueue" is not one of`},
		{nil, []string{"--tls-cert=c.pem"}, "config: tls.key_file: must be set when tls.cert_file is set"},
		{nil, []string{"--redis-url=http://x"}, "config: redis.url (--redis-url): want redis://"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := loadWithFlags(t, "", tt.env, tt.args...)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant prefix %s", err, tt.want)
			}
		})
	}
}

func TestEmptyFlagIsUnset(t *testing.T) {
	c, err := loadWithFlags(t, "addr: \"10.0.0.1:1\"\n", nil, "--addr=")
	if err != nil || c.Addr != "10.0.0.1:1" {
		t.Fatalf("addr %q, err %v: an empty flag must change nothing", c.Addr, err)
	}
}

func TestErrorNamesTheSourceWhoseValueWon(t *testing.T) {
	// An env value replaces a file value: the error must name the variable,
	// not the file line the old value came from.
	_, err := loadWithFlags(t, "pong_wait: 10s\n", []string{"ROOST_PONG_WAIT=-1s"})
	if err == nil || !strings.HasPrefix(err.Error(), "config: pong_wait (ROOST_PONG_WAIT): must be > 0") {
		t.Fatalf("err = %v", err)
	}
	// ROOST_APP_* replace the file's apps: none of their lines may be named.
	_, err = loadWithFlags(t, "apps:\n  - {id: a, key: k, secret: s}\n", []string{"ROOST_APP_ID=b", "ROOST_APP_KEY=k"})
	if err == nil || err.Error() != "config: apps[0].secret (ROOST_APP_SECRET): must not be empty" {
		t.Fatalf("err = %v", err)
	}
	_, err = loadWithFlags(t, "\npong_wait: -1s\n", []string{"ROOST_ADDR=:1"})
	if err == nil || !strings.Contains(err.Error(), "config: pong_wait (") || !strings.Contains(err.Error(), "roost.yaml:2): must be > 0") {
		t.Fatalf("err = %v", err)
	}
}
