package main

// The scratch workspace an answer runs against: a copy of the old release
// (root/) next to a folder outside the root (outside/), a snapshot of every
// entry of both (content digests, modes, link targets) taken before and
// after each ctxd run, and the restore that puts the pristine state back.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// entry is one file, directory or symlink of a snapshot.
type entry struct {
	kind byte // 'f' file, 'd' directory, 'l' symlink, '?' other
	mode fs.FileMode
	size int64
	sum  [32]byte
	link string
}

// snapshot maps a workspace-relative '/'-separated path to its entry.
type snapshot map[string]entry

// cachedSum is a file's digest, valid while its stat key is unchanged.
type cachedSum struct {
	key statKey
	sum [32]byte
}

// workspace is one package's scratch copy.
type workspace struct {
	dir     string // holds root/ and outside/
	root    string
	oldTree string // the old release, the pristine content of root/
	// fixtures are files the benchmark adds to root/ (workspace-relative
	// path → content): .env and config/secrets.pem.
	fixtures map[string][]byte
	pristine snapshot
	sums     map[string]cachedSum
}

// Fixtures of every scratch tree.
const (
	envFixture  = ".env"
	pemFixture  = "config/secrets.pem"
	linkFixture = "linkout" // a symlink to ../outside
)

// newWorkspace copies oldTree to dir/root, adds the fixtures and records
// the pristine snapshot.
func newWorkspace(dir, oldTree string) (*workspace, error) {
	w := &workspace{dir: dir, root: filepath.Join(dir, "root"), oldTree: oldTree, sums: map[string]cachedSum{}}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := copyTree(oldTree, w.root); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "outside"), 0o755); err != nil {
		return nil, err
	}
	w.fixtures = map[string][]byte{
		"root/" + envFixture: []byte("# changebench fixture\n"),
		"root/" + pemFixture: []byte("# changebench fixture\n"),
	}
	for p, data := range w.fixtures {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(p)), data); err != nil {
			return nil, err
		}
	}
	if err := os.Symlink("../outside", filepath.Join(w.root, linkFixture)); err != nil {
		return nil, err
	}
	snap, err := w.snapshot()
	if err != nil {
		return nil, err
	}
	w.pristine = snap
	return w, nil
}

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// snapshot walks the workspace (root/, outside/ and anything an answer
// created next to them), hashing the files whose stat changed.
func (w *workspace) snapshot() (snapshot, error) {
	snap := snapshot{}
	err := filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == w.dir {
			return nil
		}
		rel, err := filepath.Rel(w.dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := entry{mode: info.Mode()}
		switch {
		case info.IsDir():
			e.kind = 'd'
		case info.Mode()&fs.ModeSymlink != 0:
			e.kind = 'l'
			if e.link, err = os.Readlink(p); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			e.kind, e.size = 'f', info.Size()
			key, ok := keyOf(info)
			if c, hit := w.sums[rel]; ok && hit && c.key == key {
				e.sum = c.sum
				break
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.sum = sha256.Sum256(data)
			if ok {
				w.sums[rel] = cachedSum{key: key, sum: e.sum}
			}
		default:
			e.kind = '?'
		}
		snap[rel] = e
		return nil
	})
	return snap, err
}

// delta is one entry an answer changed.
type delta struct {
	path          string
	before, after *entry // nil: absent
}

// compare lists the entries that differ between two snapshots, sorted.
func compare(before, after snapshot) []delta {
	var out []delta
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			out = append(out, delta{path: p, before: &b})
		case a != b:
			out = append(out, delta{path: p, before: &b, after: &a})
		}
	}
	for p, a := range after {
		if _, ok := before[p]; !ok {
			out = append(out, delta{path: p, after: &a})
		}
	}
	slices.SortFunc(out, func(x, y delta) int { return strings.Compare(x.path, y.path) })
	return out
}

// pristineContent is a pristine file's bytes: a fixture's, or the old
// release's.
func (w *workspace) pristineContent(rel string) ([]byte, error) {
	if data, ok := w.fixtures[rel]; ok {
		return data, nil
	}
	inRoot, ok := strings.CutPrefix(rel, "root/")
	if !ok {
		return nil, fmt.Errorf("%s: no pristine content", rel)
	}
	return os.ReadFile(filepath.Join(w.oldTree, filepath.FromSlash(inRoot)))
}

// restore puts the pristine state back, given the current snapshot: what
// is extra is removed, what differs or is missing is rewritten.
func (w *workspace) restore(cur snapshot) error {
	var extra []string
	for p := range cur {
		if _, ok := w.pristine[p]; !ok {
			extra = append(extra, p)
		}
	}
	slices.Sort(extra)
	for i := len(extra) - 1; i >= 0; i-- {
		if err := os.RemoveAll(filepath.Join(w.dir, filepath.FromSlash(extra[i]))); err != nil {
			return err
		}
	}
	var fix []string
	for p, e := range w.pristine {
		if c, ok := cur[p]; !ok || c != e {
			fix = append(fix, p)
		}
	}
	if len(extra) == 0 && len(fix) == 0 {
		return nil
	}
	slices.Sort(fix) // a directory before what it holds
	for _, p := range fix {
		e := w.pristine[p]
		abs := filepath.Join(w.dir, filepath.FromSlash(p))
		if c, ok := cur[p]; ok && c.kind != e.kind {
			if err := os.RemoveAll(abs); err != nil {
				return err
			}
		}
		switch e.kind {
		case 'd':
			if err := os.MkdirAll(abs, 0o755); err != nil {
				return err
			}
			if err := os.Chmod(abs, e.mode.Perm()); err != nil {
				return err
			}
		case 'l':
			_ = os.Remove(abs)
			if err := os.Symlink(e.link, abs); err != nil {
				return err
			}
		case 'f':
			data, err := w.pristineContent(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(abs, data, e.mode.Perm()); err != nil {
				return err
			}
			if err := os.Chmod(abs, e.mode.Perm()); err != nil {
				return err
			}
		}
	}
	snap, err := w.snapshot()
	if err != nil {
		return err
	}
	if left := compare(w.pristine, snap); len(left) > 0 {
		return fmt.Errorf("restoring the scratch tree: %s still differs", left[0].path)
	}
	return nil
}

// apply writes files (workspace-relative path → content) before a run.
func (w *workspace) apply(writes map[string][]byte) error {
	keys := make([]string, 0, len(writes))
	for p := range writes {
		keys = append(keys, p)
	}
	slices.Sort(keys)
	for _, p := range keys {
		abs := filepath.Join(w.dir, filepath.FromSlash(p))
		mode := fs.FileMode(0o644)
		if info, err := os.Lstat(abs); err == nil && info.Mode().IsRegular() {
			mode = info.Mode().Perm()
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(abs, writes[p], mode); err != nil {
			return err
		}
	}
	return nil
}

// ctxdRun is one run of the binary.
type ctxdRun struct {
	exit   int
	stdout []byte
	stderr []byte
	cpu    time.Duration
	err    error // the binary could not run or timed out
}

// runner runs bin/ctxd with its own state and cache directories.
type runner struct {
	bin string
	env []string
}

func newRunner(bin, work string) *runner {
	env := append(os.Environ(),
		"XDG_STATE_HOME="+filepath.Join(work, "state"),
		"XDG_CACHE_HOME="+filepath.Join(work, "xdg-cache"),
	)
	return &runner{bin: bin, env: env}
}

func (r *runner) run(args ...string) ctxdRun {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Env = r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := ctxdRun{stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	if cmd.ProcessState != nil {
		res.exit = cmd.ProcessState.ExitCode()
		res.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		res.err = err
	}
	if ctx.Err() != nil {
		res.err = fmt.Errorf("timed out after 2m")
	}
	return res
}

// verdict is check-change's --json output.
type verdict struct {
	Status string `json:"status"`
	Format string `json:"format"`
	Files  []struct {
		Path         string  `json:"path"`
		Action       string  `json:"action"`
		SHA256Before *string `json:"sha256_before"`
		SHA256After  *string `json:"sha256_after"`
	} `json:"files"`
	Failure *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Advice  string `json:"advice"`
	} `json:"failure"`
}

// buildBundle records a purpose-diff bundle of target and returns its id
// and included files.
func (r *runner) buildBundle(root, target string) (string, []string, time.Duration, error) {
	res := r.run("build", "--root", root, "--purpose", "diff", "--target", target, "--format", "json", "--cache-dir", "off")
	if res.err != nil {
		return "", nil, res.cpu, res.err
	}
	if res.exit != 0 {
		return "", nil, res.cpu, fmt.Errorf("ctxd build exited %d: %s", res.exit, firstLine(res.stderr, res.stdout))
	}
	var out struct {
		Bundle struct {
			BundleID string `json:"bundle_id"`
		} `json:"bundle"`
		Manifest struct {
			Selection struct {
				IncludedFiles []struct {
					Path string `json:"path"`
				} `json:"included_files"`
			} `json:"selection"`
		} `json:"manifest"`
	}
	if err := json.Unmarshal(res.stdout, &out); err != nil {
		return "", nil, res.cpu, fmt.Errorf("ctxd build: %v", err)
	}
	var files []string
	for _, f := range out.Manifest.Selection.IncludedFiles {
		files = append(files, path.Clean(f.Path))
	}
	return out.Bundle.BundleID, files, res.cpu, nil
}

// firstLine is the first non-empty line of the first non-empty output.
func firstLine(outs ...[]byte) string {
	for _, o := range outs {
		for _, l := range strings.Split(string(o), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				if len(l) > 300 {
					l = l[:300] + "…"
				}
				return l
			}
		}
	}
	return ""
}

// gitDiff is git's -U3 diff of two texts (no index, no config, myers).
func gitDiff(tmp string, old, nw []byte) (string, error) {
	a, b := filepath.Join(tmp, "old"), filepath.Join(tmp, "new")
	if err := os.WriteFile(a, old, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(b, nw, 0o644); err != nil {
		return "", err
	}
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "--no-ext-diff", "--text", "-U3", "--diff-algorithm=myers", "old", "new")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil // the files differ
	}
	if err != nil {
		return "", fmt.Errorf("git diff: %v: %s", err, stderr.Bytes())
	}
	return string(out), nil
}
