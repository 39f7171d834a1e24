package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/handlers"
	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/change"
)

const checkChangeSynopsis = "check-change --root DIR --answer FILE [--bundle ID] [--json] [--write] [--thread-id ID --turn-id ID] [--secret-rules FILE]"

// exitRejected is check-change's exit code for a rejected answer.
const exitRejected = 5

// checkChangeJSON is the --json output, exactly the interface scripts rely
// on: the verdict, the format, per file its path, action and digests, and
// the failure (null when accepted).
type checkChangeJSON struct {
	Status  workspace.ChangeStatus  `json:"status"`
	Format  change.Format           `json:"format"`
	Files   []workspace.CheckedFile `json:"files"`
	Failure *change.Rejection       `json:"failure"`
}

// runCheckChange checks a model's answer as ctxd.checkChange does, against
// the files on disk (and the bundle's manifest with --bundle), and with
// --write applies an accepted change atomically. Exit codes: 0 accepted
// (and written with --write), 5 rejected (nothing written), 2 usage or
// invalid argument (an unknown bundle id, secret rules that cannot be
// loaded), 1 internal error, 3 refused (a thread turn that does not
// exist, a record that cannot be written).
func runCheckChange(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("check-change", checkChangeSynopsis, stderr, stdout)
	root := fs.String("root", "", "workspace folder the answer changes (required)")
	answer := fs.String("answer", "", "file holding the model's answer; - reads stdin (required)")
	bundle := fs.String("bundle", "", "bundle_id of the recorded bundle the answer was made from: its manifest (files, sha256) is the reference")
	asJSON := fs.Bool("json", false, "print the verdict as JSON: {status, format, files, failure}")
	write := fs.Bool("write", false, "apply an accepted change to the files (atomically per file, modes kept)")
	thread := fs.String("thread-id", "", "thread whose turn records the answer as its EXECUTION")
	turn := fs.String("turn-id", "", "turn the answer answers (with --thread-id)")
	rules := secretRulesFlag(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := func(code int, msg string, args ...any) int {
		fmt.Fprintf(stderr, "ctxd check-change: "+msg+"\n", args...)
		return code
	}
	switch {
	case *root == "":
		return fail(exitUsage, "--root is required")
	case *answer == "":
		return fail(exitUsage, "--answer is required (a file, or - for stdin)")
	}
	dir, err := rootDir(*root)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	in := stdin
	if *answer != "-" {
		f, err := os.Open(*answer)
		if err != nil {
			return fail(exitUsage, "--answer: %v", err)
		}
		defer f.Close()
		in = f
	}
	text, err := io.ReadAll(io.LimitReader(in, workspace.MaxExecutionOutput+1))
	if err != nil {
		return fail(exitInternal, "reading the answer: %v", err)
	}
	scanner, _, err := loadSecretRules(*rules)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	w := workspace.Open(dir, workspace.Options{Now: clock()})
	res, err := w.CheckChange(context.Background(), &workspace.CheckChangeArgs{Answer: string(text), BundleID: *bundle, ThreadID: *thread, TurnID: *turn},
		workspace.CheckOptions{Write: *write, Redactor: scanner, Positions: handlers.Positions(position.UTF16)})
	var refusal *contextbuilder.Refusal
	switch {
	case errors.As(err, &refusal):
		return printRefusal("check-change", refusal, stdout, stderr)
	case errors.Is(err, contextbuilder.ErrInvalidRequest):
		return fail(exitUsage, "%s", flagTerms(err.Error(), checkChangeFlags))
	case err != nil:
		return fail(exitInternal, "%v", err)
	}
	if *asJSON {
		out := checkChangeJSON{Status: res.Status, Format: res.Format, Files: res.Files, Failure: res.Failure}
		if err := writeJSON(stdout, out); err != nil {
			return fail(exitInternal, "writing the result: %v", err)
		}
	} else {
		printCheckSummary(stdout, res)
	}
	if res.Status != workspace.ChangeAccepted {
		if !*asJSON {
			fmt.Fprintf(stderr, "ctxd check-change: %s: %s\n", res.Failure.Code, res.Failure.Message)
		}
		return exitRejected
	}
	return exitOK
}

// printCheckSummary is the human form of a verdict.
func printCheckSummary(w io.Writer, res *workspace.CheckChangeResult) {
	format := string(res.Format)
	if format == "" {
		format = "no change found"
	}
	fmt.Fprintf(w, "%s (%s)", res.Status, format)
	if res.BundleID != "" {
		fmt.Fprintf(w, " against bundle %s", res.BundleID)
	}
	fmt.Fprintln(w)
	short := func(s *string) string {
		if s == nil {
			return "-"
		}
		return strings.TrimPrefix(*s, "sha256:")[:12]
	}
	for _, f := range res.Files {
		fmt.Fprintf(w, "  %-6s %s  %s -> %s\n", f.Action, f.Path, short(f.SHA256Before), short(f.SHA256After))
	}
	if res.Failure != nil {
		fmt.Fprintf(w, "%s: %s\n", res.Failure.Code, res.Failure.Message)
		fmt.Fprintf(w, "advice: %s\n", res.Failure.Advice)
		fmt.Fprintf(w, "(ctxd explain %s says more; the error_context for a retry is in --json)\n", res.Failure.Code)
		return
	}
	switch {
	case res.Written:
		fmt.Fprintln(w, "written")
	default:
		fmt.Fprintln(w, "not written (add --write to apply it)")
	}
	if res.Recorded != nil {
		fmt.Fprintf(w, "recorded as %s (%s)\n", res.Recorded.RefID, res.Recorded.EventDigest)
	}
}

// checkChangeFlags are the flags of the fields a change check's errors
// name (see flagTerms).
var checkChangeFlags = map[string]string{
	"answer":           "the answer (--answer)",
	"bundle_id":        "--bundle",
	"thread_id":        "--thread-id",
	"turn_id":          "--turn-id",
	"thread.thread_id": "--thread-id",
	"thread.turn_id":   "--turn-id",
}
