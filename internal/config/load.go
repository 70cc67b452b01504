package config

import (
	"fmt"
	"os"
)

// Load builds the server's Config: the YAML file at path (none if path is
// ""), then the ROOST_* variables in environ (as os.Environ returns them),
// then defaults for whatever is still zero, then validation of the whole.
// Every error names the setting at fault; see FieldError.
func Load(path string, environ []string) (Config, error) {
	var data []byte
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return Config{}, fmt.Errorf("config: %w", err)
		}
	}
	return Parse(data, environ)
}

// Parse is Load for a file already in memory (data may be nil): it lets
// tests and embedders build a Config from a YAML string without a file.
func Parse(data []byte, environ []string) (Config, error) {
	var c Config
	if err := decodeYAML(data, &c); err != nil {
		return Config{}, err
	}
	if err := applyEnv(&c, environ); err != nil {
		return Config{}, err
	}
	c.applyDefaults()
	if err := c.validate(); err != nil {
		return Config{}, err
	}
	c.buildIndex()
	return c, nil
}
