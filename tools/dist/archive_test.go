package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// stored is what an archive says about one entry.
type stored struct {
	Name     string
	Mode     os.FileMode
	ModTime  time.Time
	Uid, Gid int
	Owner    string // user and group names, "/"-joined
	Contents string
}

// writeTree creates files under dir in the given order, each with its
// mode and a modification time that differs from file to file.
func writeTree(t *testing.T, dir string, files []treeFile, mtime time.Time) {
	t.Helper()
	for i, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.contents), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
		at := mtime.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

type treeFile struct {
	name     string
	mode     os.FileMode
	contents string
}

func readTarGz(t *testing.T, data []byte) []stored {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("gzip header: name %q, time %v; want neither", gz.Name, gz.ModTime)
	}
	tr := tar.NewReader(gz)
	var got []stored
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, stored{
			Name: hdr.Name, Mode: hdr.FileInfo().Mode(), ModTime: hdr.ModTime.UTC(),
			Uid: hdr.Uid, Gid: hdr.Gid, Owner: hdr.Uname + "/" + hdr.Gname, Contents: string(body),
		})
	}
	return got
}

func readZip(t *testing.T, data []byte) []stored {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var got []stored
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, stored{Name: f.Name, Mode: f.Mode(), ModTime: f.Modified.UTC(), Owner: "/", Contents: string(body)})
	}
	return got
}

func TestWriteArchive(t *testing.T) {
	// Created out of order, with modes and times that must not reach the archive.
	files := []treeFile{
		{"nvim/plugin/ctxd.lua", 0o664, "plugin"},
		{"README.txt", 0o600, "readme"},
		{"ctxd", 0o700, "binary"},
		{"nvim/lua/ctxd/init.lua", 0o644, "init"},
		{"Z-last", 0o775, "z"},
		{"a-first", 0o640, "a"},
	}
	epoch := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	want := []stored{
		{Name: "pkg/", Mode: os.ModeDir | 0o755},
		{Name: "pkg/README.txt", Mode: 0o644, Contents: "readme"},
		{Name: "pkg/Z-last", Mode: 0o755, Contents: "z"},
		{Name: "pkg/a-first", Mode: 0o644, Contents: "a"},
		{Name: "pkg/ctxd", Mode: 0o755, Contents: "binary"},
		{Name: "pkg/nvim/", Mode: os.ModeDir | 0o755},
		{Name: "pkg/nvim/lua/", Mode: os.ModeDir | 0o755},
		{Name: "pkg/nvim/lua/ctxd/", Mode: os.ModeDir | 0o755},
		{Name: "pkg/nvim/lua/ctxd/init.lua", Mode: 0o644, Contents: "init"},
		{Name: "pkg/nvim/plugin/", Mode: os.ModeDir | 0o755},
		{Name: "pkg/nvim/plugin/ctxd.lua", Mode: 0o644, Contents: "plugin"},
	}
	for i := range want {
		want[i].ModTime = epoch
		want[i].Owner = "/"
	}
	tests := []struct {
		name string
		out  string
		read func(*testing.T, []byte) []stored
	}{
		{"tar.gz", "pkg.tar.gz", readTarGz},
		{"zip", "pkg.zip", readZip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Two trees with the same contents and executable bits, written
			// at different times with different permissions otherwise.
			var archives [][]byte
			for i, mtime := range []time.Time{time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC), time.Now()} {
				tree := filepath.Join(t.TempDir(), "pkg")
				order := append([]treeFile(nil), files...)
				if i == 1 {
					for j := range order { // reverse creation order, other non-executable bits
						order[j] = files[len(files)-1-j]
						order[j].mode |= 0o044
					}
				}
				writeTree(t, tree, order, mtime)
				out := filepath.Join(t.TempDir(), tt.out)
				if err := WriteArchive(out, tree, epoch); err != nil {
					t.Fatalf("WriteArchive: %v", err)
				}
				data, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, tt.read(t, data)); diff != "" {
					t.Errorf("entries of tree %d (-want +got):\n%s", i, diff)
				}
				archives = append(archives, data)
			}
			if !bytes.Equal(archives[0], archives[1]) {
				t.Errorf("the two trees gave different archives (%d and %d bytes)", len(archives[0]), len(archives[1]))
			}
		})
	}
}

func TestWriteArchiveRefuses(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		setup   func(t *testing.T, dir string)
		wantErr string
	}{
		{"unknown format", "pkg.tar.xz", func(*testing.T, string) {}, "must end in .zip or .tar.gz"},
		{"symlink", "pkg.zip", func(t *testing.T, dir string) {
			if err := os.Symlink("elsewhere", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "pkg")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, dir)
			out := filepath.Join(t.TempDir(), tt.out)
			err := WriteArchive(out, dir, time.Unix(0, 0))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("WriteArchive error = %v, want one containing %q", err, tt.wantErr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s exists after a failure (stat error %v)", out, err)
			}
		})
	}
}

func TestSums(t *testing.T) {
	dir := t.TempDir()
	for name, contents := range map[string]string{"b.zip": "b", "a.tar.gz": "a", ".hidden": "h", SumsName: "old"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(contents), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteSums(dir); err != nil {
		t.Fatalf("WriteSums: %v", err)
	}
	got, err := os.ReadFile(filepath.Join(dir, SumsName))
	if err != nil {
		t.Fatal(err)
	}
	// sha256 of "a" and "b".
	want := "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  a.tar.gz\n" +
		"3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d  b.zip\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("SHA256SUMS (-want +got):\n%s", diff)
	}
}
