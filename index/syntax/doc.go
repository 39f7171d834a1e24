// Package syntax parses source files with tree-sitter and extracts what the
// index needs from each: [Symbol]s, [Import]s and referenced identifiers,
// gathered in a [File].
//
// The package knows nothing about the workspace or LSP: it maps bytes to a
// [File]. Resolution of imports to workspace files lives in the index.
package syntax
