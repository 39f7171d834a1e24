// Package relate builds the relation graph of one workspace root: which files
// a file imports and is imported by, which files define the names it uses
// and use the names it defines, which types a type extends, which config and
// build files govern it, and how many hops separate files. The context
// builder ranks candidate files with it.
//
// A [Graph] is built from a [Source] (the read-only view of the root's
// indexed files and their [syntax.File] extractions) by [Build], and derived
// for a few changed paths by [Graph.Update], which answers every query
// exactly as a fresh Build would. A Graph is immutable and safe for
// concurrent readers.
//
// # Layout
//
// Everything a file contributes is computed from the file alone plus the
// resolver configs of the root (go.mod, tsconfig.json / jsconfig.json,
// package.json, Cargo.toml): its import requests (ordered alternatives such
// as "the Go package in dir D" or "x.ts, else x.tsx, …"), the names it
// defines and references, the bases of its types. Whatever depends on other
// files (does a candidate exist, which files form a package or namespace) is
// decided when a query runs, against the current file set. An edit therefore
// changes only the edited file's contribution, which is what makes Update
// cheap: a Graph is an immutable base index plus a small delta of changed
// paths whose contributions override the base; queries merge the two, and
// the delta folds into a new base once it holds more than 64 paths, by
// merging tables rather than rebuilding them. A change to what a resolver
// config says rebuilds the graph.
//
// The resolution rules of each language, and what they leave unresolved, are
// documented in docs/relations.md.
package relate
