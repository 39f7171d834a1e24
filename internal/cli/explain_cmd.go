package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
)

const explainSynopsis = "explain [CODE] (e.g. ctxd explain REFUSE_AMBIGUOUS_TARGET; without a code, list the codes)"

// runExplain prints the long explanation of a refusal code: the advice in
// a refusal is one sentence, and this is the page behind it for someone at
// a shell who has no copy of ctxd's docs. Without a code it lists every
// code with its summary. The text is contextbuilder's table, the same one
// the editors' help files are generated from.
func runExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("explain", explainSynopsis, stderr, stdout)
	// The code is the one positional argument, so parseFlags (which
	// rejects any) is not used.
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	switch fs.NArg() {
	case 0:
		fmt.Fprintln(stdout, "Refusal and change-check codes (ctxd explain CODE for one):")
		for _, e := range contextbuilder.Explanations() {
			fmt.Fprintf(stdout, "  %-45s %s\n", e.Code, e.Summary)
		}
		return exitOK
	case 1:
	default:
		fmt.Fprintf(stderr, "ctxd explain: one code at a time, got %d arguments\n", fs.NArg())
		return exitUsage
	}
	code := strings.TrimSpace(fs.Arg(0))
	e, ok := contextbuilder.Explain(contextbuilder.RefusalCode(code))
	if !ok {
		// Codes are case-sensitive on the wire, but a person may type
		// them in either case.
		for _, c := range contextbuilder.Explanations() {
			if strings.EqualFold(string(c.Code), code) {
				e, ok = c, true
			}
		}
	}
	if !ok {
		fmt.Fprintf(stderr, "ctxd explain: unknown refusal code %q; 'ctxd explain' lists them\n", code)
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s: %s\n", e.Code, e.Summary)
	for _, p := range e.Paragraphs {
		fmt.Fprintln(stdout)
		for _, line := range contextbuilder.Wrap(p, 78) {
			fmt.Fprintln(stdout, line)
		}
	}
	return exitOK
}
