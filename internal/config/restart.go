package config

import (
	"reflect"
)

// liveSection is the one section a running node takes over from a
// configuration loaded again (SIGHUP): the apps, with their own limits,
// origins and webhooks. Every other setting is read once at start.
const liveSection = "apps"

// RestartNeeded returns the settings, by path ("limits.max_connections"),
// whose value differs between the configuration a node runs with and one
// loaded again: they take effect only at the next start. The apps are not
// among them; a reload applies those.
func RestartNeeded(running, loaded *Config) []string {
	var paths []string
	diff(schema(), reflect.ValueOf(running).Elem(), reflect.ValueOf(loaded).Elem(), &paths)
	return paths
}

// diff appends the paths of the settings of fields that differ between the
// sections a and b.
func diff(fields []*field, a, b reflect.Value, paths *[]string) {
	for _, f := range fields {
		x, y := a.Field(f.index), b.Field(f.index)
		switch {
		case f.path == liveSection:
		case f.list == nil && !f.isSetting():
			diff(f.fields, x, y, paths)
		case !reflect.DeepEqual(x.Interface(), y.Interface()):
			*paths = append(*paths, f.path)
		}
	}
}
