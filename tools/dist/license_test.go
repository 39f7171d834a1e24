package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeVsix writes a zip at path holding files (name → contents).
func writeVsix(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, contents := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(contents)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCheckLicense(t *testing.T) {
	const license = "MIT License\n\nCopyright (c) ctxd authors\n"
	dir := t.TempDir()
	mtime := time.Unix(1700000000, 0)
	// archive writes the staged directory name/ (with files) as name+ext.
	archive := func(name, ext string, files map[string]string) string {
		t.Helper()
		stage := filepath.Join(t.TempDir(), name)
		var tree []treeFile
		for n, c := range files {
			tree = append(tree, treeFile{name: n, mode: 0o644, contents: c})
		}
		writeTree(t, stage, tree, mtime)
		out := filepath.Join(dir, name+ext)
		if err := WriteArchive(out, stage, mtime); err != nil {
			t.Fatal(err)
		}
		return out
	}
	vsix := func(name string, files map[string]string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		writeVsix(t, out, files)
		return out
	}
	good := []string{
		archive("ctxd-1-linux-x64", ".tar.gz", map[string]string{"ctxd": "bin", "LICENSE": license}),
		archive("ctxd-1-windows-x64", ".zip", map[string]string{"ctxd.exe": "bin", "LICENSE": license}),
		vsix("ctxd-1.vsix", map[string]string{"extension/package.json": "{}", "extension/LICENSE.txt": license}),
	}
	if err := CheckLicense([]byte(license), good); err != nil {
		t.Errorf("artifacts with the LICENSE: %v", err)
	}
	tests := []struct {
		name, artifact, wantErr string
	}{
		{"archive without it", archive("ctxd-2-linux-x64", ".tar.gz", map[string]string{"ctxd": "bin"}), "ctxd-2-linux-x64/LICENSE: no such entry"},
		{"zip without it", archive("ctxd-2-windows-x64", ".zip", map[string]string{"ctxd.exe": "bin"}), "ctxd-2-windows-x64/LICENSE: no such entry"},
		{"vsix without it", vsix("ctxd-2.vsix", map[string]string{"extension/package.json": "{}"}), "extension/LICENSE.txt: no such entry"},
		{"another license", archive("ctxd-3-linux-x64", ".tar.gz", map[string]string{"LICENSE": "Apache"}), "is not the repository's LICENSE"},
		{"LICENSE in the wrong directory", archive("ctxd-4-linux-x64", ".tar.gz", map[string]string{"nvim/LICENSE": license}), "no such entry"},
		{"not an artifact", filepath.Join(dir, "SHA256SUMS"), "not a .vsix, .tar.gz or .zip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckLicense([]byte(license), append(append([]string(nil), good...), tt.artifact))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
			if strings.Count(err.Error(), "\n") != 0 {
				t.Errorf("the good artifacts were reported too: %v", err)
			}
		})
	}
}
