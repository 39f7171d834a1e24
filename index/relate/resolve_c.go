package relate

import (
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// cRequest: `#include "x.h"` is looked up relative to the including file's
// directory, then the root, then the root's include/ directory;
// `#include <x.h>` (a system include) only in the root and include/, so
// that <vector> or <stdio.h> resolve only when the root really holds such
// a file. Compiler include paths (-I) are not known and not searched.
func cRequest(f *fileFacts, imp syntax.Import) request {
	spec := strings.TrimSpace(imp.Path)
	spec = strings.Trim(spec, `"<>`)
	if spec == "" || spec[0] == '/' {
		return request{}
	}
	var dirs []string
	if !imp.System {
		dirs = append(dirs, f.dir)
	}
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
