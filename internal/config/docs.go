package config

import (
	"fmt"
	"io"
	"strings"
)

// Markdown returns a Markdown table of every setting: its YAML path,
// variable, flag, default and help. The README's configuration table is
// this output, and a test keeps it so.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| setting | variable | flag | default | meaning |\n|---|---|---|---|---|\n")
	for _, f := range settings(schema()) {
		flag := ""
		if f.flag != "" {
			flag = "`--" + f.flag + "`"
		}
		def := docDefault(f)
		if f.def != "" {
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s |\n", f.path, f.env, flag, def, strings.ReplaceAll(f.help, "|", `\|`))
	}
	return b.String()
}

// EnvUsage writes every ROOST_* variable with its default and help, for
// `roost serve --help`, in the layout flag.PrintDefaults uses.
func EnvUsage(w io.Writer) {
	for _, f := range settings(schema()) {
		names := f.path
		if f.flag != "" {
			names += ", --" + f.flag
		}
		fmt.Fprintf(w, "  %s (default %s)\n    \t%s [%s]\n", f.env, docDefault(f), f.help, names)
	}
}

// docDefault is a setting's default as the docs show it.
func docDefault(f *field) string {
	if f.def == "" {
		return "none"
	}
	return f.def
}
