package config

import (
	"flag"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestEverySettingHasItsOwnVariable(t *testing.T) {
	seen := make(map[string]string)
	for _, f := range settings(schema()) {
		if !strings.HasPrefix(f.env, envPrefix) || strings.ToUpper(f.env) != f.env {
			t.Errorf("%s: variable %q is not an upper-case ROOST_ name", f.path, f.env)
		}
		if other, dup := seen[f.env]; dup {
			t.Errorf("%s and %s share %s", f.path, other, f.env)
		}
		seen[f.env] = f.path
	}
	if len(seen) < 29 {
		t.Errorf("%d settings found, want at least the 29 roost had when this test was written", len(seen))
	}
}

func TestListVariablesShareAPrefix(t *testing.T) {
	// ROOST_APP_* define one app: no setting outside apps may look like one.
	for _, f := range settings(schema()) {
		inApps := strings.HasPrefix(f.path, "apps[].")
		if inApps != strings.HasPrefix(f.env, "ROOST_APP_") {
			t.Errorf("%s: variable %s", f.path, f.env)
		}
	}
}

func TestFlagsAreTopLevelAndUnique(t *testing.T) {
	seen := make(map[string]bool)
	for _, f := range settings(schema()) {
		if f.flag == "" {
			continue
		}
		if strings.Contains(f.path, "[]") {
			t.Errorf("%s: a setting inside a list cannot have a flag", f.path)
		}
		if seen[f.flag] || strings.ToLower(f.flag) != f.flag || strings.ContainsAny(f.flag, "_ ") {
			t.Errorf("%s: flag %q is repeated or not kebab-case", f.path, f.flag)
		}
		seen[f.flag] = true
	}
	for _, name := range []string{"addr", "transport", "tls-cert", "tls-key", "redis-url", "redis-prefix"} {
		if !seen[name] {
			t.Errorf("flag --%s is gone", name)
		}
	}
}

func TestDefaultsAndExamplesPassTheirChecks(t *testing.T) {
	for _, f := range settings(schema()) {
		for _, text := range []string{f.def, f.example} {
			if text == "" {
				continue
			}
			v, err := f.kind.text(text)
			if err != nil {
				t.Errorf("%s: %q does not parse: %v", f.path, text, err)
				continue
			}
			for _, r := range f.rules {
				if err := r(v); err != nil && !(f.key == "loops" && text == "0") {
					t.Errorf("%s: %q fails its check: %v", f.path, text, err)
				}
			}
		}
	}
}

func TestEverySettingHasHelp(t *testing.T) {
	for _, f := range settings(schema()) {
		if len(f.help) < 10 || strings.Contains(f.help, "\n") {
			t.Errorf("%s: help %q is not one useful line", f.path, f.help)
		}
	}
}

// Types whose tags the schema must refuse.
type (
	noYAML struct {
		A string `env:"ROOST_A" default:"" help:"a"`
	}
	noEnv struct {
		A string `yaml:"a" default:"" help:"a"`
	}
	noDefault struct {
		A string `yaml:"a" env:"ROOST_A" help:"a"`
	}
	notRoost struct {
		A string `yaml:"a" env:"A" default:"" help:"a"`
	}
	badDefault struct {
		A int `yaml:"a" env:"ROOST_A" default:"many" help:"a"`
	}
	trueBool struct {
		A bool `yaml:"a" env:"ROOST_A" default:"true" help:"a"`
	}
	unknownCheck struct {
		A int `yaml:"a" env:"ROOST_A" default:"1" check:"prime" help:"a"`
	}
	unknownType struct {
		A float64 `yaml:"a" env:"ROOST_A" default:"1" help:"a"`
	}
	sectionNoHelp struct {
		S struct {
			A string `yaml:"a" env:"ROOST_A" default:"" help:"a"`
		} `yaml:"s"`
	}
)

func TestSchemaRefusesIncompleteTags(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[noYAML](), reflect.TypeFor[noEnv](), reflect.TypeFor[noDefault](),
		reflect.TypeFor[notRoost](), reflect.TypeFor[badDefault](), reflect.TypeFor[trueBool](),
		reflect.TypeFor[unknownCheck](), reflect.TypeFor[unknownType](), reflect.TypeFor[sectionNoHelp](),
	} {
		t.Run(typ.Name(), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("structFields(%s) did not panic", typ.Name())
				}
			}()
			structFields(typ, "")
		})
	}
}

// The settings the next features need, declared as they would be, to show
// each is one line: a list of strings (allowed_origins), a per-app setting,
// and a list of sections inside each app (webhooks).
type (
	futureConfig struct {
		Origins []string    `yaml:"allowed_origins" env:"ROOST_ALLOWED_ORIGINS" flag:"allowed-origins" default:"*" help:"origins allowed to connect"`
		Apps    []futureApp `yaml:"apps" help:"apps"`
	}
	futureApp struct {
		ID       string          `yaml:"id" env:"ROOST_APP_ID" default:"" check:"name,unique" help:"app id"`
		Rate     int             `yaml:"rate" env:"ROOST_APP_RATE" default:"10" check:"positive" help:"events per second"`
		Webhooks []futureWebhook `yaml:"webhooks" help:"webhooks"`
	}
	futureWebhook struct {
		URL    string   `yaml:"url" env:"ROOST_APP_WEBHOOK_URL" default:"" check:"required,unique" help:"where to POST"`
		Events []string `yaml:"event_types" env:"ROOST_APP_WEBHOOK_EVENTS" default:"" help:"event types; empty means all"`
	}
)

// loadFuture runs every source and step of Load over futureConfig.
func loadFuture(t *testing.T, yaml string, environ []string, args ...string) (futureConfig, error) {
	t.Helper()
	fields := structFields(reflect.TypeFor[futureConfig](), "")
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	flags := registerFlags(fs, fields)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	var c futureConfig
	root, o := reflect.ValueOf(&c).Elem(), origins{}
	yr := yamlReader{origins: o}
	if err := yr.decode([]byte(yaml), fields, root); err != nil {
		return c, err
	}
	env, _ := envSource(environ, o)
	for _, src := range []*textSource{env, flags.source(o)} {
		if src.apply(fields, root, ""); src.err() != nil {
			return c, src.err()
		}
	}
	fillDefaults(fields, root)
	var v validator
	v.section(fields, root, "")
	if len(v.errs) > 0 {
		return c, o.annotate(v.errs[0])
	}
	return c, nil
}

func TestListsAndNestedListsFit(t *testing.T) {
	yaml := `
allowed_origins: [https://a.example, https://b.example]
apps:
  - id: a
    webhooks:
      - url: https://hooks.example/1
        event_types: [channel_occupied]
      - url: https://hooks.example/2
  - id: b
    rate: 5
`
	c, err := loadFuture(t, yaml, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := futureConfig{
		Origins: []string{"https://a.example", "https://b.example"},
		Apps: []futureApp{
			{ID: "a", Rate: 10, Webhooks: []futureWebhook{
				{URL: "https://hooks.example/1", Events: []string{"channel_occupied"}},
				{URL: "https://hooks.example/2"}}},
			{ID: "b", Rate: 5},
		},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
}

func TestNestedListFromEnvAndFlags(t *testing.T) {
	c, err := loadFuture(t, "apps: [{id: file}]\n",
		[]string{"ROOST_APP_ID=env", "ROOST_APP_WEBHOOK_URL=https://h", "ROOST_APP_WEBHOOK_EVENTS=member_added, member_removed",
			"ROOST_ALLOWED_ORIGINS=https://env.example"},
		"--allowed-origins=https://flag.example,https://two.example")
	if err != nil {
		t.Fatal(err)
	}
	want := futureConfig{
		Origins: []string{"https://flag.example", "https://two.example"},
		Apps: []futureApp{{ID: "env", Rate: 10, Webhooks: []futureWebhook{
			{URL: "https://h", Events: []string{"member_added", "member_removed"}}}}},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
}

func TestNestedListErrorsNameTheFullPath(t *testing.T) {
	tests := []struct {
		yaml string
		env  []string
		want string
	}{
		{"apps:\n  - id: a\n    webhooks:\n      - url: u\n      - event_types: x\n", nil,
			`config: apps[0].webhooks[1].event_types (line 5): expected a list, got "x"`},
		{"apps:\n  - id: a\n    webhooks:\n      - url: u\n      - url: u\n", nil,
			`config: apps[0].webhooks[1].url (line 5): "u" is also apps[0].webhooks[0].url`},
		{"apps:\n  - id: a\n    webhooks:\n      - event_types: []\n", nil,
			"config: apps[0].webhooks[0].url (line 4): must not be empty"},
		{"", []string{"ROOST_APP_ID=a", "ROOST_APP_WEBHOOK_EVENTS=x"},
			"config: apps[0].webhooks[0].url (ROOST_APP_WEBHOOK_URL): must not be empty"},
		{"", []string{"ROOST_APP_RATE=fast"}, `config: apps[0].rate (ROOST_APP_RATE): invalid integer "fast"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := loadFuture(t, tt.yaml, tt.env)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v\nwant %s", err, tt.want)
			}
		})
	}
}

func ExampleFieldError() {
	_, err := Parse([]byte("apps:\n  - id: a\n    key: k\n    secret: s\n    max_connections: lots\n"), nil)
	fmt.Println(err)
	_, err = Parse(nil, []string{"ROOST_APP_ID=a", "ROOST_APP_KEY=k"})
	fmt.Println(err)
	// Output:
	// config: apps[0].max_connections (line 5): invalid integer "lots"
	// config: apps[0].secret (ROOST_APP_SECRET): must not be empty
}
