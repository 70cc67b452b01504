package redisurl

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Kind is the shape of the Redis deployment a URL names.
type Kind uint8

const (
	// Single is one Redis server: redis:// or rediss://.
	Single Kind = iota
	// Cluster is a Redis Cluster reached through seed nodes:
	// redis+cluster://host:port,host:port or rediss+cluster://.
	Cluster
	// Sentinel is a primary found through Sentinel:
	// redis+sentinel://host:port,host:port/mastername[/db] or
	// rediss+sentinel://.
	Sentinel
)

// URL is what a Redis URL says. For Single only Kind and TLS are read
// here; the client reads the rest of such a URL itself (go-redis's
// ParseURL), so every form it knows keeps working.
type URL struct {
	Kind Kind
	TLS  bool
	// Addrs are the seed nodes (Cluster) or the sentinels (Sentinel), each
	// host:port.
	Addrs []string
	// User and Password authenticate to the data nodes (Cluster, and the
	// primary and replicas of Sentinel).
	User, Password string
	// Master is the name the sentinels know the primary by.
	Master string
	// DB is the database number (Sentinel only; a Redis Cluster has only 0).
	DB int
	// SentinelUser and SentinelPassword authenticate to the sentinels
	// themselves: the query parameters sentinel_username and
	// sentinel_password. Zero value means none.
	SentinelUser, SentinelPassword string
}

var schemes = map[string]URL{
	"redis":           {Kind: Single},
	"rediss":          {Kind: Single, TLS: true},
	"redis+cluster":   {Kind: Cluster},
	"rediss+cluster":  {Kind: Cluster, TLS: true},
	"redis+sentinel":  {Kind: Sentinel},
	"rediss+sentinel": {Kind: Sentinel, TLS: true},
}

// Forms lists the accepted forms, for error messages and help texts.
const Forms = "redis://[user:password@]host:port[/db], rediss:// (TLS), " +
	"redis+cluster://[user:password@]host:port[,host:port...], " +
	"redis+sentinel://[user:password@]host:port[,host:port...]/mastername[/db]"

// Parse reads a Redis URL. Its errors never quote the URL: it may hold a
// password.
func Parse(s string) (URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return URL{}, errors.New("want " + Forms)
	}
	out, ok := schemes[u.Scheme]
	if !ok {
		return URL{}, errors.New("want " + Forms)
	}
	if u.Host == "" {
		return URL{}, errors.New("want " + Forms)
	}
	if out.Kind == Single {
		return out, nil
	}
	if out.Addrs, err = addrs(u.Host); err != nil {
		return URL{}, err
	}
	out.User = u.User.Username()
	out.Password, _ = u.User.Password()
	if err := out.path(strings.Trim(u.Path, "/")); err != nil {
		return URL{}, err
	}
	return out, out.query(u.Query())
}

// addrs splits a comma-separated list of host:port.
func addrs(hosts string) ([]string, error) {
	var out []string
	for _, h := range strings.Split(hosts, ",") {
		host, port, err := net.SplitHostPort(h)
		if err != nil || host == "" {
			return nil, errors.New("each node must be host:port, separated by commas")
		}
		if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return nil, errors.New("a node's port must be a number from 1 to 65535")
		}
		out = append(out, h)
	}
	return out, nil
}

// path reads "" (Cluster) or "mastername[/db]" (Sentinel).
func (u *URL) path(p string) error {
	if u.Kind == Cluster {
		if p != "" && p != "0" {
			return errors.New("a Redis Cluster has only database 0: drop the path")
		}
		return nil
	}
	master, db, hasDB := strings.Cut(p, "/")
	if master == "" {
		return errors.New("no master name: want redis+sentinel://host:port/mastername")
	}
	u.Master = master
	if !hasDB {
		return nil
	}
	n, err := strconv.Atoi(db)
	if err != nil || n < 0 {
		return fmt.Errorf("database must be a number, after the master name")
	}
	u.DB = n
	return nil
}

// query reads the sentinels' own credentials; nothing else is accepted.
func (u *URL) query(q url.Values) error {
	for k, v := range q {
		switch {
		case k == "sentinel_username" && u.Kind == Sentinel:
			u.SentinelUser = v[0]
		case k == "sentinel_password" && u.Kind == Sentinel:
			u.SentinelPassword = v[0]
		default:
			return fmt.Errorf("unknown parameter %q", k)
		}
	}
	return nil
}

// CheckPrefix refuses a cluster key prefix that holds a brace: roost sets
// the Redis Cluster hash tags itself, and a prefix's braces would take
// every key to one slot.
func CheckPrefix(prefix string) error {
	if strings.ContainsAny(prefix, "{}") {
		return errors.New("must not hold '{' or '}' (roost sets the Redis Cluster hash tags itself)")
	}
	return nil
}
