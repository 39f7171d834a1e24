package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// workspace makes a workspace root, with .ctxd/config.json holding config
// unless config is nil.
func workspace(t *testing.T, config []byte) string {
	t.Helper()
	root := t.TempDir()
	if config != nil {
		if err := os.MkdirAll(filepath.Join(root, ".ctxd"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".ctxd", "config.json"), config, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestLoad(t *testing.T) {
	t.Run("absent .ctxd", func(t *testing.T) {
		c, err := Load(workspace(t, nil))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Default().Digest, c.Digest); diff != "" || c.Present {
			t.Errorf("Present = %v, digest (-want +got):\n%s", c.Present, diff)
		}
	})
	t.Run("absent file in .ctxd", func(t *testing.T) {
		root := workspace(t, nil)
		if err := os.Mkdir(filepath.Join(root, ".ctxd"), 0o755); err != nil {
			t.Fatal(err)
		}
		c, err := Load(root)
		if err != nil {
			t.Fatal(err)
		}
		if c.Present || c.Digest != Default().Digest {
			t.Errorf("Load = Present %v, digest %s; want the defaults", c.Present, c.Digest)
		}
	})
	t.Run("valid", func(t *testing.T) {
		c, err := Load(workspace(t, []byte(fullConfig)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fullFile, c.File); diff != "" || !c.Present {
			t.Errorf("Present = %v, File (-want +got):\n%s", c.Present, diff)
		}
		if c.Digest != mustParse(t, fullConfig).Digest {
			t.Error("Load and Parse disagree on the digest")
		}
	})
	t.Run("symbolic link inside the root", func(t *testing.T) {
		root := workspace(t, nil)
		if err := os.WriteFile(filepath.Join(root, "team-config.json"), []byte(fullConfig), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(root, ".ctxd"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..", "team-config.json"), filepath.Join(root, ".ctxd", "config.json")); err != nil {
			t.Skipf("cannot make symbolic links: %v", err)
		}
		c, err := Load(root)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Present || c.Digest != mustParse(t, fullConfig).Digest {
			t.Errorf("Load through an inner link = Present %v, digest %s", c.Present, c.Digest)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		_, err := Load(workspace(t, []byte(`{"schema_version": "1", "context": {"max_refs": "ten"}}`)))
		checkError(t, err, ReasonInvalid, "/context/max_refs", "must be an integer from 1 to 1000")
	})
}

func TestLoadReadFailed(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string) // makes .ctxd/config.json unreadable
		msg   string
	}{
		{
			name: "directory",
			setup: func(t *testing.T, root string) {
				mkdir(t, filepath.Join(root, ".ctxd", "config.json"))
			},
			msg: "not a regular file (a directory)",
		},
		{
			name: ".ctxd is a file",
			setup: func(t *testing.T, root string) {
				write(t, filepath.Join(root, ".ctxd"), "{}")
			},
			msg: "cannot be opened",
		},
		{
			name: "symbolic link outside the root",
			setup: func(t *testing.T, root string) {
				outside := filepath.Join(t.TempDir(), "config.json")
				write(t, outside, `{"schema_version": "1"}`)
				mkdir(t, filepath.Join(root, ".ctxd"))
				symlink(t, outside, filepath.Join(root, ".ctxd", "config.json"))
			},
			msg: "a symbolic link must stay inside the workspace",
		},
		{
			name: "relative symbolic link escaping the root",
			setup: func(t *testing.T, root string) {
				mkdir(t, filepath.Join(root, ".ctxd"))
				symlink(t, filepath.Join("..", "..", "elsewhere.json"), filepath.Join(root, ".ctxd", "config.json"))
			},
			msg: "cannot be opened",
		},
		{
			name: ".ctxd links outside the root",
			setup: func(t *testing.T, root string) {
				outside := t.TempDir()
				write(t, filepath.Join(outside, "config.json"), `{"schema_version": "1"}`)
				symlink(t, outside, filepath.Join(root, ".ctxd"))
			},
			msg: "cannot be opened",
		},
		{
			name: "dangling symbolic link",
			setup: func(t *testing.T, root string) {
				mkdir(t, filepath.Join(root, ".ctxd"))
				symlink(t, "missing.json", filepath.Join(root, ".ctxd", "config.json"))
			},
			msg: "symbolic link to a file that does not exist",
		},
		{
			name: "too large",
			setup: func(t *testing.T, root string) {
				mkdir(t, filepath.Join(root, ".ctxd"))
				big := `{"schema_version": "1"}` + strings.Repeat(" ", MaxFileSize)
				write(t, filepath.Join(root, ".ctxd", "config.json"), big)
			},
			msg: "more than the 1048576 bytes",
		},
		{
			name: "not UTF-8",
			setup: func(t *testing.T, root string) {
				mkdir(t, filepath.Join(root, ".ctxd"))
				write(t, filepath.Join(root, ".ctxd", "config.json"), "{\n\"schema_version\": \"1\xc3\"}")
			},
			msg: "not valid UTF-8 (line 2, column 21)",
		},
		{
			name: "named pipe",
			setup: func(t *testing.T, root string) {
				mkdir(t, filepath.Join(root, ".ctxd"))
				mkfifo(t, filepath.Join(root, ".ctxd", "config.json"))
			},
			msg: "not a regular file (a named pipe)",
		},
		{
			name: "permission denied",
			setup: func(t *testing.T, root string) {
				if os.Geteuid() == 0 {
					t.Skip("root reads files whatever their mode")
				}
				mkdir(t, filepath.Join(root, ".ctxd"))
				p := filepath.Join(root, ".ctxd", "config.json")
				write(t, p, `{"schema_version": "1"}`)
				if err := os.Chmod(p, 0); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(p, 0o644) })
			},
			msg: "cannot be opened",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.setup(t, root)
			c, err := Load(root)
			if err == nil {
				t.Fatalf("Load succeeded (Present %v); want %s", c.Present, ReasonReadFailed)
			}
			checkError(t, err, ReasonReadFailed, "", tt.msg)
		})
	}
	t.Run("permission error unwraps", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads files whatever their mode")
		}
		root := workspace(t, []byte(`{"schema_version": "1"}`))
		p := filepath.Join(root, ".ctxd", "config.json")
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o644) })
		_, err := Load(root)
		if !errors.Is(err, fs.ErrPermission) {
			t.Errorf("Load = %v, want an error wrapping fs.ErrPermission", err)
		}
	})
	t.Run("missing root", func(t *testing.T) {
		_, err := Load(filepath.Join(t.TempDir(), "nowhere"))
		checkError(t, err, ReasonReadFailed, "", "workspace root cannot be opened")
	})
}

func checkError(t *testing.T, err error, reason, field, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not an *Error", err, err)
	}
	type key struct{ Reason, Path, Field string }
	if diff := cmp.Diff(key{reason, ConfigPath, field}, key{e.Reason, e.Path, e.Field}); diff != "" {
		t.Errorf("error %q (-want +got):\n%s", e.Message, diff)
	}
	if !strings.Contains(e.Message, msg) {
		t.Errorf("Message = %q, want it to contain %q", e.Message, msg)
	}
	if !strings.Contains(e.Message, ConfigPath) {
		t.Errorf("Message = %q, want it to name %s", e.Message, ConfigPath)
	}
	if e.Advice == "" {
		t.Error("Advice is empty")
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make symbolic links: %v", err)
	}
}
