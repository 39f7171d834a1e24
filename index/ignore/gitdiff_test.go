package ignore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// This file compares ctxd's decisions with `git check-ignore --no-index`
// in scratch repositories: git is the specification.

// diffCase is one scratch repository: ignore files and the paths to check.
type diffCase struct {
	name string
	// gi is the root .gitignore ("" for none).
	gi string
	// files are more ignore files by slash path (".git/info/exclude",
	// "sub/.gitignore").
	files map[string]string
	// paths are created on disk (a trailing "/" makes a directory) and
	// checked together with all their ancestors.
	paths []string
	// caseSensitive cases need a file system that tells "a" from "A".
	caseSensitive bool
}

func ps(p ...string) []string { return p }

// tree is a set of paths most cases check.
var tree = ps(
	"foo", "bar", "a/foo", "a/b/foo", "a/b/c/d.txt", "x.c", "a/x.c", "a/b/x.c",
	"build/", "src/build/", "src/main.go", "src/lib/util.go", "doc/frotz/", "a/doc/frotz/",
	".hidden", "a/.hidden/", "README.md", "a/README.md",
)

var diffCases = []diffCase{
	// Literal names, anchoring and the middle slash.
	{name: "literal at any depth", gi: "foo\n", paths: ps("foo", "a/foo/x", "a/b/foo", "foobar", "xfoo")},
	{name: "leading slash anchors", gi: "/foo\n", paths: ps("foo", "a/foo", "a/b/foo")},
	{name: "middle slash anchors", gi: "doc/frotz\n", paths: tree},
	{name: "middle slash with dir-only", gi: "doc/frotz/\n", paths: tree},
	{name: "leading and middle slash", gi: "/doc/frotz\n", paths: tree},
	{name: "two-level literal", gi: "a/b\n", paths: ps("a/b/c", "x/a/b/c", "a/bc", "ab")},
	{name: "anchored dir contents", gi: "/src/lib\n", paths: tree},
	{name: "anchored file under dir", gi: "src/main.go\n", paths: tree},
	{name: "double leading slash", gi: "//foo\n", paths: ps("foo", "a/foo")},
	{name: "slash only", gi: "/\n", paths: ps("foo", "a/b")},
	{name: "double slash only", gi: "//\n", paths: ps("foo", "a/b")},
	{name: "dot slash never matches", gi: "./foo\n", paths: ps("foo", "a/foo")},
	{name: "dot segment inside", gi: "a/./b\n", paths: ps("a/b", "a/c")},
	{name: "dot dot pattern", gi: "../foo\na/../b\n", paths: ps("foo", "b", "a/b")},
	{name: "trailing double slash", gi: "foo//\n", paths: ps("foo/x", "a/foo/y")},
	{name: "slash at both ends", gi: "/foo/\n", paths: ps("foo/x", "a/foo/y", "bar/foo")},

	// Directory-only patterns.
	{name: "dir-only skips files", gi: "foo/\n", paths: ps("foo", "a/foo/x", "b/foo")},
	{name: "dir-only matches at depth", gi: "build/\n", paths: tree},
	{name: "dir-only star", gi: "*/\n", paths: ps("f", "d/x", "d/e/y")},
	{name: "dir-only negation", gi: "*\n!*/\n", paths: ps("f", "d/x", "d/e/")},
	{name: "dir-only with glob", gi: "b*/\n", paths: ps("bf", "bd/x", "a/bee/y", "abc/z")},
	{name: "dir-only anchored glob", gi: "/a/*/\n", paths: ps("a/f", "a/d/x", "a/d/e/y", "b/a/d/z")},

	// Comments, blanks, escapes of # and !.
	{name: "comment", gi: "#foo\n", paths: ps("#foo", "foo")},
	{name: "escaped hash", gi: "\\#foo\n", paths: ps("#foo", "foo", "a/#foo")},
	{name: "hash after space is a pattern", gi: " #foo\n", paths: ps(" #foo", "#foo")},
	{name: "hash in the middle", gi: "a#b\n", paths: ps("a#b", "a")},
	{name: "blank and space lines", gi: "\n   \n\t\nfoo\n", paths: ps("foo", "\t", "x")},
	{name: "escaped bang", gi: "\\!important\n", paths: ps("!important", "important")},
	{name: "bang alone", gi: "foo\n!\n", paths: ps("foo", "!")},
	{name: "bang slash", gi: "foo\n!/\n", paths: ps("foo", "x")},
	{name: "double bang", gi: "!!foo\n", paths: ps("!foo", "foo")},
	{name: "bang in the middle", gi: "a!b\n", paths: ps("a!b", "ab")},

	// Trailing spaces.
	{name: "trailing spaces stripped", gi: "foo   \n", paths: ps("foo", "foo ", "foo   ")},
	{name: "escaped trailing space kept", gi: "foo\\ \n", paths: ps("foo", "foo ")},
	{name: "escaped then unescaped spaces", gi: "foo\\  \n", paths: ps("foo", "foo ", "foo  ")},
	{name: "space before escaped space", gi: "foo \\ \n", paths: ps("foo", "foo ", "foo  ")},
	{name: "two escaped spaces", gi: "foo\\ \\ \n", paths: ps("foo ", "foo  ")},
	{name: "trailing tab kept", gi: "foo\t\n", paths: ps("foo", "foo\t")},
	{name: "inner spaces kept", gi: "a b\n", paths: ps("a b", "ab", "a")},
	{name: "leading spaces kept", gi: "  foo\n", paths: ps("foo", "  foo")},
	{name: "trailing backslash keeps spaces", gi: "foo \\\n", paths: ps("foo", "foo ", "foo \\")},
	{name: "space-only negation", gi: "*\n! \n", paths: ps("a", " ")},

	// Line endings, byte order mark, NUL.
	{name: "crlf", gi: "foo\r\nbar\r\n", paths: ps("foo", "bar", "foo\r")},
	{name: "crlf last line without newline", gi: "foo\r\nbar\r", paths: ps("foo", "bar", "bar\r")},
	{name: "lone cr is not a line break", gi: "foo\rbar\n", paths: ps("foo", "bar", "foo\rbar")},
	{name: "two cr before lf", gi: "foo\r\r\n", paths: ps("foo", "foo\r")},
	{name: "crlf with trailing spaces", gi: "foo  \r\n", paths: ps("foo", "foo  ")},
	{name: "bom", gi: "\xEF\xBB\xBFfoo\nbar\n", paths: ps("foo", "bar", "\xEF\xBB\xBFfoo")},
	{name: "bom then comment", gi: "\xEF\xBB\xBF#foo\n", paths: ps("#foo", "foo")},
	{name: "bom on second line is literal", gi: "bar\n\xEF\xBB\xBFfoo\n", paths: ps("foo", "bar", "\xEF\xBB\xBFfoo")},
	{name: "no final newline", gi: "foo", paths: ps("foo", "bar")},
	{name: "nul cuts the line", gi: "foo\x00bar\nbaz\n", paths: ps("foo", "foobar", "baz")},
	{name: "crlf comment", gi: "#foo\r\nbar\r\n", paths: ps("#foo", "bar")},

	// Negation.
	{name: "negation after", gi: "*.log\n!keep.log\n", paths: ps("a.log", "keep.log", "sub/keep.log", "sub/b.log")},
	{name: "negation before has no effect", gi: "!keep.log\n*.log\n", paths: ps("a.log", "keep.log")},
	{name: "re-ignore after negation", gi: "*.log\n!*.log\nkeep.log\n", paths: ps("a.log", "keep.log")},
	{name: "re-include inside ignored dir", gi: "build/\n!build/keep.txt\n", paths: ps("build/keep.txt", "build/x.txt", "build/sub/keep.txt")},
	{name: "re-include by basename inside ignored dir", gi: "build/\n!keep.txt\n", paths: ps("build/keep.txt", "keep.txt", "x/keep.txt")},
	{name: "re-include with contents pattern", gi: "build/*\n!build/keep.txt\n", paths: ps("build/keep.txt", "build/x.txt", "build/sub/keep.txt")},
	{name: "re-include dir then file", gi: "build/*\n!build/sub/\nbuild/sub/*\n!build/sub/keep\n", paths: ps("build/sub/keep", "build/sub/other", "build/x")},
	{name: "whitelist go files", gi: "*\n!*/\n!*.go\n", paths: ps("main.go", "README.md", "a/b/c.go", "a/b/c.txt", ".gitignore")},
	{name: "whitelist root dir", gi: "/*\n!/src/\n", paths: ps("src/a.go", "src/b/c.go", "doc/x.md", "top.txt")},
	{name: "negate dir without slash", gi: "foo*\n!foobar\n", paths: ps("foobar/x", "foobaz/y", "foo")},
	{name: "negation of dir only pattern on file", gi: "*\n!keep/\n", paths: ps("keep", "x/keep/y")},
	{name: "negate everything", gi: "a\n!*\n", paths: ps("a", "b/a")},
	{name: "double star contents then negate dir", gi: "dir/**\n!dir/keep/\n", paths: ps("dir/keep/f", "dir/other/f", "dir/f")},
	{name: "negate contents keep dir", gi: "dir/**\n!dir/keep/**\n", paths: ps("dir/keep/f", "dir/keep/s/g", "dir/other/f")},
	{name: "negated glob", gi: "*.txt\n!a*.txt\n", paths: ps("abc.txt", "b.txt", "x/a.txt")},
	{name: "ignored parent of negated deep path", gi: "a/\n!a/b/\n", paths: ps("a/b/c", "a/x")},

	// Star.
	{name: "star suffix any depth", gi: "*.c\n", paths: tree},
	{name: "star suffix anchored", gi: "/*.c\n", paths: tree},
	{name: "star in dir pattern", gi: "a/*.c\n", paths: tree},
	{name: "star alone", gi: "*\n", paths: ps("a", ".b", "c/d")},
	{name: "star prefix", gi: "READ*\n", paths: tree},
	{name: "star both sides", gi: "*oo*\n", paths: ps("foo", "boot", "o", "oo", "a/xoox/y")},
	{name: "star then slash", gi: "*/foo\n", paths: ps("foo", "a/foo", "a/b/foo", "ab/foo")},
	{name: "slash star", gi: "a/*\n", paths: ps("a/b", "a/c/d", "x/a/b")},
	{name: "star slash star", gi: "*/*\n", paths: ps("f", "a/b", "a/c/d")},
	{name: "star dot star", gi: "*.*\n", paths: ps("a.b", "ab", ".x", "a/b.c", "d.e/f")},
	{name: "star matches empty", gi: "foo*bar\n", paths: ps("foobar", "fooxbar", "foo/bar", "fooba")},
	{name: "star before literal slash dir", gi: "a*/b\n", paths: ps("a/b", "ax/b", "ax/y/b", "x/ax/b")},
	{name: "escaped slash after star", gi: "a*\\/b\n", paths: ps("a/b", "ax/b", "ax/y/b")},
	{name: "star in middle segment", gi: "a/*/c\n", paths: ps("a/b/c", "a/c", "a/b/x/c", "a/bb/c")},
	{name: "multiple stars", gi: "*a*b*c*\n", paths: ps("abc", "xaybzc", "cba", "aabbcc", "a/b/c")},
	{name: "stars before extension", gi: "*.tar.*\n", paths: ps("a.tar.gz", "a.tar", "tar.gz", "b/c.tar.xz")},

	// Double star in every position.
	{name: "leading double star", gi: "**/foo\n", paths: ps("foo", "a/foo", "a/b/foo", "xfoo", "c/foo/x")},
	{name: "leading double star two segments", gi: "**/foo/bar\n", paths: ps("foo/bar", "a/foo/bar", "a/b/foo/bar", "foo/x/bar", "xfoo/bar")},
	{name: "trailing double star", gi: "foo/**\n", paths: ps("foo/a", "foo/b/c", "x/foo/a", "foox/a")},
	{name: "trailing double star not the dir", gi: "foo/**\n", paths: ps("foo/", "foo2")},
	{name: "middle double star", gi: "a/**/b\n", paths: ps("a/b", "a/x/b", "a/x/y/b", "a/xb", "ab", "x/a/b")},
	{name: "two middle double stars", gi: "a/**/**/b\n", paths: ps("a/b", "a/x/b", "a/x/y/b")},
	{name: "double star alone", gi: "**\n", paths: ps("a", "b/c")},
	{name: "double star slash", gi: "**/\n", paths: ps("a", "b/c", "d/e/f")},
	{name: "slash double star", gi: "/**\n", paths: ps("a", "b/c")},
	{name: "slash double star slash", gi: "/**/\n", paths: ps("a", "b/c")},
	{name: "slash double star slash name", gi: "/**/foo\n", paths: ps("foo", "a/foo", "a/b/foo")},
	{name: "triple star", gi: "***\n", paths: ps("a", "b/c")},
	{name: "triple star dir", gi: "a/***/b\n", paths: ps("a/b", "a/x/b", "a/x/y/b")},
	{name: "triple star leading", gi: "***/foo\n", paths: ps("foo", "a/foo", "a/b/foo")},
	{name: "double star glued before", gi: "**foo\n", paths: ps("foo", "xfoo", "a/foo", "a/xfoo")},
	{name: "double star glued after", gi: "foo**\n", paths: ps("foo", "foox", "a/foox")},
	{name: "double star glued in path", gi: "a/**b\n", paths: ps("a/b", "a/xb", "a/x/b", "a/x/yb")},
	{name: "double star glued after dir", gi: "a/b**\n", paths: ps("a/b", "a/bx", "a/bc/d/e", "a/x")},
	{name: "double star after literal head", gi: "foo**/bar\n", paths: ps("foo/bar", "foox/bar", "foo/x/bar", "fooq/y/z/bar", "foo/barx")},
	{name: "double star between literals", gi: "a**b/c\n", paths: ps("ab/c", "axb/c", "a/b/c", "a/x/b/c")},
	{name: "double star escaped slash", gi: "**\\/foo\n", paths: ps("foo", "a/foo", "a/b/foo")},
	{name: "double star then star", gi: "**/*.c\n", paths: tree},
	{name: "dir double star ext", gi: "a/**/*.c\n", paths: tree},
	{name: "double star both ends", gi: "**/b/**\n", paths: ps("b/x", "a/b/x", "a/b/c/d.txt", "bb")},
	{name: "double star dir-only", gi: "a/**/\n", paths: ps("a/f", "a/d/x", "a/d/e/y")},
	{name: "double star negated", gi: "**/*.c\n!a/**/*.c\n", paths: tree},
	{name: "star double star star", gi: "*/**/*\n", paths: ps("f", "a/b", "c/d/e")},
	{name: "four stars", gi: "a/****/b\n", paths: ps("a/b", "a/x/b", "a/x/y/b")},
	{name: "double star then question", gi: "**/?\n", paths: ps("a", "ab", "c/d", "c/de")},

	// Question mark.
	{name: "question mark", gi: "?.c\n", paths: ps("a.c", "ab.c", ".c", "d/e.c")},
	{name: "question mark not slash", gi: "a?c\n", paths: ps("abc", "a/c", "a.c")},
	{name: "question marks", gi: "???\n", paths: ps("abc", "ab", "abcd", "d/efg")},
	{name: "question mark is not literal", gi: "foo?\n", paths: ps("foo?", "fooa", "foo")},
	{name: "question mark anchored", gi: "/a/?\n", paths: ps("a/b", "a/bc", "a/d/c")},
	{name: "question mark and star", gi: "?*\n", paths: ps("a", "ab", "c/d")},

	// Character classes.
	{name: "class", gi: "[abc].txt\n", paths: ps("a.txt", "d.txt", "ab.txt", "[abc].txt")},
	{name: "class range", gi: "[a-c]x\n", paths: ps("ax", "bx", "cx", "dx", "-x")},
	{name: "negated class bang", gi: "[!a]x\n", paths: ps("ax", "bx", "!x", "x")},
	{name: "negated class caret", gi: "[^a]x\n", paths: ps("ax", "bx", "^x")},
	{name: "close bracket first", gi: "[]]x\n", paths: ps("]x", "ax", "[]]x")},
	{name: "close bracket first negated", gi: "[!]]x\n", paths: ps("]x", "ax")},
	{name: "close bracket first then more", gi: "[]a]x\n", paths: ps("]x", "ax", "bx")},
	{name: "dash last", gi: "[a-]x\n", paths: ps("ax", "-x", "bx")},
	{name: "dash first", gi: "[-a]x\n", paths: ps("ax", "-x", "bx")},
	{name: "dash after range", gi: "[a-c-e]x\n", paths: ps("bx", "-x", "dx", "ex")},
	{name: "escaped close bracket", gi: "[a\\]]x\n", paths: ps("ax", "]x", "\\x")},
	{name: "escaped backslash in class", gi: "[\\\\]x\n", paths: ps("\\x", "x")},
	{name: "escaped range end", gi: "[a-\\c]x\n", paths: ps("bx", "cx", "dx")},
	{name: "escaped range start", gi: "[\\a-c]x\n", paths: ps("ax", "bx", "dx")},
	{name: "reversed range", gi: "[c-a]x\n", paths: ps("ax", "bx", "cx")},
	{name: "named class digit", gi: "[[:digit:]]x\n", paths: ps("1x", "ax")},
	{name: "named classes combined", gi: "[[:alpha:][:digit:]_]x\n", paths: ps("ax", "1x", "_x", "-x")},
	{name: "named class negated", gi: "[![:lower:]]x\n", paths: ps("ax", "Ax", "1x")},
	{name: "named class space", gi: "[[:space:]]x\n", paths: ps(" x", "\tx", "\vx", "\fx")},
	{name: "named class cntrl", gi: "[[:cntrl:]]x\n", paths: ps("\x7fx", "\x01x", "ax")},
	{name: "named class punct", gi: "[[:punct:]]x\n", paths: ps("!x", "~x", "ax", " x")},
	{name: "named class upper", gi: "[[:upper:]]x\n", paths: ps("Ax", "ax"), caseSensitive: true},
	{name: "named class xdigit", gi: "[[:xdigit:]]x\n", paths: ps("fx", "Fx", "gx", "9x")},
	{name: "unknown named class", gi: "[[:foo:]]x\nbar\n", paths: ps("fx", "bar")},
	{name: "unterminated named class", gi: "[[:alpha:]x\nbar\n", paths: ps("ax", "bar")},
	{name: "bracket colon without close", gi: "[[:x]y\n", paths: ps("[y", ":y", "xy", "[:x]y")},
	{name: "bracket colon empty", gi: "[[:]]x\n", paths: ps("[]x", ":]x", "x")},
	{name: "unterminated class", gi: "[abc\nfoo\n", paths: ps("a", "[abc", "foo")},
	{name: "class with slash in path", gi: "a[/]b\n", paths: ps("a/b", "a[/]b")},
	{name: "negated class and slash", gi: "a[!x]b\n", paths: ps("a/b", "ayb")},
	{name: "class of specials", gi: "[*?]x\n", paths: ps("*x", "?x", "ax")},
	{name: "class with dot", gi: "[.]c\n", paths: ps(".c", "ac")},
	{name: "class with bracket", gi: "[[]x\n", paths: ps("[x", "x")},
	{name: "class in dir", gi: "[ab]/x\n", paths: ps("a/x", "b/x", "c/x", "z/a/x")},
	{name: "class range to close bracket", gi: "[a-]]x\n", paths: ps("a]x", "-]x", "bx")},
	{name: "empty negated class", gi: "[!]x\n", paths: ps("]x", "!x", "[!]x")},
	{name: "class escaped at end unterminated", gi: "[a\\\n", paths: ps("a", "[a\\")},

	// Backslash escapes.
	{name: "escaped star", gi: "\\*\n", paths: ps("*", "a")},
	{name: "escaped question", gi: "foo\\?\n", paths: ps("foo?", "fooa")},
	{name: "escaped bracket", gi: "\\[a]\n", paths: ps("[a]", "a")},
	{name: "escaped letter", gi: "\\a\\b\n", paths: ps("ab", "\\a\\b")},
	{name: "escaped backslash", gi: "a\\\\b\n", paths: ps("a\\b", "ab")},
	{name: "trailing backslash", gi: "foo\\\nbar\n", paths: ps("foo", "foo\\", "bar")},
	{name: "lone backslash", gi: "\\\n", paths: ps("\\", "a")},
	{name: "escaped star then star", gi: "\\**\n", paths: ps("*", "*a", "a", "b/*c")},
	{name: "star escaped star", gi: "*\\*\n", paths: ps("a*", "*", "ab")},
	{name: "escaped slash", gi: "a\\/b\n", paths: ps("a/b", "x/a/b")},
	{name: "escaped hash mid", gi: "a\\#\n", paths: ps("a#", "a")},

	// Regular-expression metacharacters are literal.
	{name: "c++", gi: "c++\n", paths: ps("c++", "c", "cc", "ccc")},
	{name: "dollar", gi: "$tmp\n", paths: ps("$tmp", "tmp", "x$tmp")},
	{name: "parentheses", gi: "foo(1).txt\n", paths: ps("foo(1).txt", "foo1.txt", "foo(1)xtxt")},
	{name: "dot is literal", gi: "a.b\n", paths: ps("a.b", "axb", "ab")},
	{name: "braces are literal", gi: "{a,b}\n", paths: ps("{a,b}", "a", "b")},
	{name: "caret is literal", gi: "^x\n", paths: ps("^x", "x")},
	{name: "dollar end", gi: "x$\n", paths: ps("x$", "x")},
	{name: "pipe", gi: "a|b\n", paths: ps("a|b", "a", "b")},
	{name: "plus", gi: "a+\n", paths: ps("a+", "a", "aa")},
	{name: "dot star", gi: ".*\n", paths: ps(".x", ".hidden", "x", "a/.y")},
	{name: "regex quantifier", gi: "a{2}\n", paths: ps("a{2}", "aa")},
	{name: "regex class shorthand", gi: "\\d\n", paths: ps("d", "1", "\\d")},
	{name: "metachars with star", gi: "*.(bak)\n", paths: ps("x.(bak)", "x.bak")},
	{name: "metachars in dir", gi: "c++/\n", paths: ps("c++/x", "a/c++/y", "cc/z")},

	// Nested .gitignore files and precedence.
	{name: "nested overrides parent", gi: "*.log\n", files: map[string]string{"sub/.gitignore": "!important.log\n"},
		paths: ps("important.log", "sub/important.log", "sub/a.log", "sub/deep/important.log")},
	{name: "nested anchored", files: map[string]string{"sub/.gitignore": "/x\n"}, paths: ps("x", "sub/x", "sub/a/x")},
	{name: "nested middle slash", files: map[string]string{"sub/.gitignore": "a/b\n"}, paths: ps("a/b", "sub/a/b", "sub/c/a/b")},
	{name: "nested dir-only", files: map[string]string{"sub/.gitignore": "x/\n"}, paths: ps("x/f", "sub/x/f", "sub/y/x/g", "sub/z/x")},
	{name: "nested does not apply to its own dir", files: map[string]string{"sub/.gitignore": "sub\n*\n"}, paths: ps("sub/a", "other/b")},
	{name: "parent negation cannot beat nested", gi: "!*.tmp\n", files: map[string]string{"a/.gitignore": "*.tmp\n"}, paths: ps("x.tmp", "a/x.tmp")},
	{name: "deeper wins", files: map[string]string{"a/.gitignore": "*.txt\n", "a/b/.gitignore": "!keep.txt\n"},
		paths: ps("a/x.txt", "a/keep.txt", "a/b/keep.txt", "a/b/c/keep.txt", "a/b/x.txt")},
	{name: "gitignore in ignored dir is not read", gi: "build/\n", files: map[string]string{"build/.gitignore": "!*\n"},
		paths: ps("build/x", "build/.gitignore")},
	{name: "nested ignores subdir then parent negates", gi: "!a/b/\n", files: map[string]string{"a/.gitignore": "b/\n"}, paths: ps("a/b/c")},
	{name: "nested double star", files: map[string]string{"sub/.gitignore": "**/x\n"}, paths: ps("x", "sub/x", "sub/a/x")},
	{name: "nested leading double star slash", files: map[string]string{"sub/.gitignore": "/**/y\n"}, paths: ps("y", "sub/y", "sub/a/y")},
	{name: "three levels", gi: "*.o\n", files: map[string]string{"a/.gitignore": "!*.o\n", "a/b/.gitignore": "*.o\n"},
		paths: ps("x.o", "a/x.o", "a/b/x.o", "a/c/x.o")},
	{name: "gitignore ignores itself", gi: ".gitignore\n", files: map[string]string{"a/.gitignore": "x\n"}, paths: ps("a/x", "y")},
	{name: "exclude file", files: map[string]string{".git/info/exclude": "*.swp\n"}, paths: ps("a.swp", "b/c.swp", "d")},
	{name: "gitignore negation beats exclude", gi: "!keep.swp\n", files: map[string]string{".git/info/exclude": "*.swp\n"},
		paths: ps("a.swp", "keep.swp")},
	{name: "exclude negation loses to gitignore", gi: "*.swp\n", files: map[string]string{".git/info/exclude": "!keep.swp\n"},
		paths: ps("a.swp", "keep.swp")},
	{name: "exclude ignores dir nested negation inside", files: map[string]string{".git/info/exclude": "out/\n", "out/.gitignore": "!x\n"},
		paths: ps("out/x", "a/out/y")},
	{name: "nested negation of ancestor dir", gi: "a/b\n", files: map[string]string{"a/.gitignore": "!b\n"}, paths: ps("a/b/c")},
	{name: "sibling gitignore does not apply", files: map[string]string{"a/.gitignore": "x\n"}, paths: ps("a/x", "b/x")},
	{name: "nested crlf and bom", files: map[string]string{"sub/.gitignore": "\xEF\xBB\xBFx\r\n"}, paths: ps("sub/x", "x")},

	// Case sensitivity (core.ignorecase=false).
	{name: "case literal", gi: "Foo\n", paths: ps("Foo", "foo", "FOO"), caseSensitive: true},
	{name: "case extension", gi: "*.TXT\n", paths: ps("a.TXT", "a.txt"), caseSensitive: true},
	{name: "case dir", gi: "build/\n", paths: ps("build/x", "Build/y"), caseSensitive: true},
	{name: "case class", gi: "[A-C]x\n", paths: ps("Ax", "ax", "Dx"), caseSensitive: true},
	{name: "case anchored", gi: "/Doc/frotz\n", paths: ps("Doc/frotz", "doc/frotz"), caseSensitive: true},

	// Dotfiles.
	{name: "dotfiles", gi: ".*\n!.gitignore\n", paths: ps(".env", ".gitignore", "a/.b", "c")},
	{name: "star matches leading dot", gi: "*rc\n", paths: ps(".bashrc", "vimrc", "a/.zshrc")},
	{name: "dot env glob", gi: ".env*\n", paths: ps(".env", ".env.local", "a/.envrc", "env")},
	{name: "hidden dir", gi: ".cache/\n", paths: ps(".cache/x", "a/.cache/y", ".cache2/z")},
	{name: "question matches dot", gi: "?foo\n", paths: ps(".foo", "afoo")},
	{name: "dot and dotdot literals", gi: ".\n..\n", paths: ps("a", ".a")},

	// Unicode names.
	{name: "unicode literal", gi: "日本語.txt\n", paths: ps("日本語.txt", "a/日本語.txt", "日本.txt")},
	{name: "unicode suffix", gi: "*.日本\n", paths: ps("x.日本", "x.日")},
	{name: "unicode class is bytes", gi: "[ä]x\n", paths: ps("äx", "ax")},
	{name: "question is one byte", gi: "?x\n??x\n", paths: ps("äx", "ax")},
	{name: "unicode dir", gi: "données/\n", paths: ps("données/a", "b/données/c", "donnees/d")},
	{name: "unicode negation", gi: "*\n!*/\n!ü*\n", paths: ps("über", "uber", "a/ünd")},
	{name: "emoji", gi: "🙂*\n", paths: ps("🙂", "🙂x", "x🙂")},
	{name: "unicode range bytes", gi: "[\xc3\xa0-\xc3\xbf]x\n", paths: ps("\xc3x", "ax")},

	// Ancestors and depth.
	{name: "ignored ancestor decides", gi: "a/b\n", paths: ps("a/b/c/d/e", "a/bc/d")},
	{name: "ancestor by basename", gi: "b\n", paths: ps("a/b/c/d", "b/e", "x/y/b/z")},
	{name: "ancestor negated then child ignored", gi: "a/*\n!a/b\na/b/c\n", paths: ps("a/b/c", "a/b/d", "a/e")},
	{name: "star does not ignore nested files", gi: "a/*\n!a/b\n", paths: ps("a/b/x", "a/c/y")},
	{name: "deep anchored", gi: "/a/b/c/d\n", paths: ps("a/b/c/d/e", "x/a/b/c/d")},
	{name: "ancestor dir-only glob", gi: "*_cache/\n", paths: ps("x_cache/y", "a/z_cache/b", "w_cache")},

	// Everyday patterns.
	{name: "node style", gi: "node_modules/\n/dist\n*.log\n!/dist/keep.log\n.env*\n", paths: ps("node_modules/x/y.js", "a/node_modules/z", "dist/keep.log", "dist/a.js", "src/dist/b.js", "debug.log", ".env.local")},
	{name: "python style", gi: "__pycache__/\n*.py[cod]\n*$py.class\n.venv\n", paths: ps("a/__pycache__/b.pyc", "x.pyc", "x.pyd", "x.py", "a$py.class", ".venv/bin/python")},
	{name: "go style", gi: "/bin/\n*.test\n*.out\nvendor/\n!vendor/modules.txt\n", paths: ps("bin/app", "cmd/bin/x", "a.test", "vendor/modules.txt", "vendor/x/y.go")},
	{name: "java style", gi: "target/\n*.class\n!gradle-wrapper.jar\n*.jar\n", paths: ps("target/a", "A.class", "gradle-wrapper.jar", "b.jar")},
	{name: "editor style", gi: "*~\n.*.swp\n\\#*#\n.idea/\n", paths: ps("a~", ".a.swp", "#a#", ".idea/x", "a.swp")},
}

// gitEnv returns an environment in which git reads no system or global
// configuration and no global excludes file: only the scratch repository's
// files decide.
func gitEnv(t *testing.T) []string {
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, "gitconfig"), "LC_ALL=C")
}

// requireGit skips the test when git is not installed.
func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
}

// caseSensitiveFS reports whether dir tells "a" from "A".
func caseSensitiveFS(t *testing.T, dir string) bool {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "casetest"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(filepath.Join(dir, "casetest"))
	_, err := os.Stat(filepath.Join(dir, "CASETEST"))
	return err != nil
}

// gitInit creates a repository in a new temporary directory.
func gitInit(t *testing.T, env []string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", dir)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

// materialize creates paths (a trailing "/" marks a directory) and ignore
// files under dir.
func materialize(t *testing.T, dir string, paths []string, files map[string]string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatalf("%v (paths %q)", err, paths)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatalf("%v (paths %q)", err, paths)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatalf("%v (paths %q)", err, paths)
		}
	}
	for name, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// queries returns every path of the case and all its ancestors, without
// trailing slashes, sorted.
func queries(paths []string) []string {
	seen := map[string]bool{}
	for _, p := range paths {
		p = strings.TrimSuffix(p, "/")
		for {
			seen[p] = true
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// gitCheckIgnore asks git about every path at once and returns git's
// decision for each.
func gitCheckIgnore(t *testing.T, env []string, dir string, paths []string) map[string]Decision {
	t.Helper()
	var in bytes.Buffer
	for _, p := range paths {
		// "./" keeps a leading ':' from being read as pathspec magic.
		in.WriteString("./" + p)
		in.WriteByte(0)
	}
	cmd := exec.Command("git", "-c", "core.ignorecase=false", "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin")
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		// Exit status 1 only means that no path is ignored.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("git check-ignore: %v\n%s", err, stderr.String())
		}
	}
	fields := strings.Split(string(out), "\x00")
	if len(fields) == 0 || fields[len(fields)-1] != "" || (len(fields)-1)%4 != 0 {
		t.Fatalf("git check-ignore: unexpected output %q", out)
	}
	got := make(map[string]Decision)
	for i := 0; i+4 <= len(fields)-1; i += 4 {
		source, line, pat := fields[i], fields[i+1], fields[i+2]
		p := strings.TrimPrefix(fields[i+3], "./")
		if source == "" {
			got[p] = Decision{}
			continue
		}
		got[p] = Decision{Ignored: !strings.HasPrefix(pat, "!"), Rule: source + ":" + line + ": " + pat}
	}
	if len(got) != len(paths) {
		t.Fatalf("git check-ignore answered %d of %d paths:\n%s", len(got), len(paths), out)
	}
	return got
}

// readStack builds, from the files on disk, the Stack that applies to rel:
// info/exclude, the root .gitignore and the .gitignore of every ancestor.
func readStack(t *testing.T, dir, rel string) Stack {
	t.Helper()
	read := func(d, source, name string) *Rules {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return nil
		}
		return NewRules(d, source, data)
	}
	s := Stack{read("", excludeSource, ".git/info/exclude"), read("", ".gitignore", ".gitignore")}
	for i, c := range rel {
		if c == '/' {
			d := rel[:i]
			s = append(s, read(d, d+"/.gitignore", d+"/.gitignore"))
		}
	}
	return s
}

// walkDecisions walks dir the way an indexer does, with MatchLeaf and a
// Stack that grows per directory, never descending into an ignored
// directory; paths below an ignored directory get its decision.
func walkDecisions(t *testing.T, dir string) map[string]Decision {
	t.Helper()
	out := make(map[string]Decision)
	var walk func(rel string, stack Stack, inherited *Decision)
	walk = func(rel string, stack Stack, inherited *Decision) {
		full := filepath.Join(dir, filepath.FromSlash(rel))
		if inherited == nil {
			data, err := os.ReadFile(filepath.Join(full, ".gitignore"))
			if err == nil {
				source := ".gitignore"
				if rel != "" {
					source = rel + "/.gitignore"
				}
				stack = append(slices.Clip(stack), NewRules(rel, source, data))
			}
		}
		entries, err := os.ReadDir(full)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			child := path.Join(rel, e.Name())
			if child == ".git" {
				continue
			}
			d := Decision{}
			if inherited != nil {
				d = *inherited
			} else {
				d = stack.MatchLeaf(child, e.IsDir())
			}
			out[child] = d
			if e.IsDir() {
				if d.Ignored {
					walk(child, stack, &d)
				} else {
					walk(child, stack, nil)
				}
			}
		}
	}
	var exclude Stack
	if data, err := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude")); err == nil {
		exclude = Stack{NewRules("", excludeSource, data)}
	}
	walk("", exclude, nil)
	return out
}

// compareWithGit checks one scratch repository with the three ways ctxd
// decides (Checker, Stack.Match, a MatchLeaf walk) against git, and returns
// the number of paths compared and the disagreements.
func compareWithGit(t *testing.T, env []string, dir, name string, paths []string) (int, []string) {
	t.Helper()
	qs := queries(paths)
	want := gitCheckIgnore(t, env, dir, qs)
	walked := walkDecisions(t, dir)
	c := NewChecker(dir)
	var bad []string
	for _, q := range qs {
		isDir := false
		if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(q))); err == nil {
			isDir = fi.IsDir()
		}
		got := map[string]Decision{
			"Checker":   c.gitDecision(c.snapshot(), q, isDir),
			"Stack":     readStack(t, dir, q).Match(q, isDir),
			"MatchLeaf": walked[q],
		}
		for _, how := range []string{"Checker", "Stack", "MatchLeaf"} {
			if diff := cmp.Diff(want[q], got[how]); diff != "" {
				bad = append(bad, fmt.Sprintf("%s: %s %q (-want +got):\n%s", name, how, q, diff))
			}
		}
	}
	return len(qs), bad
}

// TestGitDifferential compares ctxd with git check-ignore on every case of
// diffCases and on generated random cases.
func TestGitDifferential(t *testing.T) {
	requireGit(t)
	// git is run with core.ignorecase=false, so ctxd must compare case
	// sensitively too, whatever the system.
	defer func(f bool) { foldCase = f }(foldCase)
	foldCase = false
	env := gitEnv(t)
	sensitive := caseSensitiveFS(t, t.TempDir())

	cases, compared := 0, 0
	var bad []string
	for _, tc := range diffCases {
		if tc.caseSensitive && !sensitive {
			continue
		}
		dir := gitInit(t, env)
		files := map[string]string{}
		for k, v := range tc.files {
			files[k] = v
		}
		if tc.gi != "" {
			files[".gitignore"] = tc.gi
		}
		materialize(t, dir, tc.paths, files)
		n, b := compareWithGit(t, env, dir, tc.name, tc.paths)
		cases++
		compared += n
		bad = append(bad, b...)
	}
	if sensitive {
		// The random tree holds both "a" and "A".
		n, b := randomDifferential(t, env, 1, 150)
		compared += n
		bad = append(bad, b...)
	}
	t.Logf("compared %d paths of %d hand-written cases and 150 random ignore files with git: %d disagreements",
		compared, cases, len(bad))
	for _, m := range bad {
		t.Error(m)
	}
	if cases < 150 {
		t.Errorf("only %d hand-written cases ran, want at least 150", cases)
	}
}

// randomTree is the directory tree below every random case.
var randomTree = ps(
	"a", "b", "ab", "ba", "a.c", "b.c", ".a", "A", "[a]", "a b", "a*", "x/a", "x/b", "x/y/a", "x/y/z/b.c",
	"a.d/a", "a.d/x/b", "b.d/a.c", "x/a.d/b", "yy/", "x/yy/", "c/d/e/f",
)

// randomFragments are the pieces random patterns are made of.
var randomFragments = []string{
	"a", "b", "c", "x", "y", ".", "*", "**", "***", "?", "/", "[a-c]", "[!a]", "[^b]", "[]a]",
	"\\*", "\\", "[", "]", "-", " ", "\\ ", ".d", "z", "[[:alpha:]]", "{", "}", "**/", "/**",
	"[a-", "[!", "[[:", ":]", "\\/", "!", "#", "\\!", "\\[", "[\\]]", "a/b", "yy", "A", "[[:upper:]]",
}

// randomPattern builds one random pattern line.
func randomPattern(r *rand.Rand) string {
	var b strings.Builder
	switch r.IntN(6) {
	case 0:
		b.WriteString("!")
	case 1:
		b.WriteString("/")
	}
	for range 1 + r.IntN(5) {
		b.WriteString(randomFragments[r.IntN(len(randomFragments))])
	}
	if r.IntN(5) == 0 {
		b.WriteString("/")
	}
	return b.String()
}

// randomDifferential builds one repository with n directories, each with
// a random .gitignore above a copy of randomTree, and compares all of it
// with git in one check-ignore call. The seed makes it reproducible.
func randomDifferential(t *testing.T, env []string, seed uint64, n int) (int, []string) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	dir := gitInit(t, env)
	var paths []string
	files := map[string]string{}
	for i := range n {
		caseDir := fmt.Sprintf("case%03d", i)
		var lines []string
		for range 1 + r.IntN(4) {
			lines = append(lines, randomPattern(r))
		}
		files[caseDir+"/.gitignore"] = strings.Join(lines, "\n") + "\n"
		if r.IntN(3) == 0 {
			files[caseDir+"/x/.gitignore"] = randomPattern(r) + "\n" + randomPattern(r) + "\n"
		}
		for _, p := range randomTree {
			paths = append(paths, caseDir+"/"+p)
		}
	}
	materialize(t, dir, paths, files)
	return compareWithGit(t, env, dir, "random", paths)
}

// TestGitRandomLong runs many more random cases against git when
// CTXD_IGNORE_SEEDS names how many seeds to try (it takes a few seconds per
// seed); it is for hunting differences, not for every run.
func TestGitRandomLong(t *testing.T) {
	seeds, _ := strconv.Atoi(os.Getenv("CTXD_IGNORE_SEEDS"))
	if seeds <= 0 {
		t.Skip("set CTXD_IGNORE_SEEDS to run")
	}
	requireGit(t)
	defer func(f bool) { foldCase = f }(foldCase)
	foldCase = false
	env := gitEnv(t)
	if !caseSensitiveFS(t, t.TempDir()) {
		t.Skip("needs a case-sensitive file system")
	}
	total := 0
	for seed := range seeds {
		n, bad := randomDifferential(t, env, uint64(seed)+100, 200)
		total += n
		for _, m := range bad {
			t.Errorf("seed %d: %s", seed+100, m)
		}
	}
	t.Logf("compared %d paths", total)
}
