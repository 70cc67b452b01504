// Package layout holds no code: its tests enforce the repository's structure
// (docs/design.md, "Import rules"): every package says what it is for, and
// the leaf packages (codec, protocol, signatures, timing wheel, connection
// counters) import no other internal package, so the data flow stays readable
// from the folder names.
package layout
