package cli

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxd/ctxd/contextbuilder/secrets"
)

// secretRulesFlag registers --secret-rules, shared by serve and build.
// The user's extra rules live in the user's own config, never in a
// workspace: no scanned repository can change what counts as a secret.
func secretRulesFlag(fs *flag.FlagSet) *string {
	return fs.String("secret-rules", "", "extra secret rules in gitleaks TOML format, added to the built-in ones (default: ctxd/secret-rules.toml in the user config directory, when present)")
}

// defaultSecretRules is the user-level rules file read when --secret-rules
// is not given; "" when the platform has no user config directory.
func defaultSecretRules() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ctxd", "secret-rules.toml")
}

// loadSecretRules returns the scanner of the built-in rules plus the
// user's: from path when given (it must exist), else from the default file
// when it exists. Errors name the file.
func loadSecretRules(path string) (*secrets.Scanner, string, error) {
	explicit := path != ""
	if !explicit {
		path = defaultSecretRules()
		if path == "" {
			return secrets.Default(), "", nil
		}
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return secrets.Default(), "", nil
	}
	if err != nil {
		return nil, path, fmt.Errorf("reading secret rules %s: %w", path, err)
	}
	extra, err := secrets.ParseGitleaksTOML(data)
	if err != nil {
		return nil, path, fmt.Errorf("secret rules %s: %w", path, err)
	}
	s, err := secrets.New(extra)
	if err != nil {
		return nil, path, fmt.Errorf("secret rules %s: %w", path, err)
	}
	return s, path, nil
}
