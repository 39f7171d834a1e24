package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace/ledger"
	"github.com/ctxd/ctxd/workspace/policy"
	"github.com/ctxd/ctxd/workspace/store"
)

// Check statuses.
const (
	StatusOK       = "ok"
	StatusMismatch = "mismatch"
	StatusSkipped  = "skipped"
	// StatusIncomplete is what an interrupted write left (a journal's last
	// line cut short, a projection behind its journal): nothing forged and
	// nothing trusted, completed by [Repair] (`ctxd verify --repair`).
	StatusIncomplete = ledger.StatusIncomplete
)

// Check is one verified item: a ledger or audit event, an artifact, or
// the configuration. Field names the first differing field of a mismatch.
type Check struct {
	// Source is "ledger", "audit", "artifact" or "config".
	Source string `json:"source"`
	// EventIndex is the event's index for ledger and audit checks; nil
	// otherwise (and for findings about a whole file).
	EventIndex *int   `json:"event_index,omitempty"`
	Kind       string `json:"kind,omitempty"`
	// Name is the artifact's path relative to the workspace, or the
	// config file's.
	Name    string `json:"name,omitempty"`
	Status  string `json:"status"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message,omitempty"`
}

// Report is the outcome of [Verify]. OK is true when no check is a
// mismatch or incomplete; checks are in the order ledger, audit,
// artifacts, config. A report whose only findings are incomplete ones
// describes an interrupted write, not tampering.
type Report struct {
	OK                  bool    `json:"ok"`
	Mode                string  `json:"mode"`
	ContextConfigDigest string  `json:"context_config_digest"`
	Counts              Counts  `json:"counts"`
	Checks              []Check `json:"checks"`
}

// Counts summarizes a report.
type Counts struct {
	LedgerEvents int `json:"ledger_events"`
	AuditEvents  int `json:"audit_events"`
	Artifacts    int `json:"artifacts"`
	Mismatches   int `json:"mismatches"`
	Skipped      int `json:"skipped"`
	// Incomplete counts the checks an interrupted write explains and
	// [Repair] completes.
	Incomplete int `json:"incomplete"`
}

// ProjectionFile is the ledger's SQLite projection, relative to the records
// directory (see [Locate]).
const ProjectionFile = "ledger.sqlite"

// RepairProjection is [Repair] reporting only whether it did anything.
func RepairProjection(root string) (bool, error) {
	done, err := Repair(root)
	return len(done) > 0, err
}

// Repair completes what interrupted writes left in root's records (see
// [Locate]) and says what it did, one ok check per repair, in the order
// done; a workspace without records has nothing to repair (and gets none).
// Verification never does this on its own: `ctxd verify --repair` asks
// for it.
//
//   - A journal (the ledger, the audit trail) whose only finding is an
//     incomplete last line gets that line moved to <journal>.torn-<nanos>,
//     as the next append would. A journal with any mismatch is left as it
//     is: tampering is for a person to look at, and its evidence stays.
//   - The SQLite projection is rebuilt from the ledger journal, replacing
//     whatever is there (it is derived data, and the journal is the truth).
func Repair(root string) ([]Check, error) {
	rec, ok, err := existingRecords(root)
	if err != nil || !ok {
		return nil, err
	}
	dir := rec.Dir
	prefix := ""
	if rec.InWorkspace {
		prefix = store.Dir
	}
	var done []Check
	for _, j := range []struct {
		source, rel string
		check       func(string) ([]ledger.Check, error)
		open        func(string) error
	}{
		{ledger.SourceLedger, path.Join("ledger", ledger.JournalFile),
			func(p string) ([]ledger.Check, error) {
				return ledger.VerifyLedger(filepath.Dir(p), ledger.VerifyOptions{Mode: ledger.ModeStream})
			},
			func(p string) error { _, err := ledger.Open(filepath.Dir(p), nil); return err }},
		{ledger.SourceAudit, "audit.jsonl", ledger.VerifyAudit,
			func(p string) error { _, err := ledger.OpenAudit(p, nil); return err }},
	} {
		p := filepath.Join(dir, filepath.FromSlash(j.rel))
		checks, err := j.check(p)
		if err != nil {
			return done, fmt.Errorf("repairing %s: %w", j.rel, err)
		}
		if !onlyIncompleteTail(checks) {
			continue
		}
		before, _ := filepath.Glob(p + ".torn-*")
		if err := j.open(p); err != nil { // opening moves the torn tail aside
			return done, fmt.Errorf("repairing %s: %w", j.rel, err)
		}
		after, _ := filepath.Glob(p + ".torn-*")
		moved := "aside"
		if added := newNames(before, after); len(added) == 1 {
			moved = "to " + path.Join(prefix, path.Dir(j.rel), filepath.Base(added[0]))
		}
		done = append(done, Check{Source: j.source, Name: path.Join(prefix, j.rel), Status: StatusOK, Field: "line",
			Message: "the incomplete last line an interrupted write left was moved " + moved + " by --repair"})
	}
	if err := ledger.Project(filepath.Join(dir, "ledger"), filepath.Join(dir, ProjectionFile)); err != nil {
		return done, fmt.Errorf("repairing the projection: %w", err)
	}
	done = append(done, Check{Source: ledger.SourceLedger, Name: path.Join(prefix, ProjectionFile), Status: StatusOK, Field: ledger.FieldProjection,
		Message: "rebuilt from the ledger (" + path.Join(prefix, "ledger", ledger.JournalFile) + ") by --repair"})
	return done, nil
}

// onlyIncompleteTail reports whether a journal's checks hold an incomplete
// last line and no mismatch. The projection's findings do not count: Repair
// rebuilds it whatever they are.
func onlyIncompleteTail(checks []ledger.Check) bool {
	tail := false
	for _, c := range checks {
		if c.Field == ledger.FieldProjection || strings.HasPrefix(c.Field, ledger.FieldProjection+".") {
			continue
		}
		switch {
		case c.Status == ledger.StatusMismatch:
			return false
		case c.Status == ledger.StatusIncomplete && c.EventIndex < 0 && c.Field == "line":
			tail = true
		}
	}
	return tail
}

// newNames returns the names in after that are not in before (both
// sorted, as filepath.Glob returns them).
func newNames(before, after []string) []string {
	var out []string
	for _, n := range after {
		if _, found := slices.BinarySearch(before, n); !found {
			out = append(out, n)
		}
	}
	return out
}

// Verify replays what ctxd recorded for root, wherever that is: in
// root's .ctxd when it opted in, else in the user's state directory (see
// [Locate]), or in a .ctxd an earlier ctxd wrote into a workspace that did
// not opt in. Stream replay re-reads the ledger, ledger replay first
// projects it into ledger.sqlite and verifies from the database. Both recompute
// every context_digest, check the hash chains of the ledger and the audit
// trail, compare each DECISION's pinned config digest with the current
// .ctxd/config.json, check each stored bundle's fingerprint and every
// artifact's name against its hash. An error means verification itself
// could not run (an unreadable directory); anything wrong with what was
// recorded is a mismatch in the report.
func Verify(root string, mode ledger.Mode) (*Report, error) {
	if mode == "" {
		mode = ledger.ModeStream
	}
	if mode != ledger.ModeStream && mode != ledger.ModeLedger {
		return nil, fmt.Errorf("verify: unknown mode %q (stream or ledger)", mode)
	}
	r := &Report{Mode: string(mode), Checks: []Check{}}
	rec, ok, err := existingRecords(root)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if !ok {
		r.OK = true
		return r, nil
	}
	dir := rec.Dir
	cfg, cerr := policy.Load(root)
	if cerr != nil {
		r.add(Check{Source: "config", Name: policy.ConfigPath, Status: StatusMismatch, Field: "config", Message: cerr.Error()})
	} else {
		r.ContextConfigDigest = cfg.Digest
	}
	// Only a workspace that opted in (its .ctxd/config.json exists) is
	// expected to commit .ctxd; records an earlier ctxd left in one that
	// did not are read where they are.
	var ignore *Check
	if rec.InWorkspace && fileExists(filepath.Join(root, filepath.FromSlash(policy.ConfigPath))) {
		ignore = gitignoreCheck(dir)
	}
	st, err := openRecords(root, rec) // writes .ctxd/.gitignore's missing lines
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer st.Close()
	// Artifacts first: each is read once here, and the ledger and audit
	// checks below look their artifacts up in the result.
	arts, err := st.Verify()
	if err != nil {
		return nil, fmt.Errorf("verify: the artifacts: %w", err)
	}
	prefix := ""
	if rec.InWorkspace {
		prefix = store.Dir
	}
	stored := checkArtifacts(st, prefix, arts)
	ledgerChecks, err := ledger.VerifyLedger(filepath.Join(dir, "ledger"), ledger.VerifyOptions{
		Mode:         mode,
		ConfigDigest: r.ContextConfigDigest,
		CheckBundle:  stored.checkBundle,
		SQLitePath:   filepath.Join(dir, ProjectionFile),
	})
	if err != nil {
		return nil, fmt.Errorf("verify: the ledger: %w", err)
	}
	r.addEvents(ledgerChecks, &r.Counts.LedgerEvents)
	auditChecks, err := ledger.VerifyAudit(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("verify: the audit trail: %w", err)
	}
	r.addEvents(auditChecks, &r.Counts.AuditEvents)
	for _, c := range stored.auditArtifacts(filepath.Join(dir, "audit.jsonl")) {
		r.add(c)
	}
	for _, c := range stored.checks {
		r.Counts.Artifacts++
		r.add(c)
	}
	if ignore != nil {
		r.add(*ignore)
	}
	r.OK = r.Counts.Mismatches == 0 && r.Counts.Incomplete == 0
	return r, nil
}

// gitignoreCheck checks the .gitignore of records kept in the workspace
// (dir is its .ctxd): it must hold ctxd's lines, which keep the records
// out of commits. nil when it does. Opening the records then writes the
// missing lines, so the finding says what was found and that it was
// fixed: it is incomplete, not a mismatch, since no digest is involved.
func gitignoreCheck(dir string) *Check {
	name := path.Join(store.Dir, ".gitignore")
	data, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	var msg string
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg = "is missing"
	case err != nil:
		msg = "cannot be read (" + oneLineErr(err, dir) + ")"
	default:
		missing := store.GitignoreMissing(string(data))
		if len(missing) == 0 {
			return nil
		}
		msg = "lacks ctxd's lines " + strings.Join(missing, ", ")
	}
	return &Check{Source: "config", Name: name, Status: StatusIncomplete, Field: "gitignore",
		Message: msg + ": nothing kept the records out of commits; ctxd has now added its lines (opening the records does); " +
			"check `git status` and `git log -- .ctxd` for records already committed"}
}

// fileExists reports whether name exists (as anything).
func fileExists(name string) bool {
	_, err := os.Lstat(name)
	return err == nil
}

// oneLineErr is err's text on one line, with dir (an absolute path)
// replaced by .ctxd.
func oneLineErr(err error, dir string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), dir, store.Dir)), " ")
}

func (r *Report) add(c Check) {
	switch c.Status {
	case StatusMismatch:
		r.Counts.Mismatches++
	case StatusSkipped:
		r.Counts.Skipped++
	case StatusIncomplete:
		r.Counts.Incomplete++
	}
	r.Checks = append(r.Checks, c)
}

// addEvents adds the ledger package's checks, counting the events.
func (r *Report) addEvents(checks []ledger.Check, events *int) {
	for _, c := range checks {
		out := Check{Source: c.Source, Kind: c.Kind, Status: c.Status, Field: c.Field, Message: c.Message}
		if c.EventIndex >= 0 {
			i := c.EventIndex
			out.EventIndex = &i
			*events++
		}
		r.add(out)
	}
}

// artifactKey names a stored artifact.
type artifactKey struct {
	kind store.Kind
	sha  string
}

// storedBundle is a contexts artifact's bundle id and recomputed
// fingerprint.
type storedBundle struct{ id, fingerprint string }

// storedArtifacts is what verification found under the records' artifacts/: one
// check per file, the artifacts that match their hash, and the bundles of
// the contexts artifacts that are consistent.
type storedArtifacts struct {
	st      *store.Store
	checks  []Check
	ok      map[artifactKey]bool
	bundles map[string]storedBundle // by artifact sha256
}

// checkArtifacts turns the store's checks into the report's and, for each
// contexts artifact that matches its hash, recomputes its bundle's
// fingerprint against the manifest stored beside it.
//
// prefix is what the artifacts' names in the report start with: ".ctxd"
// for records in the workspace, "" for those in the state directory.
func checkArtifacts(st *store.Store, prefix string, arts []store.ArtifactCheck) *storedArtifacts {
	s := &storedArtifacts{st: st, ok: map[artifactKey]bool{}, bundles: map[string]storedBundle{}}
	for _, a := range arts {
		c := Check{Source: "artifact", Kind: string(a.Kind), Name: path.Join(prefix, "artifacts", string(a.Kind), a.Name), Status: a.Status, Field: a.Field, Message: a.Message}
		sha := strings.TrimSuffix(a.Name, ".json")
		if a.Status == StatusOK && a.Kind == store.KindContext {
			var b storedBundle
			b, c.Field, c.Message = s.bundleOf(sha)
			if c.Field != "" {
				c.Status = StatusMismatch
			} else {
				s.bundles[sha] = b
			}
		}
		if c.Status == StatusOK {
			s.ok[artifactKey{a.Kind, sha}] = true
		}
		s.checks = append(s.checks, c)
	}
	return s
}

// bundleOf reads a contexts artifact and recomputes its bundle's
// fingerprint, which must equal the manifest's.
func (s *storedArtifacts) bundleOf(sha string) (storedBundle, string, string) {
	data, err := s.st.Get(store.KindContext, sha)
	if err != nil {
		return storedBundle{}, "artifact", fmt.Sprintf("unreadable: %v", err)
	}
	var a contextArtifact
	if err := json.Unmarshal(data, &a); err != nil || a.Bundle == nil || a.Manifest == nil {
		return storedBundle{}, "schema", "not a " + ContextSchema + " artifact"
	}
	fp, err := contextbuilder.BundleFingerprint(a.Bundle)
	if err != nil {
		return storedBundle{}, "bundle", err.Error()
	}
	if fp != a.Manifest.Fingerprints.BundleFingerprint {
		return storedBundle{}, "bundle_fingerprint", fmt.Sprintf("the bundle's content gives %s, its manifest says %s", fp, a.Manifest.Fingerprints.BundleFingerprint)
	}
	return storedBundle{id: a.Bundle.BundleID, fingerprint: fp}, "", ""
}

// checkBundle verifies a DECISION's bundle: its artifact exists with the
// recorded hash, and the bundle inside has the recorded id and a
// fingerprint recomputed from its content equal to the recorded one.
func (s *storedArtifacts) checkBundle(ref ledger.BundleRef) (field, message string) {
	b, ok := s.bundles[ref.ArtifactSHA256]
	switch {
	case !ok:
		return "bundle.artifact_sha256", fmt.Sprintf("the bundle artifact %s is missing, does not match its hash, or holds an inconsistent bundle (see the artifact checks)", ref.ArtifactSHA256)
	case b.fingerprint != ref.BundleFingerprint:
		return "bundle_fingerprint", fmt.Sprintf("the stored bundle's fingerprint is %s, the DECISION recorded %s", b.fingerprint, ref.BundleFingerprint)
	case b.id != ref.BundleID:
		return "bundle_id", fmt.Sprintf("the stored bundle's id is %s, the DECISION recorded %s", b.id, ref.BundleID)
	}
	return "", ""
}

// auditArtifacts checks that every artifact an audit event names still
// exists with its hash: a deleted bundle of a build outside a thread (no
// DECISION names it) would otherwise go unnoticed. Lines the chain check
// already reports are skipped here.
func (s *storedArtifacts) auditArtifacts(path string) []Check {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []Check
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		var ev struct {
			Index *int   `json:"event_index"`
			Event string `json:"event"`
			Data  struct {
				Context string `json:"context_artifact_sha256"`
				Prompt  string `json:"prompt_artifact_sha256"`
				Policy  string `json:"policy_artifact_sha256"`
			} `json:"data"`
		}
		if len(line) == 0 || json.Unmarshal(line, &ev) != nil || ev.Index == nil {
			continue
		}
		for _, a := range []artifactKey{{store.KindContext, ev.Data.Context}, {store.KindPrompt, ev.Data.Prompt}, {store.KindPolicy, ev.Data.Policy}} {
			if a.sha == "" || s.ok[a] {
				continue
			}
			i := *ev.Index
			out = append(out, Check{Source: "audit", EventIndex: &i, Kind: ev.Event, Name: s.st.Path(a.kind, a.sha), Status: StatusMismatch,
				Field: "artifact", Message: fmt.Sprintf("the %s artifact this event names is missing or does not match its hash", a.kind)})
		}
	}
	return out
}
