package prompt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
)

// TemplatesDir is the workspace-relative directory of the user's
// templates.
const TemplatesDir = ".ctxd/templates"

// MaxTemplateSize is the largest template file LoadDir reads.
const MaxTemplateSize = 256 << 10

// Set is the templates a workspace can use: the built-in [Defaults], then
// the workspace's own, which may replace a default by id. A Set is
// immutable and safe for concurrent use. A nil *Set holds the defaults
// only; the zero Set holds no template (every Resolve fails), so make
// one with [LoadDir].
type Set struct {
	byID map[string]entry
	ids  []string // sorted
}

// entry is one template of a Set with its hash and origin.
type entry struct {
	t    Template
	sha  string
	path string // workspace-relative file, "" for a built-in template
}

var (
	defaultsOnce sync.Once
	defaultSet   *Set
)

// defaults returns the Set of the built-in templates, built once.
func defaults() *Set {
	defaultsOnce.Do(func() {
		s, err := newSet()
		if err != nil {
			panic(fmt.Sprintf("prompt: built-in templates: %v", err)) // a test keeps them valid
		}
		defaultSet = s
	})
	return defaultSet
}

// newSet returns a Set holding the built-in templates.
func newSet() (*Set, error) {
	s := &Set{byID: map[string]entry{}}
	for _, t := range Defaults() {
		if err := t.check(); err != nil {
			return nil, err
		}
		sha, err := t.hash()
		if err != nil {
			return nil, err
		}
		s.byID[t.ID] = entry{t: t, sha: sha}
	}
	s.sortIDs()
	return s, nil
}

// LoadDir returns the Set of the workspace at root: the defaults, then
// every <root>/.ctxd/templates/*.json in file-name order. An absent
// directory gives the defaults only. File names starting with "." (editor
// lock and backup files) are skipped, as are names not ending in ".json".
//
// Loading is strict and fails closed with an [*Error] of reason
// [ReasonBuildFailed] naming the file and member: invalid JSON (with line
// and column), an unknown, missing, repeated or non-string member, a bad
// schema, id or purpose, a placeholder error (see [Template]), a file over
// [MaxTemplateSize], a file that is not regular or that resolves outside
// root through a symlink, an id defined by two files, and a file that
// replaces "default-<purpose>" with another purpose. The caller loads
// once, at startup.
func LoadDir(root string) (*Set, error) {
	s, err := newSet()
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, buildErr("", "", "check the workspace root", fmt.Sprintf("opening the workspace: %v", err))
	}
	defer r.Close()
	fi, err := r.Stat(TemplatesDir)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, buildErr(TemplatesDir, "", "make "+TemplatesDir+" a directory inside the workspace", fmt.Sprintf("cannot read the directory: %v", stripRoot(err, root)))
	}
	if !fi.IsDir() {
		return nil, buildErr(TemplatesDir, "", "make "+TemplatesDir+" a directory, or remove it to use the built-in templates", "not a directory")
	}
	d, err := r.Open(TemplatesDir)
	if err != nil {
		return nil, buildErr(TemplatesDir, "", "check the directory's permissions", fmt.Sprintf("cannot read the directory: %v", stripRoot(err, root)))
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, buildErr(TemplatesDir, "", "check the directory's permissions", fmt.Sprintf("cannot list the directory: %v", stripRoot(err, root)))
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	fromFile := map[string]string{} // id → file defining it
	for _, n := range names {
		p := path.Join(TemplatesDir, n)
		t, err := loadFile(r, p, root)
		if err != nil {
			return nil, err
		}
		if prev, dup := fromFile[t.ID]; dup {
			return nil, buildErr(p, "/id", "give each template its own id",
				fmt.Sprintf("id %q is already defined by %s", t.ID, prev))
		}
		fromFile[t.ID] = p
		if want, ok := strings.CutPrefix(t.ID, "default-"); ok && validPurpose(want) && t.Purpose != want {
			return nil, buildErr(p, "/purpose", fmt.Sprintf("set purpose to %q or choose another id", want),
				fmt.Sprintf("template %q replaces the default for %s but has purpose %q", t.ID, want, t.Purpose))
		}
		sha, herr := t.hash()
		if herr != nil {
			herr.Path = p
			return nil, herr
		}
		s.byID[t.ID] = entry{t: t, sha: sha, path: p}
	}
	s.sortIDs()
	return s, nil
}

// loadFile reads and parses one template file inside r.
func loadFile(r *os.Root, p, root string) (Template, error) {
	f, err := r.OpenFile(p, openFlags, 0)
	if err != nil {
		return Template{}, buildErr(p, "", "make the template a regular file inside the workspace (a symlink may not point outside it)",
			fmt.Sprintf("cannot open the file inside the workspace: %v", stripRoot(err, root)))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Template{}, buildErr(p, "", "check the file's permissions", fmt.Sprintf("cannot read the file: %v", stripRoot(err, root)))
	}
	if !fi.Mode().IsRegular() {
		return Template{}, buildErr(p, "", "make the template a regular file", "not a regular file")
	}
	tooBig := buildErr(p, "", "keep templates short: the context is added at render time",
		fmt.Sprintf("the file is over %d KiB", MaxTemplateSize>>10))
	if fi.Size() > MaxTemplateSize {
		return Template{}, tooBig
	}
	// The limit holds even if the file grows after the Stat.
	data, err := io.ReadAll(io.LimitReader(f, MaxTemplateSize+1))
	if err != nil {
		return Template{}, buildErr(p, "", "check the file's permissions", fmt.Sprintf("cannot read the file: %v", stripRoot(err, root)))
	}
	if len(data) > MaxTemplateSize {
		return Template{}, tooBig
	}
	return parseTemplate(data, p)
}

// stripRoot removes the absolute root from an error's text, so that
// messages name workspace-relative paths only.
func stripRoot(err error, root string) string {
	msg := err.Error()
	if root != "" {
		msg = strings.ReplaceAll(msg, strings.TrimSuffix(root, "/")+"/", "")
	}
	return msg
}

func (s *Set) sortIDs() {
	s.ids = s.ids[:0]
	for id := range s.byID {
		s.ids = append(s.ids, id)
	}
	slices.Sort(s.ids)
}

// Resolve returns the template of a request and its hash (lowercase hex
// sha256 of the template's JCS form, recorded in the prompt as
// template_sha256). An empty id means "default-<purpose>": the workspace's
// replacement when it has one, else the built-in template. An unknown
// purpose or id, or a template of another purpose, is an [*Error] of
// reason [ReasonBuildFailed] listing the ids available for the purpose.
func (s *Set) Resolve(purpose, id string) (Template, string, error) {
	if s == nil {
		s = defaults()
	}
	if !validPurpose(purpose) {
		return Template{}, "", buildErr("", "", "use \"intent\", \"plan\" or \"diff\"", fmt.Sprintf("purpose %q is not intent, plan or diff", shorten(purpose, 64)))
	}
	if id == "" {
		id = "default-" + purpose
	}
	advice := "use one of the templates for " + purpose + ": " + strings.Join(s.idsFor(purpose), ", ")
	e, ok := s.byID[id]
	if !ok {
		return Template{}, "", buildErr("", "", advice, fmt.Sprintf("no template %q", shorten(id, 80)))
	}
	if e.t.Purpose != purpose {
		return Template{}, "", buildErr(e.path, "", advice, fmt.Sprintf("template %q is for purpose %q, not %q", id, e.t.Purpose, purpose))
	}
	return e.t, e.sha, nil
}

// idsFor returns the sorted ids of the templates of a purpose.
func (s *Set) idsFor(purpose string) []string {
	var out []string
	for _, id := range s.ids {
		if s.byID[id].t.Purpose == purpose {
			out = append(out, id)
		}
	}
	return out
}

// IDs returns the ids of every template of the set, sorted; the slice is
// new on each call.
func (s *Set) IDs() []string {
	if s == nil {
		s = defaults()
	}
	return slices.Clone(s.ids)
}
