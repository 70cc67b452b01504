package deploy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// notFromRoost are series the files may use that roost does not serve.
var notFromRoost = map[string]string{
	"up": "recorded by Prometheus for every scrape target",
}

// expectedLater are metrics the alert rules already use for features being
// built; a test fails once roost serves one, so it moves out of this list.
var expectedLater = map[string]string{}

const (
	dashboardFile = "deploy/grafana/roost-dashboard.json"
	alertsFile    = "deploy/prometheus/alerts.yaml"
)

// alertRules is a Prometheus rule file, decoded strictly.
type alertRules struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

// dashboardQueries returns every PromQL expression of the Grafana
// dashboard: panel targets and template variable queries.
func dashboardQueries(t *testing.T) []string {
	t.Helper()
	var d struct {
		Panels []struct {
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Type       string `json:"type"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(readRepoFile(t, dashboardFile), &d); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, p := range d.Panels {
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("dashboard panel of type %s has no query", p.Type)
		}
		for _, q := range p.Targets {
			exprs = append(exprs, q.Expr)
		}
	}
	for _, v := range d.Templating.List {
		if v.Type == "query" {
			exprs = append(exprs, v.Definition)
		}
	}
	return exprs
}

// alertQueries returns every alert's expression, checking that each alert
// says how severe it is and what happened.
func alertQueries(t *testing.T) []string {
	t.Helper()
	var exprs []string
	for _, g := range yamlDocs[alertRules](t, alertsFile)[0].Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("alert %q: want a name, labels.severity and annotations.summary", r.Alert)
			}
			exprs = append(exprs, r.Expr)
		}
	}
	return exprs
}

var (
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping  = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent     = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promFunctions = regexp.MustCompile(`[a-zA-Z_][a-zA-Z0-9_]*\s*\(`)
	promKeywords  = []string{"and", "or", "unless", "bool", "offset", "inf", "nan"}
)

// metricNames returns the metric names a PromQL expression (or a Grafana
// label_values(metric, label) query) reads: identifiers that are not
// functions, keywords, label names in matchers or groupings, or strings.
func metricNames(expr string) []string {
	if m := regexp.MustCompile(`^label_values\((\w+),`).FindStringSubmatch(expr); m != nil {
		return []string{m[1]}
	}
	s := promStrings.ReplaceAllString(expr, `""`)
	s = promMatchers.ReplaceAllString(s, " ")
	s = promRanges.ReplaceAllString(s, " ")
	s = promGrouping.ReplaceAllString(s, " ")
	s = promFunctions.ReplaceAllString(s, "(")
	var names []string
	for _, id := range promIdent.FindAllString(s, -1) {
		if !slices.Contains(promKeywords, strings.ToLower(id)) {
			names = append(names, id)
		}
	}
	return names
}

func TestMetricNamesParser(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{`sum by (instance, transport) (roost_connections{instance=~"$instance"})`, []string{"roost_connections"}},
		{`rate(x_total{a="b"}[$__rate_interval]) and on (instance) roost_build_info`, []string{"x_total", "roost_build_info"}},
		{`count(roost_cluster_up == 0) or vector(0)`, []string{"roost_cluster_up"}},
		{`process_open_fds{job="roost"} / process_max_fds{job="roost"} > 0.8`, []string{"process_open_fds", "process_max_fds"}},
		{`label_values(roost_build_info, instance)`, []string{"roost_build_info"}},
	}
	for _, tt := range tests {
		if got := metricNames(tt.expr); !slices.Equal(got, tt.want) {
			t.Errorf("metricNames(%q) = %q, want %q", tt.expr, got, tt.want)
		}
	}
}

// scrapeNames returns the names a roost cluster node exposes on /metrics,
// from its "# TYPE" lines, histograms and summaries by the series they
// have.
func scrapeNames(t *testing.T) map[string]bool {
	t.Helper()
	needRedis(t, "127.0.0.1:6379")
	cfg := loadConfig(t, "scrape", []string{"ROOST_REDIS_URL=redis://127.0.0.1:6379/0",
		fmt.Sprintf("ROOST_REDIS_PREFIX=deploymetrics%d", os.Getpid()),
		// An app with a webhook, so that the per-app webhook series exist;
		// nothing happens on the node, so nothing is sent to the URL.
		"ROOST_APP_ID=app-id", "ROOST_APP_KEY=app-key", "ROOST_APP_SECRET=app-secret",
		"ROOST_APP_WEBHOOK_URL=http://127.0.0.1:9/hooks"})
	code, body := get(t, startRoost(t, cfg)+"/metrics")
	if code != 200 {
		t.Fatalf("GET /metrics: %d", code)
	}
	names := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[1] != "TYPE" {
			continue
		}
		switch f[3] {
		case "histogram": // only its series: the name alone reads nothing
			names[f[2]+"_bucket"], names[f[2]+"_sum"], names[f[2]+"_count"] = true, true, true
		case "summary": // the name is its quantiles
			names[f[2]], names[f[2]+"_sum"], names[f[2]+"_count"] = true, true, true
		default:
			names[f[2]] = true
		}
	}
	return names
}

// TestDashboardAndAlertsUseRealMetrics checks that every metric the Grafana
// dashboard and the alert rules read is served by a running roost cluster
// node (Redis at its standard port), and that the dashboard shows every
// roost_* metric there is.
func TestDashboardAndAlertsUseRealMetrics(t *testing.T) {
	served := scrapeNames(t)
	used := map[string][]string{}
	for file, exprs := range map[string][]string{dashboardFile: dashboardQueries(t), alertsFile: alertQueries(t)} {
		for _, e := range exprs {
			names := metricNames(e)
			if len(names) == 0 {
				t.Errorf("%s: %q reads no metric", file, e)
			}
			for _, n := range names {
				used[n] = append(used[n], file)
			}
		}
	}
	for name, files := range used {
		switch {
		case served[name] && expectedLater[name] != "":
			t.Errorf("roost now serves %s: remove it from expectedLater", name)
		case served[name], notFromRoost[name] != "", expectedLater[name] != "":
		default:
			t.Errorf("%s reads %s, which roost does not serve", strings.Join(slices.Compact(slices.Sorted(slices.Values(files))), ", "), name)
		}
	}
	for name := range served {
		if !strings.HasPrefix(name, "roost_") {
			continue
		}
		if !slices.Contains(used[name], dashboardFile) {
			t.Errorf("roost serves %s but %s has no panel for it", name, dashboardFile)
		}
	}
}
