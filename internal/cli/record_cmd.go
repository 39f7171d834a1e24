package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
)

const recordSynopsis = "record --root DIR --thread-id ID --turn-id ID [--output-file FILE]"

// runRecord appends a model's output to a thread of the workspace ledger
// as an EXECUTION event, as ctxd.recordExecution does: scripts that call
// the model themselves record its answer so that the next turn can
// reference it (--ref execution:<turn>). The output is read from
// --output-file, or stdin when it is absent or "-". It prints the
// recorded event as JSON. Exit codes: 0 recorded, 2 usage, 3 refused (no
// INTENT for the turn), 1 internal error.
func runRecord(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("record", recordSynopsis, stderr, stdout)
	root := fs.String("root", "", "workspace folder whose ledger records the output (required)")
	thread := fs.String("thread-id", "", "thread of the turn (required)")
	turn := fs.String("turn-id", "", "turn the output answers; it must have been built with --thread-id/--turn-id (required)")
	file := fs.String("output-file", "-", "file holding the model's output; - reads stdin")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := func(code int, msg string, args ...any) int {
		fmt.Fprintf(stderr, "ctxd record: "+msg+"\n", args...)
		return code
	}
	switch {
	case *root == "":
		return fail(exitUsage, "--root is required")
	case *thread == "" || *turn == "":
		return fail(exitUsage, "--thread-id and --turn-id are required")
	}
	dir, err := rootDir(*root)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	in := stdin
	if *file != "-" {
		f, err := os.Open(*file)
		if err != nil {
			return fail(exitUsage, "--output-file: %v", err)
		}
		defer f.Close()
		in = f
	}
	output, err := io.ReadAll(io.LimitReader(in, workspace.MaxExecutionOutput+1))
	if err != nil {
		return fail(exitInternal, "reading the output: %v", err)
	}
	rec, err := workspace.Open(dir, workspace.Options{Now: clock()}).RecordExecution(context.Background(), workspace.Execution{ThreadID: *thread, TurnID: *turn, Output: string(output)})
	var refusal *contextbuilder.Refusal
	switch {
	case errors.As(err, &refusal):
		return printRefusal("record", refusal, stdout, stderr)
	case errors.Is(err, contextbuilder.ErrInvalidRequest):
		return fail(exitUsage, "%s", flagTerms(err.Error(), recordFlags))
	case err != nil:
		return fail(exitInternal, "%v", err)
	}
	if err := writeJSON(stdout, rec); err != nil {
		return fail(exitInternal, "writing the result: %v", err)
	}
	return exitOK
}

// recordFlags are the flags of the fields a record's errors name (see
// flagTerms).
var recordFlags = map[string]string{
	"thread.thread_id": "--thread-id",
	"thread.turn_id":   "--turn-id",
	"output":           "the output (--output-file)",
}
