package relate

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// cRequest: `#include "x.h"` is looked up relative to the including file's
// directory, then in the -iquote directories of compile_commands.json,
// then its -I and -isystem directories, then the root, then the root's
// include/ directory; `#include <x.h>` (a system include) skips the
// including file's directory and the -iquote directories, so that
// <vector> or <stdio.h> resolve only when the root really holds such a
// file. The include directories apply to every C/C++ file of the root.
func cRequest(f *fileFacts, imp syntax.Import, inc *cIncludeDirs) request {
	spec := strings.TrimSpace(imp.Path)
	spec = strings.Trim(spec, `"<>`)
	if spec == "" || spec[0] == '/' {
		return request{}
	}
	var dirs []string
	if !imp.System {
		dirs = append(dirs, f.dir)
		dirs = append(dirs, inc.quote...)
	}
	dirs = append(dirs, inc.dirs...)
	dirs = append(dirs, "", "include")
	var group []string
	for _, d := range dirs {
		p, ok := resolveRel(d, spec)
		if !ok || p == "" {
			continue
		}
		dup := false
		for _, g := range group {
			dup = dup || g == p
		}
		if !dup {
			group = append(group, p)
		}
	}
	if len(group) == 0 {
		return request{}
	}
	return request{kind: reqFiles, groups: [][]string{group}}
}

// cIncludeDirs are root-relative include directories read from
// compile_commands.json: quote holds the -iquote ones, dirs the -I then
// -isystem ones, each in order of first appearance.
type cIncludeDirs struct {
	quote, dirs []string
}

func (c *cIncludeDirs) add(o cIncludeDirs) {
	for _, d := range o.quote {
		if !slices.Contains(c.quote, d) {
			c.quote = append(c.quote, d)
		}
	}
	for _, d := range o.dirs {
		if !slices.Contains(c.dirs, d) {
			c.dirs = append(c.dirs, d)
		}
	}
}

// parseCompileCommands reads the include directories of a compilation
// database: the -I, -isystem and -iquote options (joined or separate) of
// every entry's "arguments" or "command", relative to the entry's
// "directory". The root's absolute path is inferred from an entry whose
// "file" ends with one of paths (the root's sorted files); absolute
// directories outside the root are dropped, as are relative ones when
// the root cannot be located.
func parseCompileCommands(b []byte, paths []string) cIncludeDirs {
	var entries []struct {
		Directory string   `json:"directory"`
		File      string   `json:"file"`
		Command   string   `json:"command"`
		Arguments []string `json:"arguments"`
	}
	if json.Unmarshal(b, &entries) != nil {
		return cIncludeDirs{}
	}
	root, hasRoot := "", false
	for _, e := range entries {
		file := e.File
		if !path.IsAbs(file) {
			file = path.Join(e.Directory, file)
		}
		file = path.Clean(file)
		for i := 0; i < len(file); i++ {
			if file[i] != '/' {
				continue
			}
			if _, ok := slices.BinarySearch(paths, file[i+1:]); ok {
				root, hasRoot = file[:i], true
				break
			}
		}
		if hasRoot {
			break
		}
	}
	rel := func(dir, d string) (string, bool) {
		if !path.IsAbs(d) {
			d = path.Join(dir, d)
		}
		d = path.Clean(d)
		if !path.IsAbs(d) {
			return resolveRel("", d) // a relative "directory": taken from the root
		}
		switch {
		case !hasRoot:
			return "", false
		case d == root || (root == "" && d == "/"):
			return "", true
		case strings.HasPrefix(d, root+"/"):
			return d[len(root)+1:], true
		}
		return "", false
	}
	var out, sys cIncludeDirs
	for _, e := range entries {
		args := e.Arguments
		if args == nil {
			args = cSplitCommand(e.Command)
		}
		for i := 0; i < len(args); i++ {
			a := args[i]
			for _, opt := range []string{"-iquote", "-isystem", "-I"} {
				d, ok := strings.CutPrefix(a, opt)
				if !ok {
					continue
				}
				if d == "" && i+1 < len(args) {
					i++
					d = args[i]
				}
				if d == "" {
					break
				}
				if r, ok := rel(e.Directory, d); ok {
					switch opt {
					case "-iquote":
						out.add(cIncludeDirs{quote: []string{r}})
					case "-isystem":
						sys.add(cIncludeDirs{dirs: []string{r}})
					default:
						out.add(cIncludeDirs{dirs: []string{r}})
					}
				}
				break
			}
		}
	}
	out.add(sys)
	return out
}

// cSplitCommand splits a shell command line at unquoted blanks, removing
// single and double quotes and backslash escapes.
func cSplitCommand(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0 && c == q:
			q = 0
		case q != '\'' && c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case q != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			q, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
