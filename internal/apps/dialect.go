package apps

import (
	"database/sql"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// dialect is what differs between PostgreSQL and MySQL in the few queries
// roost sends: how identifiers are quoted and how parameters are written.
type dialect struct {
	name  string // "postgres" or "mysql", for logs
	quote byte   // '"' or '`'
	// dollar writes parameters as $1, $2 (PostgreSQL) rather than ?.
	dollar bool
}

var (
	postgres = dialect{name: "postgres", quote: '"', dollar: true}
	mysqlDB  = dialect{name: "mysql", quote: '`'}
)

// ident quotes a (config-checked) identifier, schema.table included, so
// column names such as key, reserved in MySQL, are safe.
func (d dialect) ident(name string) string {
	q := string(d.quote)
	return q + strings.ReplaceAll(name, ".", q+"."+q) + q
}

// param returns the n-th (from 1) query parameter.
func (d dialect) param(n int) string {
	if d.dollar {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}

// params returns the parameters from first to first+n-1, comma-separated.
func (d dialect) params(first, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(d.param(first + i))
	}
	return b.String()
}

// open connects to the database rawURL names, "postgres://..." or
// "mysql://...", each dial bounded by timeout. The pool reconnects by
// itself after an outage. pgCfg is the PostgreSQL configuration, for the
// LISTEN connection; nil for MySQL.
func open(rawURL string, timeout time.Duration) (*sql.DB, dialect, *pgx.ConnConfig, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, dialect{}, nil, fmt.Errorf("apps: app_store.url does not parse")
	}
	if u.Scheme == "mysql" {
		quietMySQL.Do(func() { mysql.SetLogger(debugLogger{}) })
		c, err := mysqlConfig(u, timeout)
		if err != nil {
			return nil, dialect{}, nil, err
		}
		conn, err := mysql.NewConnector(c)
		if err != nil {
			return nil, dialect{}, nil, fmt.Errorf("apps: mysql: %w", err)
		}
		return sql.OpenDB(conn), mysqlDB, nil, nil
	}
	c, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, dialect{}, nil, fmt.Errorf("apps: app_store.url: %w", err)
	}
	c.ConnectTimeout = timeout
	return stdlib.OpenDB(*c), postgres, c, nil
}

// mysqlConfig turns mysql://user:pass@host:port/db?param=value into the
// driver's configuration; the parameters are the driver's DSN parameters
// (tls=true, ...).
func mysqlConfig(u *url.URL, timeout time.Duration) (*mysql.Config, error) {
	c := mysql.NewConfig()
	c.User = u.User.Username()
	c.Passwd, _ = u.User.Password()
	c.Net = "tcp"
	c.Addr = u.Host
	if u.Port() == "" {
		c.Addr = net.JoinHostPort(u.Hostname(), "3306")
	}
	c.DBName = strings.TrimPrefix(u.Path, "/")
	c.Timeout, c.ReadTimeout, c.WriteTimeout = timeout, 2*timeout, 2*timeout
	if u.RawQuery == "" {
		return c, nil
	}
	dsn, sep := c.FormatDSN(), "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	c, err := mysql.ParseDSN(dsn + sep + u.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("apps: app_store.url parameters: %w", err)
	}
	return c, nil
}

// quietMySQL routes the MySQL driver's own messages (one per connection
// dropped in an outage, on standard error by default) to slog's debug
// level, once per process: the store logs outages itself, rate-limited.
var quietMySQL sync.Once

// debugLogger is mysql.Logger over slog.Default at debug level.
type debugLogger struct{}

// Print implements mysql.Logger.
func (debugLogger) Print(v ...any) { slog.Debug("mysql driver: " + fmt.Sprint(v...)) }
