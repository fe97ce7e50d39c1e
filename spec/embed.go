package spec

import (
	"embed"
	"io/fs"
)

// files is the spec pgspec was built with: every major's pgNN.json, the
// reviewed overlay, corrections and wire-change acknowledgements, and the
// JSON Schema, so that an installed binary needs nothing beside it.
//
//go:embed pg*.json overlay.json schema.json corrections.json wirechanges.json layers.json logicalversions.json flow.json flow.schema.json
var files embed.FS

// Embedded returns the spec directory compiled into the program, laid out
// as spec/ is (pgNN.json, overlay.json, corrections.json, …).
func Embedded() fs.FS { return files }
