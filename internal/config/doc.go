// Package config defines the one Config struct that every roost component
// is built from, and loads it so that a bad setting stops the server with an
// error naming the field, rather than surfacing later as odd behaviour.
//
// Sources, in rising precedence: built-in defaults, an optional YAML file,
// then ROOST_* environment variables (docs/design.md, "Zero-config start":
// nothing needed to try roost, a file or env vars for real deployments).
// Defaults are applied in one place (applyDefaults) after both sources, and
// the result is validated as a whole. Every field documents its unit and
// what its zero value means; Example is a commented file that Load accepts.
//
// A loaded Config is read-only: it is safe for concurrent use by any number
// of goroutines as long as nobody modifies it.
package config
