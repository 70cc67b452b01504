package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// reexecEnv marks a child process of these tests: the bench re-executes its
// own binary (this test binary) as `roost serve` and `roost bench worker`,
// and TestMain turns such a child into the real command. The name lacks
// the ROOST_ prefix, which the config loader reserves.
const reexecEnv = "ROOSTBENCH_TEST_REEXEC"

func TestMain(m *testing.M) {
	if os.Getenv(reexecEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Setenv(reexecEnv, "1")
	os.Exit(m.Run())
}

// runBench runs `roost bench args...` with --json and decodes the result.
func runBench(t *testing.T, v any, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"bench"}, append(args, "--json")...), &stdout, &stderr); code != 0 {
		t.Fatalf("roost bench %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		t.Fatalf("roost bench %s: bad JSON %q: %v", strings.Join(args, " "), stdout.String(), err)
	}
}

// TestBenchIdleSmoke holds 50 connections against a child roost for a
// second and checks that the figures exist and are sane (never how fast).
func TestBenchIdleSmoke(t *testing.T) {
	var r struct {
		Transport   string `json:"transport"`
		Connections int    `json:"connections"`
		Hold        [2]struct {
			Connections float64 `json:"connections"`
			RSS         float64 `json:"rss"`
			Proc        *struct {
				RSS float64 `json:"RSS"`
			} `json:"proc"`
		} `json:"hold"`
		Failed  int64 `json:"failed"`
		PerConn struct {
			RSS float64 `json:"rss_bytes"`
		} `json:"per_connection"`
	}
	runBench(t, &r, "idle", "-n", "50", "--hold", "1s", "--baseline", "500ms", "--activity-timeout", "2s", "--settle", "200ms")
	if r.Transport != "epoll" || r.Connections != 50 || r.Hold[1].Connections != 50 || r.Failed != 0 {
		t.Fatalf("unexpected result %+v", r)
	}
	if r.Hold[1].RSS <= 0 || r.Hold[1].Proc == nil || r.Hold[1].Proc.RSS <= 0 {
		t.Fatalf("no RSS figures: %+v", r.Hold[1])
	}
	if r.PerConn.RSS > 10<<20 || r.PerConn.RSS < -10<<20 {
		t.Fatalf("per-connection RSS %v bytes is not a plausible figure", r.PerConn.RSS)
	}
}
