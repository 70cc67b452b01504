package admin

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/apps"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

const token = "test-token-0123456789"

// newAPI serves the admin API over the apps of yaml and, if url is set, a
// database.
func newAPI(t *testing.T, yaml, url string) *httptest.Server {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AppStore.URL = url
	log := slog.New(slog.DiscardHandler)
	src, err := apps.New(&cfg, log, apps.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(token, src, log))
	t.Cleanup(func() {
		srv.Close()
		src.Close()
	})
	return srv
}

// call sends one request with the token and returns the status and body.
func call(t *testing.T, srv *httptest.Server, method, path, body string) (int, string) {
	t.Helper()
	return callAs(t, srv, "Bearer "+token, method, path, body)
}

func callAs(t *testing.T, srv *httptest.Server, auth, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func expect(t *testing.T, what string, status int, body string, wantStatus int, wantBody string) {
	t.Helper()
	if status != wantStatus || !strings.Contains(body, wantBody) {
		t.Errorf("%s: %d %q, want %d and %q", what, status, body, wantStatus, wantBody)
	}
}

func TestTokenIsRequired(t *testing.T) {
	srv := newAPI(t, "", "")
	for _, auth := range []string{"", "Bearer wrong-token-0123456789", "Basic " + token, token} {
		status, body := callAs(t, srv, auth, "GET", "/admin/apps", "")
		expect(t, "Authorization: "+auth, status, body, http.StatusUnauthorized, "admin token")
	}
}

func TestFileAppsAreReadOnly(t *testing.T) {
	srv := newAPI(t, "", "")
	status, body := call(t, srv, "GET", "/admin/apps", "")
	expect(t, "list", status, body, http.StatusOK, `"id":"app-id"`)
	if strings.Contains(body, "app-secret") {
		t.Errorf("list shows a secret: %s", body)
	}
	status, body = call(t, srv, "POST", "/admin/apps", `{"id":"new"}`)
	expect(t, "create", status, body, http.StatusForbidden, "read-only")
	status, body = call(t, srv, "DELETE", "/admin/apps/app-id", "")
	expect(t, "delete", status, body, http.StatusForbidden, "read-only")
}

func TestManageAppsThroughTheAPI(t *testing.T) {
	for _, newDB := range []func(testing.TB) *testutil.TestDB{testutil.NewPostgres, testutil.NewMariaDB} {
		db := newDB(t)
		db.Exec(t, testutil.SoketiSchema(db.Postgres, "apps"))
		srv := newAPI(t, "apps:\n  - {id: file-app, key: file-key, secret: s}\n", db.URL)

		status, body := call(t, srv, "POST", "/admin/apps", `{"id":"shop","client_events":true,"max_connections":50}`)
		expect(t, "create", status, body, http.StatusCreated, `"id":"shop"`)
		var made config.App
		json.Unmarshal([]byte(body), &made)
		if len(made.Secret) != 40 || len(made.Key) != 20 {
			t.Errorf("generated key %q and secret %q, want 20 and 40 hex digits", made.Key, made.Secret)
		}
		status, body = call(t, srv, "GET", "/admin/apps/shop", "")
		expect(t, "get", status, body, http.StatusOK, `"max_connections":50`)
		if strings.Contains(body, made.Secret) || strings.Contains(body, "secret") {
			t.Errorf("the secret is returned after creation: %s", body)
		}
		status, body = call(t, srv, "POST", "/admin/apps", `{"id":"sized","max_presence_user_info":1500}`)
		expect(t, "create with a user info size in bytes", status, body, http.StatusCreated, `"max_presence_user_info":2048`)

		for _, tt := range []struct{ body, want string }{
			{`{"id":"bad id"}`, `config: id: "bad id" may only hold`},
			{`{"id":"x","max_connections":-1}`, "config: max_connections: must be >= 0"},
			{`{"id":"x","colour":"red"}`, `unknown field "colour"`},
			{`{"id":"x","subscription_count":true}`, "no column"},
		} {
			status, body = call(t, srv, "POST", "/admin/apps", tt.body)
			expect(t, "create "+tt.body, status, body, http.StatusBadRequest, tt.want)
		}
		status, body = call(t, srv, "POST", "/admin/apps", `{"id":"file-app"}`)
		expect(t, "create over a file app", status, body, http.StatusConflict, "taken")
		status, body = call(t, srv, "POST", "/admin/apps", `{"id":"shop"}`)
		expect(t, "create twice", status, body, http.StatusConflict, "taken")

		status, body = call(t, srv, "PUT", "/admin/apps/shop", `{"key":"`+made.Key+`","enabled":false}`)
		expect(t, "disable", status, body, http.StatusOK, `"enabled":false`)
		status, body = call(t, srv, "GET", "/admin/apps?limit=1", "")
		expect(t, "list", status, body, http.StatusOK, `"next":"shop"`)
		status, body = call(t, srv, "DELETE", "/admin/apps/shop", "")
		expect(t, "delete", status, body, http.StatusNoContent, "")
		status, body = call(t, srv, "GET", "/admin/apps/shop", "")
		expect(t, "get deleted", status, body, http.StatusNotFound, "no such app")
		status, body = call(t, srv, "PUT", "/admin/apps/file-app", `{"key":"file-key","secret":"x"}`)
		expect(t, "change a file app", status, body, http.StatusConflict, "taken")
	}
}
