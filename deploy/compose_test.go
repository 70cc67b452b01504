package deploy

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// composeFile is the part of deploy/compose.yaml the tests read.
type composeFile struct {
	Services map[string]struct {
		Build *struct {
			Context string `yaml:"context"`
		} `yaml:"build"`
		Image       string            `yaml:"image"`
		Environment map[string]string `yaml:"environment"`
		Ulimits     map[string]struct {
			Soft int `yaml:"soft"`
			Hard int `yaml:"hard"`
		} `yaml:"ulimits"`
		StopGracePeriod string   `yaml:"stop_grace_period"`
		Volumes         []string `yaml:"volumes"`
	} `yaml:"services"`
}

// interpolation matches compose's ${NAME}, ${NAME:-default} and
// ${NAME:?error} forms.
var interpolation = regexp.MustCompile(`\$\{(\w+)(?::([-?])([^}]*))?\}`)

// interpolate expands value as compose does with the variables in vars; a
// missing required (:?) variable is an error.
func interpolate(value string, vars map[string]string) (string, error) {
	var err error
	out := interpolation.ReplaceAllStringFunc(value, func(m string) string {
		g := interpolation.FindStringSubmatch(m)
		v, ok := vars[g[1]]
		switch {
		case ok && v != "":
			return v
		case g[2] == "-":
			return g[3]
		case g[2] == "?":
			err = fmt.Errorf("%s is required: %s", g[1], g[3])
		}
		return ""
	})
	return out, err
}

// roostServices returns the names of the compose services that run roost.
func (c *composeFile) roostServices() []string {
	var names []string
	for name, s := range c.Services {
		if s.Build != nil && s.Build.Context == ".." {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// TestComposeRoostNodes checks every roost node of the compose file: built
// from the repository's Dockerfile, configured only with settings roost
// accepts, joined to the compose file's Redis, given a real app (the
// secret must be supplied), enough open files, and more time to stop than
// roost takes to drain.
func TestComposeRoostNodes(t *testing.T) {
	c := yamlDocs[composeFile](t, "deploy/compose.yaml")[0]
	nodes := c.roostServices()
	if len(nodes) < 2 {
		t.Fatalf("roost services %v: want at least two (a cluster)", nodes)
	}
	for _, name := range nodes {
		s := c.Services[name]
		var env []string
		for k, v := range s.Environment {
			if _, err := interpolate(v, nil); strings.Contains(k, "SECRET") && err == nil {
				t.Errorf("%s: %s has a default; it must be required (${NAME:?...})", name, k)
			}
			v, err := interpolate(v, map[string]string{"ROOST_APP_SECRET": "compose-test-secret"})
			if err != nil {
				t.Errorf("%s: %s: %v", name, k, err)
			}
			env = append(env, k+"="+v)
		}
		cfg := loadConfig(t, "compose service "+name, env)
		if cfg.IsDevelopment() {
			t.Errorf("%s serves the development app", name)
		}
		host, p := redisHostPort(t, cfg.Redis.URL)
		if _, ok := c.Services[host]; !ok || p != "6379" {
			t.Errorf("%s: Redis URL %q: want a compose service on port 6379", name, cfg.Redis.URL)
		}
		if nf := s.Ulimits["nofile"]; nf.Soft < 65536 || nf.Soft != nf.Hard {
			t.Errorf("%s: ulimits.nofile %+v: want soft = hard, at least 65536", name, nf)
		}
		if grace, err := time.ParseDuration(s.StopGracePeriod); err != nil || grace <= cfg.ShutdownTimeout {
			t.Errorf("%s: stop_grace_period %q: want more than shutdown_timeout %s", name, s.StopGracePeriod, cfg.ShutdownTimeout)
		}
	}
}

func redisHostPort(t *testing.T, u string) (string, string) {
	t.Helper()
	hp := strings.TrimPrefix(u, "redis://")
	hp, _, _ = strings.Cut(hp, "/")
	host, p, err := net.SplitHostPort(hp)
	if err != nil {
		t.Fatalf("Redis URL %q: %v", u, err)
	}
	return host, p
}

// nginxDirective returns the arguments of every `name args;` line in conf.
func nginxDirective(conf, name string) []string {
	re := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(name) + `\s+([^;]*);`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(conf, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

// nginxBlock returns the body of the block `head { ... }` that holds no
// nested block, such as "upstream roost" or "location /app/".
func nginxBlock(t *testing.T, conf, head string) string {
	t.Helper()
	words := strings.Fields(head)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	re := regexp.MustCompile(strings.Join(words, `\s+`) + `\s*\{([^{}]*)\}`)
	m := re.FindStringSubmatch(conf)
	if m == nil {
		t.Fatalf("nginx: no block %s", head)
	}
	return m[1]
}

// TestComposeNginx checks the nginx in front of the compose cluster: its
// upstream is exactly the roost nodes on roost's port, WebSocket upgrades
// pass on /app/, idle connections outlive roost's own timeouts, and
// nothing but /app/ and /apps/ is proxied (so /metrics stays private).
func TestComposeNginx(t *testing.T) {
	c := yamlDocs[composeFile](t, "deploy/compose.yaml")[0]
	if !slices.Contains(c.Services["nginx"].Volumes, "./nginx/roost.conf:/etc/nginx/conf.d/default.conf:ro") {
		t.Fatalf("nginx does not mount deploy/nginx/roost.conf: %v", c.Services["nginx"].Volumes)
	}
	conf := string(readRepoFile(t, "deploy/nginx/roost.conf"))
	final, _ := dockerfile(t)
	imagePort := parseImage(t, final).expose
	var want []string
	for _, n := range c.roostServices() {
		want = append(want, n+":"+imagePort)
	}
	if got := nginxDirective(nginxBlock(t, conf, "upstream roost"), "server"); !slices.Equal(got, want) {
		t.Errorf("nginx upstream servers %v, want the roost nodes %v", got, want)
	}

	ws := nginxBlock(t, conf, "location /app/")
	for _, line := range []string{"proxy_http_version 1.1;", "proxy_set_header Upgrade $http_upgrade;",
		"proxy_set_header Connection $connection_upgrade;"} {
		if !strings.Contains(ws, line) {
			t.Errorf("nginx location /app/ lacks %q", line)
		}
	}
	d := defaults()
	idle := d.ActivityTimeout + d.PongWait
	for _, name := range []string{"proxy_read_timeout", "proxy_send_timeout"} {
		v := nginxDirective(ws, name)
		if len(v) != 1 {
			t.Errorf("nginx location /app/: %s not set (nginx's default is 60s)", name)
			continue
		}
		if got, err := time.ParseDuration(v[0]); err != nil || got <= idle {
			t.Errorf("nginx %s %s: want more than activity_timeout + pong_wait = %s", name, v[0], idle)
		}
	}

	var proxied []string
	for _, m := range regexp.MustCompile(`location\s+(\S+)\s*\{([^}]*)\}`).FindAllStringSubmatch(conf, -1) {
		if strings.Contains(m[2], "proxy_pass") {
			proxied = append(proxied, m[1])
		}
	}
	if !slices.Equal(proxied, []string{"/app/", "/apps/"}) {
		t.Errorf("nginx proxies %v, want only /app/ and /apps/", proxied)
	}
}
