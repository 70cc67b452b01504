package testutil

import (
	"context"
	"crypto/rand"
	"database/sql"
	_ "embed" // soketi's schemas
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// The databases the tests use, at their standard ports on this machine and
// in CI: PostgreSQL as user postgres with trust authentication, MariaDB as
// root without a password.
const (
	PostgresAddr = "127.0.0.1:5432"
	MariaDBAddr  = "127.0.0.1:3306"
)

// TestDB is a database created for one test and dropped when it ends.
type TestDB struct {
	// URL is what roost's app_store.url takes.
	URL string
	// DB is a connection pool to it, for the test's own statements.
	DB *sql.DB
	// Postgres is true for PostgreSQL, false for MariaDB.
	Postgres bool
}

// NewPostgres creates a database with a random name on the local
// PostgreSQL; without one the test skips (fails in CI).
func NewPostgres(t testing.TB) *TestDB {
	t.Helper()
	url := func(name string) string {
		return "postgres://postgres@" + PostgresAddr + "/" + name + "?sslmode=disable"
	}
	return newTestDB(t, "pgx", url("postgres"), url, url)
}

// NewMariaDB creates a database with a random name on the local MariaDB;
// without one the test skips (fails in CI).
func NewMariaDB(t testing.TB) *TestDB {
	t.Helper()
	return newTestDB(t, "mysql", "root@tcp("+MariaDBAddr+")/",
		func(name string) string { return "root@tcp(" + MariaDBAddr + ")/" + name },
		func(name string) string { return "mysql://root@" + MariaDBAddr + "/" + name })
}

// newTestDB creates database roost_test_<random> through admin, opens it
// with dsn(name) and names it to roost with url(name).
func newTestDB(t testing.TB, driver, admin string, dsn, url func(string) string) *TestDB {
	t.Helper()
	root, err := sql.Open(driver, admin)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := root.PingContext(ctx); err != nil {
		root.Close()
		Needs(t, "%s at its standard port (%v)", driver, err)
	}
	var b [6]byte
	rand.Read(b[:])
	name := "roost_test_" + hex.EncodeToString(b[:])
	if _, err := root.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		root.Close()
		t.Fatalf("create database: %v", err)
	}
	db, err := sql.Open(driver, dsn(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		drop := "DROP DATABASE IF EXISTS " + name
		if driver == "pgx" {
			drop += " WITH (FORCE)"
		}
		if _, err := root.Exec(drop); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		root.Close()
	})
	return &TestDB{URL: url(name), DB: db, Postgres: driver == "pgx"}
}

// Exec runs one statement or fails the test.
func (d *TestDB) Exec(t testing.TB, query string, args ...any) {
	t.Helper()
	if _, err := d.DB.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// The apps table as soketi's documentation defines it for PostgreSQL and
// for MySQL (docs.soketi.app, "App Management", "SQL Drivers"), named apps.
// The end-to-end suite reads the same files.
var (
	//go:embed testdata/soketi_postgres.sql
	soketiPostgres string
	//go:embed testdata/soketi_mysql.sql
	soketiMySQL string
)

// SoketiSchema returns soketi's apps table for PostgreSQL or MySQL, named
// table instead of apps.
func SoketiSchema(postgres bool, table string) string {
	if postgres {
		return strings.Replace(soketiPostgres, " apps (", " "+table+" (", 1)
	}
	return strings.Replace(soketiMySQL, " `apps` (", " `"+table+"` (", 1)
}

// InsertSoketiApp inserts an app the way soketi's own test fixture does:
// every limit -1 (none), webhooks an empty list.
func (d *TestDB) InsertSoketiApp(t testing.TB, table, id, key, secret string, maxConnections int) {
	t.Helper()
	q := "INSERT INTO " + table + ` (id, ` + d.Quote("key") + `, secret, max_connections, enable_client_messages, ` +
		d.Quote("enabled") + `, max_backend_events_per_sec, max_client_events_per_sec, max_read_req_per_sec,
		webhooks, enable_user_authentication) VALUES (` + d.Params(4) + `, 1, 1, -1, -1, -1, '[]', 0)`
	d.Exec(t, q, id, key, secret, maxConnections)
}

// Quote quotes an identifier for the database.
func (d *TestDB) Quote(name string) string {
	if d.Postgres {
		return `"` + name + `"`
	}
	return "`" + name + "`"
}

// Params returns the database's placeholders for n parameters: $1, $2, ...
// or ?, ?, ...
func (d *TestDB) Params(n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = "?"
		if d.Postgres {
			ps[i] = "$" + strconv.Itoa(i+1)
		}
	}
	return strings.Join(ps, ", ")
}
