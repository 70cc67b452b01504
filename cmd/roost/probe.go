package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const probeUsage = `usage: roost probe [--timeout D] URL

GET URL and exit 0 if the answer is 2xx, 1 otherwise (2 for bad usage).
It is the container image's health check, which has no shell or curl:
  roost probe http://127.0.0.1:6001/up      liveness
  roost probe http://127.0.0.1:6001/ready   readiness (503 while Redis is away)
`

// probe runs `roost probe`.
func probe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, probeUsage) }
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, probeUsage)
		return 2
	}
	target := fs.Arg(0)
	if u, err := url.Parse(target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fmt.Fprintf(stderr, "roost probe: %q is not an http:// or https:// URL\n", target)
		return 2
	}
	status, err := get(target, *timeout)
	if err != nil {
		fmt.Fprintln(stderr, "roost probe:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s\n", target, status)
	return 0
}

// get fetches target directly (never through an HTTP proxy from the
// environment: a health check asks this host) and fails unless the status
// is 2xx, quoting the start of the body, where roost says why.
func get(target string, timeout time.Duration) (string, error) {
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Get(target)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
		return "", fmt.Errorf("%s: %s %s", target, resp.Status, strings.TrimSpace(string(body)))
	}
	return resp.Status, nil
}
