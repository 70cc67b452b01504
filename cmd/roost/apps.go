package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/roostproject/roost/internal/config"
)

const appsUsage = `usage: roost apps <command> [flags]

Manages the apps of a roost node that has an app store (app_store.url)
through its admin API. Every command takes --url (default $ROOST_ADMIN_URL,
else http://127.0.0.1:6001) and --token (default $ROOST_ADMIN_TOKEN).

commands:
  create --id ID [--key KEY] [--secret SECRET] [--client-events] [--max-connections N]
            creates an app and prints it with its secret, shown only this once
  list      lists the apps, without their secrets
  disable ID
            switches an app off: its clients are disconnected with 4003
`

// appsCmd runs `roost apps`.
func appsCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, appsUsage)
		return 0
	}
	fs := flag.NewFlagSet("apps "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := adminClient{http: &http.Client{Timeout: 30 * time.Second}}
	fs.StringVar(&c.base, "url", envOr("ROOST_ADMIN_URL", "http://127.0.0.1:6001"), "the node's HTTP `address`")
	fs.StringVar(&c.token, "token", os.Getenv("ROOST_ADMIN_TOKEN"), "the node's admin.token")
	var err error
	switch args[0] {
	case "create":
		err = c.create(fs, args[1:], stdout)
	case "list":
		err = c.list(fs, args[1:], stdout)
	case "disable":
		err = c.disable(fs, args[1:], stdout)
	default:
		fmt.Fprintf(stderr, "roost apps: unknown command %q\n%s", args[0], appsUsage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "roost apps:", err)
		return 1
	}
	return 0
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// adminClient calls a node's admin API.
type adminClient struct {
	base, token string
	http        *http.Client
}

func (c *adminClient) create(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	var a config.App
	fs.StringVar(&a.ID, "id", "", "the app's `id` (required)")
	fs.StringVar(&a.Key, "key", "", "the app's `key`; generated when not given")
	fs.StringVar(&a.Secret, "secret", "", "the app's `secret`; generated when not given")
	fs.BoolVar(&a.ClientEvents, "client-events", false, "allow client events")
	fs.IntVar(&a.MaxConnections, "max-connections", 0, "connections per node, `N`; 0 means unlimited")
	if err := c.parse(fs, args, 0); err != nil {
		return err
	}
	if a.ID == "" {
		return errors.New("create: --id is required")
	}
	var made config.App
	if err := c.do("POST", "/admin/apps", &a, &made); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "id=%s key=%s secret=%s\n", made.ID, made.Key, made.Secret)
	fmt.Fprintln(stdout, "keep the secret now: it is never shown again")
	return nil
}

func (c *adminClient) list(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	if err := c.parse(fs, args, 0); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKEY\tENABLED\tCLIENT EVENTS\tMAX CONNECTIONS")
	after := ""
	for {
		var page struct {
			Apps []config.App `json:"apps"`
			Next string       `json:"next"`
		}
		if err := c.do("GET", "/admin/apps?limit=1000&after="+url.QueryEscape(after), nil, &page); err != nil {
			return err
		}
		for _, a := range page.Apps {
			fmt.Fprintf(tw, "%s\t%s\t%t\t%t\t%d\n", a.ID, a.Key, a.IsEnabled(), a.ClientEvents, a.MaxConnections)
		}
		if page.Next == "" {
			return tw.Flush()
		}
		after = page.Next
	}
}

func (c *adminClient) disable(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	if err := c.parse(fs, args, 1); err != nil {
		return err
	}
	id := fs.Arg(0)
	var a config.App
	if err := c.do("GET", "/admin/apps/"+url.PathEscape(id), nil, &a); err != nil {
		return err
	}
	off := false
	a.Enabled = &off
	if err := c.do("PUT", "/admin/apps/"+url.PathEscape(id), &a, &a); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "app %s disabled\n", id)
	return nil
}

// parse parses the flags and wants exactly n arguments after them.
func (c *adminClient) parse(fs *flag.FlagSet, args []string, n int) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != n {
		return fmt.Errorf("%s: want %d argument(s), got %d", fs.Name(), n, fs.NArg())
	}
	if c.token == "" {
		return errors.New("no admin token: set --token or ROOST_ADMIN_TOKEN")
	}
	return nil
}

// do sends one request with body (nil for none) as JSON and decodes the
// answer into out; an error status becomes an error with the node's
// message.
func (c *adminClient) do(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, strings.TrimSuffix(c.base, "/")+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(msg)))
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
