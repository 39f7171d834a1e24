// Package ignore decides whether a workspace path may be shown to a model:
// it applies git's ignore files exactly as `git check-ignore` does, plus
// ctxd's built-in never-send rules. Every decision here is a security
// decision, so wherever the answer is uncertain the path is excluded.
//
// The main types are:
//
//   - [Rules]: the compiled patterns of one ignore file ([NewRules]), or
//     the built-in deny rules ([Deny]).
//   - [Stack]: the Rules that apply to a path, root first; [Stack.Match]
//     decides a path with git's precedence (last match wins, deeper files
//     win, nothing below an ignored directory can be re-included).
//   - [Decision]: whether a path is ignored and which line decided it.
//   - [Checker]: decides single paths against the files on disk, reading
//     each directory's .gitignore lazily and caching it; [Kind] names the
//     layer that decided.
//   - [Glob]: one compiled wildmatch glob, the engine of every pattern,
//     shared with workspace/policy's namespace globs.
//
// # Syntax
//
// Patterns follow gitignore(5) and git's wildmatch, with git's behaviour
// on odd input reproduced rather than guessed: a differential test compares
// every form below with git itself.
//
//   - Lines starting with '#' are comments; "\#" and "\!" start a pattern
//     with a literal '#' or '!'; blank lines separate.
//   - Unescaped trailing spaces are removed ("foo\ " keeps one); "\r\n"
//     ends a line like "\n"; a UTF-8 byte order mark at the start is
//     skipped; a NUL byte ends a line's pattern.
//   - '!' negates; a trailing '/' matches directories only; a '/' at the
//     start or in the middle anchors the pattern to the ignore file's
//     directory, otherwise it matches the last path element at any depth.
//   - '*' and '?' never match '/'; "[...]" classes take ranges, "[!...]"
//     and "[^...]", a leading ']', backslash escapes and [:name:] classes
//     (ASCII only); an unterminated class never matches. Classes and '?'
//     match bytes, not characters.
//   - "**" matches across directories only as a whole segment ("**/x",
//     "x/**", "a/**/b"); elsewhere ("a**b", "***x") it is a plain '*'. As in
//     git, the literal start of a pattern is compared before the rest, so
//     "foo**/bar" matches "foo/x/bar".
//   - Regular-expression characters (".+()$^{}|") are ordinary characters.
//
// Matching is byte-exact, except on macOS and Windows where, like git's
// default core.ignorecase there, ASCII letters match either case. The deny
// rules match case-insensitively everywhere.
//
// The glob engine alone, without the line syntax (comments, trailing
// spaces, '!', the trailing '/', anchoring), is [Glob] ([CompileGlob]),
// with [GlobOptions] for case folding and for matching characters rather
// than bytes. workspace/policy matches its namespace globs with it; its
// package comment lists where that dialect differs from gitignore's.
//
// # Precedence
//
// For a path a/b/c.go the git layer is, lowest precedence first,
// .git/info/exclude, .gitignore, a/.gitignore, a/b/.gitignore; the last
// matching line wins, and a path below an ignored directory is ignored
// whatever follows. The deny rules are evaluated before everything and
// cannot be overridden; the root .ctxdignore is evaluated after the git
// layer and on its own, so it can only add exclusions (see [Checker]).
//
// # Unsure means excluded
//
// An ignore file that exists but cannot be read (permissions, a symbolic
// link, a directory or FIFO, more than 16 MiB) excludes everything below its
// directory, and so does a directory that is a symbolic link; a path that
// is not clean and workspace-relative is excluded;
// a pattern whose matching exceeds a step budget (only crafted patterns
// do) counts as matching when it ignores and as not matching when it
// re-includes.
package ignore
