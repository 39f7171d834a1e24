package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxd/ctxd/workspace/policy"
	"github.com/ctxd/ctxd/workspace/store"
)

// Records is where a workspace's records (artifacts/, ledger/,
// audit.jsonl, ledger.sqlite) live.
type Records struct {
	// Dir is the absolute directory holding them.
	Dir string
	// InWorkspace is true when Dir is <root>/.ctxd: the workspace opted
	// in with a .ctxd/config.json. Otherwise Dir is under the user's
	// state directory and nothing is written into the workspace.
	InWorkspace bool
}

// ErrNoStateDir is the failure of [Locate] for a workspace that did not
// opt in when neither $XDG_STATE_HOME nor a home directory is known:
// there is nowhere to keep its records outside it.
var ErrNoStateDir = errors.New("no state directory: set XDG_STATE_HOME or HOME")

// Locate says where the records of the workspace at root live. A
// workspace with a .ctxd/config.json (a team opted in; the file is meant
// to be committed) keeps them in <root>/.ctxd, git-ignored by the
// .gitignore ctxd writes there. Any other workspace is the user's alone,
// and may be read-only or not theirs at all (a toolchain's source tree):
// its records go to $XDG_STATE_HOME/ctxd/workspaces/<name>-<hash>, or
// ~/.local/state/ctxd/workspaces/<name>-<hash> without XDG_STATE_HOME,
// where hash is the sha256 of the root's real path (symlinks resolved)
// and name its last element, so that each folder has one record however
// it is reached, and a person can tell the directories apart.
//
// Locate reads, never writes.
func Locate(root string) (Records, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return Records{}, fmt.Errorf("locating the records: %w", err)
	}
	if _, err := os.Lstat(filepath.Join(abs, filepath.FromSlash(policy.ConfigPath))); err == nil {
		return Records{Dir: filepath.Join(abs, store.Dir), InWorkspace: true}, nil
	}
	return stateRecords(abs)
}

// stateRecords is the records directory of the workspace at abs under the
// user's state directory.
func stateRecords(abs string) (Records, error) {
	base, err := stateHome()
	if err != nil {
		return Records{}, fmt.Errorf("locating the records of %s: %w", abs, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// A folder that does not exist (yet) is keyed by its path as
		// given: there is nothing to resolve.
		real = abs
	}
	sum := sha256.Sum256([]byte(real))
	name := readableName(filepath.Base(real)) + "-" + hex.EncodeToString(sum[:8])
	return Records{Dir: filepath.Join(base, "ctxd", "workspaces", name)}, nil
}

// stateHome is the XDG base directory for state: $XDG_STATE_HOME when it
// is an absolute path (the specification says to ignore a relative one),
// else ~/.local/state.
func stateHome() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return "", ErrNoStateDir
	}
	return filepath.Join(home, ".local", "state"), nil
}

// readableName keeps a folder name's letters, digits, '.', '-' and '_'
// (others become '_'), at most 48 bytes of it: a directory name that is
// safe on every file system and still tells a person which folder it is.
func readableName(base string) string {
	var b strings.Builder
	for _, r := range base {
		if b.Len() >= 48 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 || strings.Trim(b.String(), "_") == "" {
		return "root"
	}
	return b.String()
}

// openRecords opens the store of a workspace's records, creating its
// directory when absent.
func openRecords(root string, rec Records) (*store.Store, error) {
	if rec.InWorkspace {
		return store.Open(root)
	}
	return store.OpenDir(rec.Dir)
}

// ExistingRecords is where [Verify] and [Repair] read the records of root
// (see existingRecords), for a front end to say which directory it
// verified; ok is false when no directory holds records, and rec is then
// where builds would write them.
func ExistingRecords(root string) (rec Records, ok bool, err error) {
	return existingRecords(root)
}

// existingRecords is where [Verify] and [RepairProjection] find the
// records of root: where builds write them ([Locate]) when they hold any,
// else where they were written before the workspace changed sides: the
// state directory of a workspace that has since opted in, or the .ctxd an
// earlier ctxd wrote into a workspace that did not opt in. ok is false
// when neither holds records.
func existingRecords(root string) (rec Records, ok bool, err error) {
	rec, err = Locate(root)
	if err != nil {
		return Records{}, false, err
	}
	if holdsRecords(rec.Dir) {
		return rec, true, nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return Records{}, false, fmt.Errorf("locating the records: %w", err)
	}
	other := Records{Dir: filepath.Join(abs, store.Dir), InWorkspace: true}
	if rec.InWorkspace {
		if other, err = stateRecords(abs); err != nil {
			return rec, false, nil // nowhere else to look
		}
	}
	if holdsRecords(other.Dir) {
		return other, true, nil
	}
	return rec, false, nil
}

// holdsRecords reports whether dir holds any record: a .ctxd with only a
// config.json and templates/ holds none.
func holdsRecords(dir string) bool {
	for _, name := range []string{"ledger", "artifacts", "audit.jsonl", ProjectionFile} {
		if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}
