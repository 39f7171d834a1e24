package relate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// resolveCase is a workspace with the expected import targets and
// unresolved import paths of some of its files.
type resolveCase struct {
	name       string
	archive    string
	imports    map[string][]string
	unresolved map[string][]string
}

func runResolveCases(t *testing.T, cases []resolveCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := workspace(t, tc.archive)
			checkImports(t, Build(src), src, tc.imports, tc.unresolved)
		})
	}
}

func TestResolveGo(t *testing.T) {
	runResolveCases(t, []resolveCase{{
		name: "module",
		archive: `
-- go.mod --
// The module path may be quoted and followed by a comment.
module "example.com/m" // the main module

go 1.22
-- a/a.go --
package a
import example.com/m/b
import fmt
import example.com/m/missing
import golang.org/x/text
-- a/use_nested.go --
package a
import example.com/m/nested
-- a/README.md --
not Go
-- b/b.go --
package b
-- b/doc.go --
-- b/b_test.go --
package b
-- b/export_test.go --
package b
-- b/ext_test.go --
package b_test
import example.com/m/b
-- b/gen.go --
package main
-- vendor/golang.org/x/text/t.go --
package text
-- nested/go.mod --
module example.com/m/nested
-- nested/n.go --
package nested
import example.com/m/b
import example.com/m/nested/inner
-- nested/inner/i.go --
package inner
-- old/o.go --
package old
import ./../b
`,
		imports: map[string][]string{
			// b/gen.go is package main in a directory of package b: never
			// part of what an import reaches. b/doc.go has no extraction:
			// it counts.
			"a/a.go":          {"b/b.go", "b/doc.go", "vendor/golang.org/x/text/t.go"},
			"a/use_nested.go": {"nested/n.go"},
			// An external test package also reaches the in-package test
			// files of the package under test.
			"b/ext_test.go": {"b/b.go", "b/b_test.go", "b/doc.go", "b/export_test.go"},
			// A nested module imports its parent module's packages.
			"nested/n.go": {"b/b.go", "b/doc.go", "nested/inner/i.go"},
			// A relative import in a module is an error of the go
			// command: it reaches nothing.
			"old/o.go": nil,
		},
		unresolved: map[string][]string{
			"a/a.go":      {"fmt", "example.com/m/missing"},
			"nested/n.go": nil,
			"old/o.go":    {"./../b"},
		},
	}, {
		name: "only main",
		archive: `
-- go.mod --
module tool
-- cmd/x/main.go --
package main
-- cmd/x/flags.go --
package main
-- t.go --
package t
import tool/cmd/x
`,
		imports: map[string][]string{"t.go": {"cmd/x/flags.go", "cmd/x/main.go"}},
	}, {
		name: "go source tree",
		archive: `
-- go.mod --
module std
-- fmt/print.go --
package fmt
import internal/fmtsort
import golang.org/x/net/dns
import C
-- internal/fmtsort/sort.go --
package fmtsort
-- vendor/golang.org/x/net/dns/dns.go --
package dns
-- cmd/go.mod --
module cmd
-- cmd/go/main.go --
package main
import cmd/internal/base
import fmt
import golang.org/x/mod/modfile
-- cmd/internal/base/base.go --
package base
-- cmd/vendor/golang.org/x/mod/modfile/read.go --
package modfile
-- crypto/md5/_asm/go.mod --
module crypto/md5/_asm
-- crypto/md5/_asm/asm.go --
package main
import fmt
import github.com/mmcloughlin/avo/build
`,
		imports: map[string][]string{
			"fmt/print.go":           {"internal/fmtsort/sort.go", "vendor/golang.org/x/net/dns/dns.go"},
			"cmd/go/main.go":         {"cmd/internal/base/base.go", "cmd/vendor/golang.org/x/mod/modfile/read.go", "fmt/print.go"},
			"crypto/md5/_asm/asm.go": {"fmt/print.go"},
		},
		unresolved: map[string][]string{
			"fmt/print.go":           {"C"},
			"crypto/md5/_asm/asm.go": {"github.com/mmcloughlin/avo/build"},
		},
	}, {
		name: "no module",
		archive: `
-- a/a.go --
package a
import example.com/b
-- b/b.go --
package b
-- old/o.go --
package old
import ./../b
`,
		// Outside a module, a GOPATH-era relative import reaches the
		// directory it names.
		imports:    map[string][]string{"a/a.go": nil, "old/o.go": {"b/b.go"}},
		unresolved: map[string][]string{"a/a.go": {"example.com/b"}},
	}})
}

func TestResolveGoVia(t *testing.T) {
	src := workspace(t, `
-- go.mod --
module m
-- a/a.go --
package a
import m/b
import m/b
-- b/b.go --
package b
`)
	got := Build(src).Imports("a/a.go")
	want := []Edge{{From: "a/a.go", To: "b/b.go", Kind: EdgeImport, Via: "m/b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Imports (-want +got):\n%s", diff)
	}
}

func TestResolveJS(t *testing.T) {
	runResolveCases(t, []resolveCase{{
		name: "relative and tsconfig",
		archive: `
-- tsconfig.json --
{
  // tsconfig allows comments
  "compilerOptions": {
    "baseUrl": ".", /* and block comments */
    "paths": {
      "@app/*": ["src/app/*", "generated/*",],
      "@lib": ["lib/main",],
      "@app/special/*": ["special/*"],
    },
  },
}
-- src/main.ts --
import ./util.js
import ./components
import ../lib/main
import @app/store
import @app/special/x
import @lib
import react
import widgets/button
import ./styles.css
import ./pkg
import ./data.json?raw
import ../../outside
-- src/legacy.js --
import ./util.js
import ./esm.mjs
import ./types
-- src/util.ts --
def function util
-- src/util.js --
def function util
-- src/esm.mts --
-- src/types.d.ts --
-- src/components/index.tsx --
-- lib/main.js --
-- generated/store.ts --
-- special/x.ts --
-- widgets/button.tsx --
-- src/styles.css --
body {}
-- src/data.json --
{}
-- src/pkg/package.json --
{"name": "pkg", "main": "lib/entry.js"}
-- src/pkg/lib/entry.js --
-- src/pkg/index.js --
`,
		imports: map[string][]string{
			// A TypeScript importer reads "./util.js" as util.ts, a
			// JavaScript importer as util.js.
			"src/main.ts": {
				"generated/store.ts", "lib/main.js", "special/x.ts", "src/components/index.tsx",
				"src/data.json", "src/pkg/lib/entry.js", "src/styles.css", "src/util.ts", "widgets/button.tsx",
			},
			"src/legacy.js": {"src/esm.mts", "src/types.d.ts", "src/util.js"},
		},
		unresolved: map[string][]string{"src/main.ts": {"react", "../../outside"}},
	}, {
		name: "extends and nearest config",
		archive: `
-- tsconfig.base.json --
{
  "compilerOptions": {
    "baseUrl": "shared",
    "paths": {"~/*": ["./*"]}
  }
}
-- app/tsconfig.json --
{"extends": "../tsconfig.base", "compilerOptions": {"strict": true,}}
-- app/x.ts --
import ~/y
import z
-- shared/y.ts --
-- shared/z.ts --
-- web/jsconfig.json --
{"compilerOptions": {"baseUrl": "./src"}}
-- web/tsconfig.json --
{"compilerOptions": {}}
-- web/src/w.js --
import z
-- other/o.js --
import z
`,
		imports: map[string][]string{
			// The extended config's baseUrl is relative to that config,
			// and its paths to the baseUrl. A pattern that matches takes
			// precedence over baseUrl ("z" matches none).
			"app/x.ts": {"shared/y.ts", "shared/z.ts"},
			// web has both configs: tsconfig.json wins, and has no baseUrl.
			"web/src/w.js": nil,
			"other/o.js":   nil,
		},
	}})
}

func TestResolvePython(t *testing.T) {
	runResolveCases(t, []resolveCase{{
		name: "packages",
		archive: `
-- app/__init__.py --
-- app/util.py --
def function fn
-- app/config.py --
-- app/core/__init__.py --
-- app/core/models.py --
import app.util
import app.util.fn
import .helpers
import .
import ..
import app
import ...top
import os
import app.nothing.here
ref views config core fn
-- app/core/helpers.py --
-- app/core/views.py --
-- top.py --
-- scripts/run.py --
import helper
import app.util
-- scripts/helper.py --
-- src/lib/__init__.py --
-- src/lib/thing.py --
-- tests/test_lib.py --
import lib.thing
-- both/__init__.py --
-- both/b.py --
-- both/b/__init__.py --
-- both/user.py --
import .b
`,
		imports: map[string][]string{
			// "app.util.fn" names a member of app/util.py; "." and ".."
			// reach the packages and the submodules the file references
			// (views, config); "app" likewise reaches app/core.
			"app/core/models.py": {
				"app/__init__.py", "app/config.py", "app/core/__init__.py", "app/core/helpers.py",
				"app/core/views.py", "app/util.py", "top.py",
			},
			// A script's own directory is a source root.
			"scripts/run.py":    {"app/util.py", "scripts/helper.py"},
			"tests/test_lib.py": {"src/lib/thing.py"},
			"both/user.py":      {"both/b/__init__.py"},
		},
		unresolved: map[string][]string{"app/core/models.py": {"os", "app.nothing.here"}},
	}, {
		name: "above the root",
		archive: `
-- m.py --
import ..x
-- x.py --
`,
		unresolved: map[string][]string{"m.py": {"..x"}},
	}})
}

func TestResolveJava(t *testing.T) {
	runResolveCases(t, []resolveCase{{
		name: "imports",
		archive: `
-- src/main/java/com/acme/model/User.java --
package com.acme.model
def class User
-- src/main/java/com/acme/model/Role.java --
package com.acme.model
def class Role
def enum Kind in Role
-- src/main/java/com/acme/model/Helpers.java --
package com.acme.model
def class Util
-- src/test/java/com/acme/model/UserTest.java --
package com.acme.model
def class UserTest
-- src/main/java/com/acme/app/Main.java --
package com.acme.app
import com.acme.model.User
import com.acme.model.Util
import static com.acme.model.Role.Kind
import java.util.List
-- src/main/java/com/acme/app/All.java --
package com.acme.app
import com.acme.model.*
import static com.acme.model.Role.*
`,
		imports: map[string][]string{
			"src/main/java/com/acme/app/Main.java": {
				"src/main/java/com/acme/model/Helpers.java", "src/main/java/com/acme/model/Role.java", "src/main/java/com/acme/model/User.java",
			},
			"src/main/java/com/acme/app/All.java": {
				"src/main/java/com/acme/model/Helpers.java", "src/main/java/com/acme/model/Role.java",
				"src/main/java/com/acme/model/User.java", "src/test/java/com/acme/model/UserTest.java",
			},
		},
		unresolved: map[string][]string{"src/main/java/com/acme/app/Main.java": {"java.util.List"}},
	}})
}

func TestResolveNamespaces(t *testing.T) {
	runResolveCases(t, []resolveCase{{
		name: "csharp and cpp",
		archive: `
-- Models/User.cs --
namespace Acme.Models
def class User
-- Models/Role.cs --
namespace Acme.Models
namespace Acme.Models.Internal
def class Role
-- Services/Svc.cs --
namespace Acme.Services
import Acme.Models
import System.Text
import static Acme.Models.Role
import Alias = Acme.Models.Internal
-- lib/a.hpp --
# The extraction lists C++ namespaces dotted.
namespace acme
namespace acme.detail
def class Impl
-- lib/b.cpp --
using acme::detail
using std
`,
		imports: map[string][]string{
			"Services/Svc.cs": {"Models/Role.cs", "Models/User.cs"},
			"lib/b.cpp":       {"lib/a.hpp"},
		},
		unresolved: map[string][]string{"Services/Svc.cs": {"System.Text"}, "lib/b.cpp": {"std"}},
	}})
}

func TestResolveRust(t *testing.T) {
	runResolveCases(t, []resolveCase{{
		name: "crate",
		archive: `
-- Cargo.toml --
[package]
name = "demo"
-- src/lib.rs --
mod store
mod util
use crate::store::item::Item
use std::fmt
use serde::Serialize
use crate::{util::helper, store::{self, item as it}}
-- src/store/mod.rs --
mod item
use super::util::helper
use self::item::Item
-- src/store/item.rs --
use super::super::util
use crate::Config
use self::Thing
-- src/util.rs --
mod fmt
mod missing
-- src/util/fmt.rs --
-- src/bin/tool.rs --
use demo::store
mod cli
use crate::cli::Args
use other::Thing
-- src/bin/cli.rs --
-- tests/it.rs --
mod common
use crate::common::x
-- tests/common/mod.rs --
-- crates/other-lib/Cargo.toml --
# a second crate of the workspace, with its own library name and path
[package]
name = "other-lib"
[lib]
name = "other"
path = "src/other.rs"
-- crates/other-lib/src/other.rs --
-- crates/other-lib/src/thing.rs --
use demo::util
`,
		imports: map[string][]string{
			"src/lib.rs":       {"src/store/item.rs", "src/store/mod.rs", "src/util.rs"},
			"src/store/mod.rs": {"src/store/item.rs", "src/util.rs"},
			// "use self::Thing" resolves to the file itself: no edge, but
			// not unresolved either.
			"src/store/item.rs": {"src/lib.rs", "src/util.rs"},
			"src/util.rs":       {"src/util/fmt.rs"},
			// The package's library by its crate name; another
			// workspace crate by its [lib] name (Thing is no module:
			// its root file).
			"src/bin/tool.rs":               {"crates/other-lib/src/other.rs", "src/bin/cli.rs", "src/store/mod.rs"},
			"tests/it.rs":                   {"tests/common/mod.rs"},
			"crates/other-lib/src/thing.rs": {"src/util.rs"},
		},
		unresolved: map[string][]string{
			"src/lib.rs":        {"std::fmt", "serde::Serialize"},
			"src/store/item.rs": nil,
			"src/util.rs":       {"missing"},
			"src/bin/tool.rs":   nil,
		},
	}})
}

func TestResolveC(t *testing.T) {
	runResolveCases(t, []resolveCase{{
		name: "includes",
		archive: `
-- include/lib/api.h --
-- src/main.c --
import util.h
import lib/api.h
import <stdio.h>
import <lib/api.h>
import ../config.h
import top.h
import ../../escape.h
-- src/util.h --
import util.h
-- config.h --
-- top.h --
-- stdio_like/stdio.h --
`,
		imports: map[string][]string{
			"src/main.c": {"config.h", "include/lib/api.h", "src/util.h", "top.h"},
			"src/util.h": nil,
		},
		unresolved: map[string][]string{
			"src/main.c": {"stdio.h", "../../escape.h"},
			// Including itself resolves (to itself): no edge, not
			// unresolved.
			"src/util.h": nil,
		},
	}})
}
