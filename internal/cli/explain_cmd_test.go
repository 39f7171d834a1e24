package cli

import (
	"bytes"
	"github.com/ctxd/ctxd/workspace/change"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/ledger"
	"github.com/ctxd/ctxd/workspace/policy"
	"github.com/ctxd/ctxd/workspace/prompt"
)

func TestExplain(t *testing.T) {
	tests := []cliCase{
		{name: "one code", args: []string{"explain", "REFUSE_AMBIGUOUS_TARGET"}, wantStdout: "REFUSE_AMBIGUOUS_TARGET: a target symbol name has several definitions\n"},
		{name: "names the flag", args: []string{"explain", "REFUSE_AMBIGUOUS_TARGET"}, wantStdout: "--select cart/cart.go#Cart.Add"},
		{name: "any case", args: []string{"explain", "refuse_secret_risk"}, wantStdout: "REFUSE_SECRET_RISK: "},
		{name: "policy code", args: []string{"explain", "context_namespace_denied"}, wantStdout: "allowed_context_namespaces"},
		{name: "never-send rule", args: []string{"explain", "REFUSE_UNSUPPORTED_TARGET"}, wantStdout: "cmd/internal/obj"},
		{name: "list", args: []string{"explain"}, wantStdout: "REFUSE_CONTEXT_TOO_LARGE"},
		{name: "help", args: []string{"explain", "--help"}, wantStdout: "Exit codes:"},
		{name: "unknown code", args: []string{"explain", "NOPE"}, wantCode: 2, wantStderr: `unknown refusal code "NOPE"`},
		{name: "two codes", args: []string{"explain", "A", "B"}, wantCode: 2, wantStderr: "one code at a time"},
		{name: "usage lists explain", args: []string{"help"}, wantStdout: "  explain "},
	}
	runCLICases(t, tests)
}

// TestHelpWithoutFlags: a command without flags prints no empty "Flags:"
// heading; one with flags still does.
func TestHelpWithoutFlags(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		wantFlags bool
	}{
		{[]string{"explain", "--help"}, false},
		{[]string{"help", "explain"}, false},
		{[]string{"verify", "--help"}, true},
	} {
		code, stdout, _ := runCLI(t, tt.args...)
		if code != exitOK || strings.Contains(stdout, "Flags:") != tt.wantFlags || !strings.HasPrefix(stdout, "Usage: ctxd ") {
			t.Errorf("ctxd %s: exit %d, want 0 and a \"Flags:\" heading %v:\n%s", strings.Join(tt.args, " "), code, tt.wantFlags, stdout)
		}
	}
}

// TestExplainLinesFit: the explanation is wrapped for a terminal.
func TestExplainLinesFit(t *testing.T) {
	for _, e := range contextbuilder.Explanations() {
		code, stdout, _ := runCLI(t, "explain", string(e.Code))
		if code != exitOK {
			t.Fatalf("explain %s: exit %d", e.Code, code)
		}
		for i, line := range strings.Split(stdout, "\n") {
			if i > 0 && len(line) > 78 {
				t.Errorf("explain %s: line %d is %d bytes wide: %q", e.Code, i+1, len(line), line)
			}
		}
	}
}

// TestExplanationsCoverEveryCode: the codes of the packages that
// contextbuilder cannot import (it is below them) are written out in its
// table; they must match the constants, and every code a refusal can carry
// must have an explanation.
func TestExplanationsCoverEveryCode(t *testing.T) {
	want := []contextbuilder.RefusalCode{
		contextbuilder.RefuseContextTooLarge, contextbuilder.RefuseSecretRisk, contextbuilder.RefuseAmbiguousTarget,
		contextbuilder.RefuseUnsupportedTarget, contextbuilder.RefuseOutsideSandbox, contextbuilder.RefuseTargetNotFound,
		policy.ReasonReadFailed, policy.ReasonInvalid, policy.ReasonOverrideInvalid, policy.ReasonNamespaceDenied,
		policy.ReasonExceedsMaxItems, policy.ReasonExceedsMaxBytes, workspace.RefuseMaxUserMessages, policy.ReasonSelectionFailed,
		workspace.RefuseRecordDiskFull, prompt.ReasonBuildFailed, prompt.ReasonWriteFailed,
		ledger.CodeRefNotFound, ledger.CodeCrossThreadRef, ledger.CodeMaxRefsExceeded, ledger.CodeEmptyRefsDenied,
	}
	for _, c := range change.Codes() {
		want = append(want, contextbuilder.RefusalCode(c))
	}
	var got []contextbuilder.RefusalCode
	for _, e := range contextbuilder.Explanations() {
		got = append(got, e.Code)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("explained codes (-want +got):\n%s", diff)
	}
}

// TestServeNoticeOnTerminal: a bare ctxd whose stdin is a terminal says
// on stderr what it is doing and how to get help, then serves; on a pipe
// (an editor) it says nothing.
func TestServeNoticeOnTerminal(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		old := stdinIsTerminal
		stdinIsTerminal = func(r io.Reader) bool { return terminal }
		var stdout, stderr bytes.Buffer
		code := run(nil, strings.NewReader(""), &stdout, &stderr)
		stdinIsTerminal = old
		if code != 0 || stdout.Len() != 0 {
			t.Errorf("terminal %v: exit %d, stdout %q: want 0 and nothing", terminal, code, stdout.String())
		}
		notice := strings.Contains(stderr.String(), "speaking the Language Server Protocol on stdin/stdout") && strings.Contains(stderr.String(), "'ctxd help'")
		if notice != terminal {
			t.Errorf("terminal %v: notice shown = %v; stderr:\n%s", terminal, notice, stderr.String())
		}
	}
}

// TestUsageListsEveryCommand: the usage text names every subcommand.
func TestUsageListsEveryCommand(t *testing.T) {
	var buf bytes.Buffer
	usage(&buf)
	for _, c := range commands() {
		if !strings.Contains(buf.String(), "\n  "+c.name+" ") {
			t.Errorf("usage does not list %s:\n%s", c.name, buf.String())
		}
	}
}

// TestCacheDirInsideRoot: an explicit cache directory inside the root is
// a usage error in every command that takes --root; the default (which
// may be inside a root such as $HOME) is not refused.
func TestCacheDirInsideRoot(t *testing.T) {
	dir := t.TempDir()
	tests := []cliCase{
		{name: "index", args: []string{"index", "--root", dir, "--cache-dir", dir + "/.cache"}, wantCode: 2, wantStderr: "is inside --root"},
		{name: "mcp", args: []string{"mcp", "--root", dir, "--cache-dir", dir + "/sub/cache"}, wantCode: 2, wantStderr: "is inside --root"},
		{name: "outside is fine", args: []string{"index", "--root", dir, "--cache-dir", t.TempDir()}, wantStdout: "state: ready"},
	}
	runCLICases(t, tests)
	t.Setenv("CTXD_CACHE_DIR", dir+"/c")
	runCLICases(t, []cliCase{{name: "from the environment", args: []string{"index", "--root", dir}, wantCode: 2, wantStderr: "$CTXD_CACHE_DIR " + dir + "/c is inside --root"}})
}
