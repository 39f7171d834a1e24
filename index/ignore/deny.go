package ignore

import "sync"

// denyText is ctxd's built-in never-send list in gitignore syntax. It
// implements the seed contract (.git/**, .vs/**, **/bin/**, **/obj/**,
// node_modules/**, packages/**, **/*.pfx, **/*.key, **/*.pem, **/*.env)
// plus .ctxd/**, **/.env and **/.env.*. A directory pattern also covers
// everything below the directory, because every ancestor of a path is
// checked. docs/ignore.md explains each choice.
const denyText = `# ctxd built-in deny rules: never sent, whatever any ignore file says.
# Version-control metadata at any depth: submodules and nested
# repositories have their own .git (a directory or a "gitdir:" file).
.git
# Visual Studio and ctxd state, at any depth: never source.
.vs
.ctxd
# Build output at any depth.
bin/
obj/
# Dependencies at any depth: never the workspace's own source.
node_modules
# The NuGet packages folder, only at the root (deeper packages/
# directories are often source, as in JavaScript monorepos).
/packages/
# Keys, certificates and environment files.
*.pfx
*.key
*.pem
*.env
.env
.env.*
`

var denyRules = sync.OnceValue(func() *Rules {
	// Case-insensitive on every system: "CERT.PEM" and "Node_Modules" are as
	// secret or as foreign as their lower-case forms, and Windows and macOS
	// users create such names.
	r := parse("", "deny", []byte(denyText), true)
	r.absolute = true
	return r
})

// Deny returns the built-in never-send rules as Rules with source "deny"
// (root dir). They match ASCII letters case-insensitively on every system,
// and wherever they sit in a [Stack] they are evaluated first and apart
// from the other rules, so that a "!" line in a .gitignore can never
// re-include a denied path. The result is shared and immutable.
func Deny() *Rules {
	return denyRules()
}
