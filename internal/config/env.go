package config

import "strings"

// envPrefix marks the environment variables Load reads. A variable with
// this prefix that names no setting is reported in Config.Warnings rather
// than refused: platforms set such variables themselves (Kubernetes gives
// every pod ROOST_PORT, ROOST_SERVICE_HOST... for a Service named "roost"),
// and a server must not refuse to start because of them.
const envPrefix = "ROOST_"

// envSource returns the ROOST_* variables of environ ("NAME=value" entries,
// as os.Environ returns them), and warnings for those that are no setting.
// As with os.Getenv, the first entry for a name wins.
func envSource(environ []string, o origins) (*textSource, []string) {
	values := make(map[string]string)
	var warnings []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if _, dup := values[name]; !ok || !strings.HasPrefix(name, envPrefix) || dup {
			continue
		}
		values[name] = value
		if !envNames()[name] {
			warnings = append(warnings, name+" is not a roost setting and was ignored")
		}
	}
	src := &textSource{values: values, origins: o,
		name:  func(f *field) string { return f.env },
		label: func(name string) string { return name }}
	return src, warnings
}
