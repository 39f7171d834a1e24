// Package policy reads a workspace's .ctxd/config.json, the file a team
// commits to say what ctxd may build: model defaults, extra never-send
// rules, the seed 000 context configuration and the seed 001 context policy
// (named path namespaces, which of them may reach a model, caps on the
// selection, and per-skill overrides that may only narrow it).
//
// The main types are:
//
//   - [File]: the file's content with its JSON members, and its sections
//     [Model], [Context], [Normalization], [Policy] and [Override].
//   - [Config]: a parsed, validated and normalized File with its canonical
//     bytes and its context_config_digest, made by [Parse], [Load] or
//     [Default].
//   - [Rules]: the effective policy of one build, the global policy or a
//     skill's override of it, from [Config.Rules]; it answers whether a path
//     may be sent ([Rules.Allowed]) and which namespaces it belongs to.
//   - [Error]: every failure, carrying one of seed 001's reason strings, the
//     file and the JSON pointer of the offending member.
//
// # Validation
//
// The file is checked strictly, failing closed with [ReasonInvalid]: its
// JSON must be well formed UTF-8 with no duplicate member, no number written
// with a fraction or exponent, and no data after the object; it must then
// satisfy the JSON Schema docs/schemas/config.schema.json (compiled from an
// embedded copy), whose first violation in document order is reported; then
// the rules a schema cannot state are checked in Go: glob syntax, allowed
// namespaces that must be defined, the three normalization rules, deny rules
// that could never match, and a response reserve below the input window.
// Skill overrides are checked against the global policy only when a build
// asks for the skill ([Config.Rules]), so that one broken skill does not
// stop every other build; a widening is [ReasonOverrideInvalid].
//
// # Globs
//
// Namespace globs are matched against workspace-relative, '/'-separated
// paths, whole path only: '*' matches any run of characters within one
// segment (dot files included), '?' exactly one character but '/',
// "[abc]", "[a-z]" and "[!a]" (or "[^a]") one character of a class, a
// leading ']' in a class being literal; "**" as a whole segment matches any
// number of segments, none included, so "src/**" covers src and everything
// below it and "**/*.go" every Go file. There is no escape character: write
// "[*]" for a literal '*'. Matching is by Unicode character and exact in
// case on every system. A path that is not clean (empty, absolute, with an
// empty, "." or ".." segment) matches nothing, so it is never allowed once
// an allowed list exists.
//
// The syntax is checked here; matching is index/ignore's wildmatch engine
// ([ignore.CompileGlob] on characters), so namespace globs and gitignore
// patterns share one implementation of '*', '?', classes and "**". They
// differ where this syntax is stricter or the line syntax of gitignore
// adds meaning:
//
//   - Anchoring: a glob always matches the whole path from the root, and a
//     leading '/' is an error; a gitignore pattern without '/' matches a
//     name at any depth.
//   - "**": only as a whole segment ("a**" is an error, a plain '*' to
//     git), and a trailing "/**" also matches the directory itself
//     ("src/**" matches "src"), which git's does not.
//   - A trailing '/' is an error (git: directories only); '!' is an
//     ordinary character (git: a leading '!' negates the line); a
//     backslash is an error (git: an escape); [:name:] classes do not exist
//     (a '[' inside a class is a member).
//   - Characters: '?' and classes match a Unicode character, where git's
//     match a byte.
//   - Case: exact on every system; git folds ASCII letters on macOS and
//     Windows.
//   - A glob whose matching exceeds the engine's step budget (crafted
//     globs and paths only) does not match, so the path is not allowed;
//     an ignore line then counts as matching. Either way, unsure excludes.
//
// docs/policy.md has the same list as a table.
//
// # Determinism
//
// Nothing here depends on map order, the clock or the environment: the
// normalized File is serialized with RFC 8785 (JCS), and the first error is
// chosen by document position with explicit tie-breaks.
package policy
