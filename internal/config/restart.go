package config

import (
	"reflect"
)

// liveSection is the one section a running node takes over whole from a
// configuration loaded again (SIGHUP): the apps, with their own limits,
// origins and webhooks. Besides it, the settings tagged reload:"live" apply
// on a reload; every other setting is read once at start.
const liveSection = "apps"

// liveHelp ends the help of a setting a reload applies.
const liveHelp = "; SIGHUP applies a change to new connections and requests"

// RestartNeeded returns the settings, by path ("limits.max_connections"),
// whose value differs between the configuration a node runs with and one
// loaded again: they take effect only at the next start. The apps and the
// settings tagged reload:"live" are not among them; a reload applies those.
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
		case f.path == liveSection || f.live:
		case f.list == nil && !f.isSetting():
			diff(f.fields, x, y, paths)
		case !reflect.DeepEqual(x.Interface(), y.Interface()):
			*paths = append(*paths, f.path)
		}
	}
}

// WithLive returns running with the settings tagged reload:"live" taken
// from loaded: what a node applies on a reload, every other setting (the
// apps aside, which a reload takes whole) staying as it started.
func WithLive(running, loaded *Config) Config {
	out := *running
	takeLive(schema(), reflect.ValueOf(&out).Elem(), reflect.ValueOf(loaded).Elem())
	return out
}

// takeLive sets the live settings of section dst to those of src.
func takeLive(fields []*field, dst, src reflect.Value) {
	for _, f := range fields {
		switch {
		case f.live:
			dst.Field(f.index).Set(src.Field(f.index))
		case f.list == nil && !f.isSetting():
			takeLive(f.fields, dst.Field(f.index), src.Field(f.index))
		}
	}
}
