package config

import (
	"fmt"
	"os"
	"reflect"
)

// Load builds the server's Config: the YAML file at path (none if path is
// ""), then the ROOST_* variables in environ (as os.Environ returns them),
// then the command-line flags (nil for none), then defaults for whatever is
// still unset, then validation of the whole. Every error names the setting
// at fault and where its value came from; see FieldError.
func Load(path string, environ []string, flags *Flags) (Config, error) {
	var data []byte
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return Config{}, fmt.Errorf("config: %w", err)
		}
	}
	return load(path, data, environ, flags)
}

// Parse is Load for a file already in memory (data may be nil) and no
// flags: it lets tests and embedders build a Config from a YAML string.
func Parse(data []byte, environ []string) (Config, error) {
	return load("", data, environ, nil)
}

// load reads the sources in rising precedence. A source that cannot be read
// stops the load with all of its problems; validation reports every problem
// of the result, each named by the source its value came from.
func load(file string, data []byte, environ []string, flags *Flags) (Config, error) {
	var c Config
	root := reflect.ValueOf(&c).Elem()
	o := origins{}
	yr := yamlReader{file: file, origins: o}
	if err := yr.decode(data, schema(), root); err != nil {
		return Config{}, err
	}
	env, warnings := envSource(environ, o)
	for _, src := range []*textSource{env, flags.source(o)} {
		if src.apply(schema(), root, ""); src.err() != nil {
			return Config{}, src.err()
		}
	}
	c.Warnings = warnings
	c.applyDefaults()
	if err := c.validate(); err != nil {
		return Config{}, o.annotate(err)
	}
	c.buildIndex()
	return c, nil
}
