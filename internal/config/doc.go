// Package config defines the one Config struct that every roost component
// is built from, and loads it so that a bad setting stops the server with an
// error naming the field and where its value came from, rather than
// surfacing later as odd behaviour.
//
// Sources, in rising precedence: built-in defaults, an optional YAML file,
// ROOST_* environment variables, then command-line flags. roost starts with
// no configuration at all; a file or variables serve real deployments.
//
// Each setting is declared once, as a struct field whose tags give its YAML
// key, variable, flag, default, checks and help (schema.go lists the tags). Everything
// else is generated from that declaration: reading the file, the variables
// and the flags, applying defaults, validating, the example file Example
// returns, the variable list EnvUsage writes and the Markdown table of
// settings in the README. Adding a setting is adding a field.
//
// A loaded Config is read-only: it is safe for concurrent use by any number
// of goroutines as long as nobody modifies it.
package config
