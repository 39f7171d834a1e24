package ignore_test

import (
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/ctxd/ctxd/index/ignore"
	"github.com/ctxd/ctxd/tools/corpus"
)

// bench100 is a 100-pattern .gitignore in the style of real ones: mostly
// names and extensions, some anchored paths, classes, "**" and negations.
const bench100 = `/build/
/dist/
/out/
target/
*.o
*.a
*.so
*.dylib
*.dll
*.exe
*.test
*.out
*.prof
*.pyc
__pycache__/
*.class
*.jar
*.war
*.log
logs/
*.tmp
*.temp
*.swp
*.swo
*~
.DS_Store
Thumbs.db
.idea/
.vscode/
*.iml
npm-debug.log*
yarn-error.log*
.pnpm-store/
coverage/
.nyc_output/
*.lcov
.env.local
.cache/
.parcel-cache/
.next/
.nuxt/
vendor/
!vendor/modules.txt
*.[oa]
*.py[cod]
*$py.class
.venv/
venv/
ENV/
*.egg-info/
.tox/
.pytest_cache/
.mypy_cache/
*.bak
*.orig
*.rej
**/testdata/*.golden.tmp
**/generated/**
doc/**/*.pdf
/cmd/*/debug
/internal/**/mock_*.go
*_string.go.tmp
zz_generated*.go
*.pb.go.orig
[Dd]ebug/
[Rr]elease/
x64/
x86/
*.suo
*.user
*.userosscache
*.sln.docstates
.gradle/
gradle-app.setting
!gradle-wrapper.jar
.terraform/
*.tfstate
*.tfstate.*
crash.log
.sass-cache/
*.css.map
*.min.js.map
bower_components/
.eslintcache
.stylelintcache
*.tsbuildinfo
.yarn/cache
.yarn/unplugged
!.yarn/releases
*.sqlite
*.db-journal
tmp/
temp/
!.gitkeep
*.gz
*.zip
*.tar
*.7z
**/fixtures/**/*.bin
/misc/**/*.wasm.map
`

// goSrcPaths lists every file and directory of $(go env GOROOT)/src,
// slash-separated and relative to it.
func goSrcPaths(b *testing.B) (paths []string, dirs []bool) {
	b.Helper()
	root, err := corpus.GoSrc()
	if err != nil {
		b.Skipf("no Go source tree: %v", err)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		paths = append(paths, filepath.ToSlash(rel))
		dirs = append(dirs, d.IsDir())
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return paths, dirs
}

// BenchmarkMatch decides every path of the Go source tree with a
// 100-pattern root .gitignore plus the deny rules. Match checks every
// ancestor of each path as well; MatchLeaf is what a walker that prunes
// ignored directories pays per entry. go-gitignore needs about 87 µs per
// path for 100 patterns.
func BenchmarkMatch(b *testing.B) {
	paths, dirs := goSrcPaths(b)
	if n := ignore.NewRules("", ".gitignore", []byte(bench100)).Len(); n != 100 {
		b.Fatalf("bench100 has %d patterns, want 100", n)
	}
	stack := ignore.Stack{ignore.Deny(), ignore.NewRules("", ".gitignore", []byte(bench100))}
	for _, tc := range []struct {
		name  string
		match func(string, bool) ignore.Decision
	}{
		{"Match", stack.Match},
		{"MatchLeaf", stack.MatchLeaf},
	} {
		b.Run(tc.name, func(b *testing.B) {
			loops, ignored := 0, 0
			for b.Loop() {
				ignored = 0
				for i, p := range paths {
					if tc.match(p, dirs[i]).Ignored {
						ignored++
					}
				}
				loops++
			}
			// Reported after the loop: b.Loop resets user metrics when it starts.
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(loops*len(paths)), "ns/path")
			b.ReportMetric(float64(len(paths)), "paths")
			b.ReportMetric(float64(ignored), "ignored")
		})
	}
}

// BenchmarkNewRules parses the 100-pattern file.
func BenchmarkNewRules(b *testing.B) {
	data := []byte(bench100)
	for b.Loop() {
		ignore.NewRules("", ".gitignore", data)
	}
}

// BenchmarkCheck decides every path of the Go source tree with a Checker
// rooted there (the tree's own ignore files, which are few, plus the deny
// rules), as the index's walk does; the ignore files are read once.
func BenchmarkCheck(b *testing.B) {
	paths, dirs := goSrcPaths(b)
	root, _ := corpus.GoSrc()
	c := ignore.NewChecker(root)
	loops := 0
	for b.Loop() {
		for i, p := range paths {
			c.Check(p, dirs[i])
		}
		loops++
	}
	// Reported after the loop: b.Loop resets user metrics when it starts.
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(loops*len(paths)), "ns/path")
}
