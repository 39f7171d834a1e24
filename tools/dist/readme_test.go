package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRenderReadme(t *testing.T) {
	tests := []struct {
		name    string
		tmpl    string
		vars    map[string]string
		crlf    bool
		want    string
		wantErr string
	}{{
		name: "placeholders",
		tmpl: "ctxd @VERSION@ (@PLATFORM@)\n",
		vars: map[string]string{"VERSION": "1.2.3", "PLATFORM": "linux-x64"},
		want: "ctxd 1.2.3 (linux-x64)\n",
	}, {
		name: "a table is aligned after substitution",
		tmpl: "Contents\n\n  ctxd@EXE@\tthe binary\n  README.txt\tthis file\n\nInstall\tnot a table of one\n",
		vars: map[string]string{"EXE": ".exe"},
		want: "Contents\n\n  ctxd.exe    the binary\n  README.txt  this file\n\nInstall  not a table of one\n",
	}, {
		name: "the widest first column sets the width",
		tmpl: "  a\tx\n  abcdef\ty\n  ab\tz\n",
		want: "  a       x\n  abcdef  y\n  ab      z\n",
	}, {
		name: "two tables are aligned apart",
		tmpl: "  a\tx\n  abc\ty\n\n  abcdef\tz\n  a\tw\n",
		want: "  a    x\n  abc  y\n\n  abcdef  z\n  a       w\n",
	}, {
		name: "CR LF",
		tmpl: "  a\tx\n  bb\ty\n",
		crlf: true,
		want: "  a   x\r\n  bb  y\r\n",
	}, {
		name:    "a placeholder without a value",
		tmpl:    "ctxd @VERSION@ @COMMIT@",
		vars:    map[string]string{"VERSION": "1"},
		wantErr: "no value for @COMMIT@",
	}, {
		name:    "three columns",
		tmpl:    "  a\tb\tc\n",
		wantErr: "line 1 has more than two columns",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderReadme(tt.tmpl, tt.vars, tt.crlf)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// contentsColumns returns, for each row of the Contents table of a
// rendered README.txt, the column where its description starts.
func contentsColumns(t *testing.T, text string) map[string]int {
	t.Helper()
	_, rest, ok := strings.Cut(text, "Contents\n\n")
	if !ok {
		t.Fatalf("no Contents section in:\n%s", text)
	}
	table, _, _ := strings.Cut(rest, "\n\n")
	row := regexp.MustCompile(`^  (\S+)( +)\S`)
	cols := map[string]int{}
	for _, line := range strings.Split(table, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("Contents row %q is not NAME, spaces, description", line)
		}
		cols[m[1]] = 2 + len(m[1]) + len(m[2])
	}
	return cols
}

// TestReleaseReadme renders the real template as dist.sh does for each
// platform: no placeholder is left, the Contents table lists LICENSE and
// its descriptions start in one column whatever the binary's name.
func TestReleaseReadme(t *testing.T) {
	tmpl, err := os.ReadFile("README.txt.in")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ platform, exe string }{{"linux-x64", ""}, {"windows-x64", ".exe"}} {
		t.Run(p.platform, func(t *testing.T) {
			vars := map[string]string{"VERSION": "1.2.3", "COMMIT": strings.Repeat("a", 40), "PLATFORM": p.platform, "EXE": p.exe}
			text, err := RenderReadme(string(tmpl), vars, false)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(text, "\t") || placeholder.MatchString(text) {
				t.Errorf("a tab or a placeholder is left in:\n%s", text)
			}
			cols := contentsColumns(t, text)
			want := map[string]int{}
			for name := range cols {
				want[name] = len("  THIRD_PARTY_NOTICES.txt  ")
			}
			if diff := cmp.Diff(want, cols); diff != "" {
				t.Errorf("description columns of the Contents table (-want +got):\n%s\n%s", diff, text)
			}
			for _, name := range []string{"ctxd" + p.exe, "LICENSE", "nvim/", "THIRD_PARTY_NOTICES.txt", "README.txt"} {
				if _, ok := cols[name]; !ok {
					t.Errorf("the Contents table does not list %s", name)
				}
			}
			if !strings.Contains(text, "MIT license") {
				t.Errorf("the License section does not name the MIT license:\n%s", text)
			}
		})
	}
}

// TestLicenseAgrees holds the license in one place: the repository's
// LICENSE is the MIT license, the VS Code manifest (and its lock) say so,
// the .vsix lets LICENSE in, and dist.sh puts it in every archive and
// .vsix instead of packaging without one.
func TestLicenseAgrees(t *testing.T) {
	repo := filepath.Join("..", "..")
	lic, err := os.ReadFile(filepath.Join(repo, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(lic), "MIT License\n") || !strings.Contains(string(lic), "ctxd authors") {
		t.Errorf("LICENSE is not the MIT license of the ctxd authors:\n%s", lic)
	}
	var manifest struct {
		License string `json:"license"`
	}
	readJSON(t, filepath.Join(repo, "editors", "vscode", "package.json"), &manifest)
	var lock struct {
		Packages map[string]struct {
			License string `json:"license"`
		} `json:"packages"`
	}
	readJSON(t, filepath.Join(repo, "editors", "vscode", "package-lock.json"), &lock)
	got := []string{manifest.License, lock.Packages[""].License}
	if diff := cmp.Diff([]string{"MIT", "MIT"}, got); diff != "" {
		t.Errorf("license of package.json, package-lock.json (-want +got):\n%s", diff)
	}
	ignore, err := os.ReadFile(filepath.Join(repo, "editors", "vscode", ".vscodeignore"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^!LICENSE$`).Match(ignore) {
		t.Errorf(".vscodeignore keeps LICENSE out of the .vsix")
	}
	script, err := os.ReadFile("dist.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`cp LICENSE "$dir/LICENSE"`, `cp LICENSE "$vscode/LICENSE"`, `disttool" license -license LICENSE`} {
		if !strings.Contains(string(script), want) {
			t.Errorf("dist.sh does not run %s", want)
		}
	}
	if strings.Contains(string(script), "--skip-license") {
		t.Errorf("dist.sh packages a .vsix with --skip-license: vsce would not check that LICENSE is in it")
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestDistAptWaits: the apt-get update and install of dist.sh (run as root
// on a fresh machine, where unattended-upgrades may hold the dpkg lock)
// wait for the lock instead of failing at once, as .ci/run's do
// (.ci/run_test checks those).
func TestDistAptWaits(t *testing.T) {
	script, err := os.ReadFile("dist.sh")
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`\bapt-get\b.*\b(update|install)\b`)
	n := 0
	for i, line := range strings.Split(string(script), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") || !call.MatchString(line) {
			continue
		}
		n++
		if !strings.Contains(line, "apt-get -o DPkg::Lock::Timeout=600 ") {
			t.Errorf("dist.sh:%d: apt-get does not wait for the dpkg lock: %s", i+1, strings.TrimSpace(line))
		}
	}
	if n != 2 {
		t.Errorf("dist.sh has %d apt-get update/install lines, want 2 (update, install)", n)
	}
}
