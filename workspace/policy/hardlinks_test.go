package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAllowsHardLinks: only a loadable config saying
// sandbox.allow_hard_links true allows hard links; a missing, strict or
// invalid one does not.
func TestAllowsHardLinks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string
		want   bool
	}{
		{"no config", "", false},
		{"strict config", `{"schema_version": "1"}`, false},
		{"explicitly strict", `{"schema_version": "1", "sandbox": {"allow_hard_links": false}}`, false},
		{"invalid config fails closed", `{"schema_version": "1", "sandbox": {"allow_hard_links": "yes"}}`, false},
		{"allowed", `{"schema_version": "1", "sandbox": {"allow_hard_links": true}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.config != "" {
				if err := os.MkdirAll(filepath.Join(root, ".ctxd"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, ".ctxd", "config.json"), []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := AllowsHardLinks(root); got != tc.want {
				t.Errorf("AllowsHardLinks = %v, want %v", got, tc.want)
			}
		})
	}
}
