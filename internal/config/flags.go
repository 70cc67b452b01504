package config

import (
	"flag"
	"fmt"
)

// Flags holds the settings given as command-line flags. RegisterFlags
// declares them; Load applies them over the environment, so a flag beats
// its variable, which beats the file.
type Flags struct {
	values map[string]string // by flag name, as given
}

// RegisterFlags declares on fs a flag for each setting whose flag tag names
// one, and returns where their values are kept. A flag's value is only read
// by Load, so a bad one is reported like any setting: by its path and as
// "--name".
func RegisterFlags(fs *flag.FlagSet) *Flags {
	return registerFlags(fs, schema())
}

// registerFlags declares the flags of the settings under fields.
func registerFlags(fs *flag.FlagSet, fields []*field) *Flags {
	fl := &Flags{values: make(map[string]string)}
	for _, f := range settings(fields) {
		if f.flag != "" {
			fs.Var(flagValue{fl, f.flag}, f.flag, flagUsage(f))
		}
	}
	return fl
}

// flagUsage is a flag's line in `roost serve --help`.
func flagUsage(f *field) string {
	return fmt.Sprintf("%s (%s; %s, default %s)", f.help, f.path, f.env, docDefault(f))
}

// source returns the flags as a source of settings.
func (fl *Flags) source(o origins) *textSource {
	var values map[string]string
	if fl != nil {
		values = fl.values
	}
	return &textSource{values: values, origins: o,
		name:  func(f *field) string { return f.flag },
		label: func(name string) string { return "--" + name }}
}

// flagValue is one setting's flag.Value: it keeps the text for Load.
type flagValue struct {
	flags *Flags
	name  string
}

// String returns the value given, "" if none (flag.Value).
func (v flagValue) String() string {
	if v.flags == nil {
		return ""
	}
	return v.flags.values[v.name]
}

// Set keeps the value given (flag.Value).
func (v flagValue) Set(s string) error {
	v.flags.values[v.name] = s
	return nil
}
