package config

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// exampleHeader opens the file Example prints.
const exampleHeader = `# roost configuration: roost serve --config roost.yaml
#
# Every setting is optional: leave one out, or empty, to get the default
# shown here. The ROOST_* variable named beside a setting overrides this
# file, and its flag, if it has one, overrides both. Durations are Go
# durations ("120s", "2m"); sizes are bytes, or text with a unit: "64KB"
# (x1000), "64KiB" (x1024), "1MB", "1MiB", "1GB", "1GiB".
`

// Example returns a complete, commented configuration file, generated from
// the settings' tags: every setting with its help, variable, flag and
// default. A list shows one entry, whose settings without a default show
// their example. `roost serve --print-config` prints it; it loads as the
// defaults, but for that entry.
func Example() string {
	var w exampleWriter
	w.b.WriteString(exampleHeader)
	w.fields(schema(), "", false)
	return w.b.String()
}

// exampleWriter builds the text of Example.
type exampleWriter struct {
	b strings.Builder
}

// fields writes the settings and sections under fields, their keys at
// column indent. entry starts a list entry: the first key follows "- ".
func (w *exampleWriter) fields(fields []*field, indent string, entry bool) {
	for i, f := range fields {
		first := entry && i == 0
		lead := indent
		if first {
			lead = indent[:len(indent)-2] + "- "
		}
		if indent == "" || (!f.isSetting() && !first) {
			w.b.WriteByte('\n')
		}
		w.field(f, indent, lead)
	}
}

// field writes one setting, section or list with its comment, its key at
// column indent after lead (indent, or a list entry's "- ").
func (w *exampleWriter) field(f *field, indent, lead string) {
	w.comment(indent, f)
	switch {
	case f.list != nil:
		w.b.WriteString(lead + f.key + ":\n")
		w.fields(f.fields, indent+"    ", true)
	case !f.isSetting():
		w.b.WriteString(lead + f.key + ":\n")
		w.fields(f.fields, indent+"  ", false)
	default:
		w.b.WriteString(lead + f.key + ": " + exampleValue(f) + "\n")
	}
}

// comment writes f's help, and its variable and flag, as comment lines.
func (w *exampleWriter) comment(indent string, f *field) {
	text := f.help
	if names := sourceNames(f); names != "" {
		text += " (" + names + ")"
	}
	for _, line := range wrap(text, 79-len(indent)-2) {
		w.b.WriteString(indent + "# " + line + "\n")
	}
}

// sourceNames lists a setting's variable and flag: "ROOST_ADDR, --addr".
func sourceNames(f *field) string {
	names := f.env
	if f.flag != "" {
		names += ", --" + f.flag
	}
	return names
}

// exampleValue is a setting's value in Example: its example, else its
// default, as YAML.
func exampleValue(f *field) string {
	text := f.example
	if text == "" {
		text = f.def
	}
	switch f.kind {
	case stringKind:
		return yamlScalar(text)
	case listKind:
		items, _ := textList(text)
		quoted := make([]string, 0)
		for _, item := range items.([]string) {
			quoted = append(quoted, yamlScalar(item))
		}
		return "[" + strings.Join(quoted, ", ") + "]"
	}
	return text
}

// yamlScalar writes s as YAML reads it back as the same string: quoted
// only when it must be ("", "0123", "true").
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		panic(err) // a string always marshals
	}
	return strings.TrimSuffix(string(out), "\n")
}

// wrap breaks text into lines of at most width bytes, at spaces; a word
// longer than width gets a line of its own.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(lines, line)
}
