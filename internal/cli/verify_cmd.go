package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/ledger"
	"github.com/ctxd/ctxd/workspace/markdown"
	"github.com/ctxd/ctxd/workspace/policy"
)

// exitMismatch is the exit code of a verification that found anything
// that does not verify: a digest, a chain link, an artifact's hash, a
// forged projection row.
const exitMismatch = 4

// exitIncomplete is the exit code of a verification whose only findings
// are what an interrupted write leaves (a journal's last line cut short, a
// projection behind its journal): not tampering, and `ctxd verify
// --repair` completes it.
const exitIncomplete = 6

const verifySynopsis = "verify --root DIR [--mode stream|ledger] [--repair] [--json] [--verbose]"

// runVerify replays what ctxd recorded under DIR/.ctxd (ledger, audit
// trail, artifacts) and prints one line per check, or the report as JSON.
// It never writes over anything, except with --repair, which first
// completes what interrupted writes left (a journal's incomplete last line
// moved aside, when the journal has no mismatch) and rebuilds the SQLite
// projection (.ctxd/ledger.sqlite) from the ledger, and says so (a line
// per repair on stdout; in the JSON report, first checks with status ok).
// Exit codes: 0 everything verifies, 4 anything does not verify
// (tampering), 6 only incomplete findings (an interrupted write: run
// --repair), 2 usage, 1 internal error.
func runVerify(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("verify", verifySynopsis, stderr, stdout)
	root := fs.String("root", "", "workspace folder whose .ctxd to verify (required)")
	mode := fs.String("mode", string(ledger.ModeStream), "stream: replay the ledger file; ledger: project it (in memory) and verify from SQL queries, writing .ctxd/ledger.sqlite when it is missing. Both compare an existing .ctxd/ledger.sqlite with a fresh projection")
	repair := fs.Bool("repair", false, "before verifying, complete what interrupted writes left: move a journal's incomplete last line aside (only when the journal has no mismatch) and rebuild .ctxd/ledger.sqlite from the ledger (verification alone never writes)")
	asJSON := fs.Bool("json", false, "print the report as JSON (docs/schemas/verify_report.schema.json), which always lists every check")
	verbose := fs.Bool("verbose", false, "in the text report, list every check, not only mismatches and skipped ones (not with --json, which lists them all)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := func(code int, msg string, args ...any) int {
		fmt.Fprintf(stderr, "ctxd verify: "+msg+"\n", args...)
		return code
	}
	if *root == "" {
		return fail(exitUsage, "--root is required")
	}
	if *asJSON && *verbose {
		// --verbose chooses what the text report shows; the JSON report
		// is for programs and always holds every check. Accepting both
		// would let someone believe --verbose adds something to it.
		return fail(exitUsage, "--verbose applies to the text report; the --json report always lists every check: give one or the other")
	}
	if *mode != string(ledger.ModeStream) && *mode != string(ledger.ModeLedger) {
		return fail(exitUsage, "invalid --mode %q: want stream or ledger", *mode)
	}
	dir, err := rootDir(*root)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	var repaired []workspace.Check
	if *repair {
		if repaired, err = workspace.Repair(dir); err != nil {
			return fail(exitInternal, "%v", err)
		}
	}
	rep, err := workspace.Verify(dir, ledger.Mode(*mode))
	if err != nil {
		return fail(exitInternal, "%v", err)
	}
	where, err := recordsLine(dir)
	if err != nil {
		return fail(exitInternal, "%v", err)
	}
	if len(repaired) > 0 {
		rep.Checks = append(slices.Clip(repaired), rep.Checks...)
		if !*asJSON {
			for _, c := range repaired {
				if _, err := fmt.Fprintf(stdout, "repaired: %s %s\n", c.Name, c.Message); err != nil {
					return fail(exitInternal, "writing the report: %v", err)
				}
			}
		}
	}
	if *asJSON {
		err = writeJSON(stdout, rep)
	} else {
		err = formatVerify(stdout, rep, *verbose, configExists(dir))
		if err == nil {
			_, err = fmt.Fprintln(stdout, where)
		}
	}
	if err != nil {
		return fail(exitInternal, "writing the report: %v", err)
	}
	return verifyExit(rep)
}

// verifyExit is the exit code of a report: a mismatch wins over an
// incomplete finding, since tampering and a crash can meet.
func verifyExit(r *workspace.Report) int {
	switch {
	case r.Counts.Mismatches > 0:
		return exitMismatch
	case r.Counts.Incomplete > 0:
		return exitIncomplete
	}
	return exitOK
}

// formatVerify writes one line per mismatch or skipped check (per check
// when verbose) and a summary line.
// hasConfig says whether the workspace has a .ctxd/config.json: without
// one, the digest the ledger pins is that of ctxd's defaults.
func formatVerify(w io.Writer, r *workspace.Report, verbose, hasConfig bool) error {
	var errs []error
	p := func(format string, args ...any) {
		_, err := fmt.Fprintf(w, format, args...)
		errs = append(errs, err)
	}
	for _, c := range r.Checks {
		what := c.Source
		if c.EventIndex != nil {
			what += fmt.Sprintf(" #%d", *c.EventIndex)
		}
		if c.Kind != "" {
			what += " " + c.Kind
		}
		if c.Name != "" {
			what += " " + c.Name
		}
		switch c.Status {
		case workspace.StatusOK:
			if verbose {
				p("OK        %s\n", what)
			}
		case workspace.StatusSkipped:
			p("SKIPPED   %s: %s\n", what, markdown.OneLine(c.Message))
		case workspace.StatusIncomplete:
			p("INCOMPLETE %s: %s: %s\n", what, c.Field, markdown.OneLine(c.Message))
		default:
			p("MISMATCH  %s: %s: %s\n", what, c.Field, markdown.OneLine(c.Message))
		}
	}
	verdict := "verified"
	switch {
	case r.Counts.Mismatches > 0:
		verdict = "NOT verified"
	case r.Counts.Incomplete > 0:
		verdict = "incomplete (an interrupted write, not tampering; `ctxd verify --repair` completes it)"
	}
	incomplete := ""
	if r.Counts.Incomplete > 0 {
		incomplete = fmt.Sprintf(", %d incomplete", r.Counts.Incomplete)
	}
	p("%s (%s replay): %d ledger events, %d audit events, %d artifacts, %d mismatches%s, %d skipped; %s\n",
		verdict, r.Mode, r.Counts.LedgerEvents, r.Counts.AuditEvents, r.Counts.Artifacts, r.Counts.Mismatches, incomplete, r.Counts.Skipped, configLabel(r.ContextConfigDigest, hasConfig))
	return errors.Join(errs...)
}

// configLabel names the digest of the configuration that the ledger pins
// (context_config_digest): .ctxd/config.json's, or, in a workspace
// without one, that of ctxd's defaults, which is not the digest of a file.
// It is not the config_fingerprint of a build summary, which also covers
// the model, estimator and rule versions, so it says which it is.
func configLabel(d string, hasConfig bool) string {
	switch {
	case !hasConfig && d == "":
		return "no .ctxd/config.json"
	case !hasConfig:
		return "no .ctxd/config.json: ctxd's defaults, " + d + " (context_config_digest)"
	case d == "":
		return ".ctxd/config.json not loaded"
	}
	return ".ctxd/config.json " + d + " (context_config_digest)"
}

// configExists reports whether the workspace at root has a
// .ctxd/config.json.
func configExists(root string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(policy.ConfigPath)))
	return err == nil
}

// recordsLine says which records directory verify read: the workspace's
// .ctxd, or the user's state directory for a workspace without a config;
// or where builds would write them when there are none yet.
func recordsLine(root string) (string, error) {
	rec, ok, err := workspace.ExistingRecords(root)
	if err != nil {
		return "", err
	}
	if !ok {
		return "records: none yet (builds record in " + rec.Dir + ")", nil
	}
	return "records: " + rec.Dir, nil
}
