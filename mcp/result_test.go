package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/internal/testenv"
	"github.com/ctxd/ctxd/workspace"
	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestPages(t *testing.T) {
	tests := []struct {
		name  string
		costs []int
		room  int
		want  [][2]int
	}{
		{"none", nil, 10, [][2]int{{0, 0}}},
		{"one page", []int{3, 3, 3}, 10, [][2]int{{0, 3}}},
		{"exact fit", []int{5, 5, 5}, 10, [][2]int{{0, 2}, {2, 3}}},
		{"item over room alone", []int{2, 20, 2}, 10, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pages(tt.costs, tt.room)); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScrubFlags: advice written for every front end loses its
// command-line asides, and keeps the rest.
func TestScrubFlags(t *testing.T) {
	tests := []struct{ in, want string }{
		{"open a folder (or pass --root) and retry", "open a folder and retry"},
		{"fix or remove the rules file named in the message (or the --secret-rules flag), then restart ctxd", "fix or remove the rules file named in the message, then restart ctxd"},
		{"narrow the scope: choose a smaller file, or raise --max-file-size if the file really must be sent", "narrow the scope: choose a smaller file"},
		{"declare at most 3 refs", "declare at most 3 refs"},
		{"use intent:<turn_id>, execution:<turn_id> or a correlation_id", "use intent:<turn_id>, execution:<turn_id> or a correlation_id"},
	}
	for _, tt := range tests {
		if got := scrubFlags(tt.in); got != tt.want {
			t.Errorf("scrubFlags(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// The builder's actions, said in MCP terms: no flag, no editor
	// field, no editor command.
	c := contextbuilder.Candidate{Path: "a.go", Symbol: "F"}
	for _, r := range []*contextbuilder.Refusal{
		{Code: contextbuilder.RefuseAmbiguousTarget, Candidates: []contextbuilder.Candidate{c}, Actions: []contextbuilder.Action{{Kind: contextbuilder.ActionPickCandidate, Candidate: c}}},
		{Code: contextbuilder.RefuseContextTooLarge, Message: "needs 9 tokens", Actions: []contextbuilder.Action{{Kind: contextbuilder.ActionSelectRegion}, {Kind: contextbuilder.ActionNameSymbol}, {Kind: contextbuilder.ActionRaiseBudget}}},
		{Code: contextbuilder.RefuseContextTooLarge, Message: "target x is larger than the indexing size cap", Actions: []contextbuilder.Action{{Kind: contextbuilder.ActionSmallerFile}, {Kind: contextbuilder.ActionRaiseFileSizeCap}}},
		{Code: contextbuilder.RefuseTargetNotFound, Actions: []contextbuilder.Action{{Kind: contextbuilder.ActionNameTarget}}},
		{Code: contextbuilder.RefuseTargetNotFound, Actions: []contextbuilder.Action{{Kind: contextbuilder.ActionCheckPath}}},
		{Code: contextbuilder.RefuseOutsideSandbox, Actions: []contextbuilder.Action{{Kind: contextbuilder.ActionOpenFolder}}},
		{Code: contextbuilder.RefuseOutsideSandbox, Actions: []contextbuilder.Action{{Kind: contextbuilder.ActionInsideWorkspace}}},
		// A refusal without actions keeps its advice less its flags.
		{Code: contextbuilder.RefuseTargetNotFound, Advice: "name a target file (plan_step.target_files; --target PATH on the command line)"},
	} {
		if a := mcpAdvice(r); a == "" || cliFlag.MatchString(a) || strings.Contains(a, "active file") || strings.Contains(a, "command line") || strings.Contains(a, "ctxd:") || strings.Contains(a, "Ctxd") {
			t.Errorf("%s: advice %q names a CLI flag, an editor field or an editor command", r.Code, a)
		}
	}
}

// bigWorkspace is a Go package whose target file is far over any result
// budget, with callers, so that a bundle has many blocks.
func bigWorkspace(t *testing.T) string {
	t.Helper()
	var big strings.Builder
	big.WriteString("package big\n\n")
	for i := range 600 {
		fmt.Fprintf(&big, "// F%d returns its argument plus %d, with a comment long enough to cost tokens.\nfunc F%d(x int) int {\n\ty := x + %d\n\treturn y\n}\n\n", i, i, i, i)
	}
	var ar strings.Builder
	fmt.Fprintf(&ar, "-- go.mod --\nmodule example.com/big\n\ngo 1.22\n-- big/big.go --\n%s", big.String())
	for i := range 30 {
		fmt.Fprintf(&ar, "-- use/u%d.go --\npackage use\n\nimport \"example.com/big/big\"\n\n// U%d calls F%d.\nfunc U%d() int { return big.F%d(%d) }\n", i, i, i, i, i, i)
	}
	return indextest.WriteTree(t, ar.String())
}

// TestResultBudget: build_context's whole result fits max_result_tokens;
// what it does not show is linked, every link reads within the server's
// budget, and the pages of a block too large for one read give back its
// every line.
func TestResultBudget(t *testing.T) {
	s := start(t, bigWorkspace(t))
	est := tokens.ForModel("")
	for _, max := range []int{DefaultMaxResultTokens, 4000, MinResultTokens} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			args := diffRequest([]string{"big/big.go"})
			args[argMaxResultTokens] = max
			res := s.call("build_context", args)
			if res.IsError {
				t.Fatalf("tool error: %s", texts(res))
			}
			if n := (shaper{est: est, max: max}).total(res); n > max {
				t.Errorf("result is %d tokens, over max_result_tokens %d", n, max)
			}
			var sum bundleSummary
			if err := json.Unmarshal(mustJSON(t, res.StructuredContent), &sum); err != nil {
				t.Fatal(err)
			}
			var links []string
			for _, c := range res.Content {
				if l, ok := c.(*sdk.ResourceLink); ok {
					links = append(links, l.URI)
				}
			}
			if sum.Blocks.Linked == 0 || len(links) == 0 || countRanges(t, sum.Blocks.Shown)+sum.Blocks.Linked != sum.Blocks.Total {
				t.Fatalf("blocks %+v with %d links: want some linked, shown + linked = total", sum.Blocks, len(links))
			}
			if !strings.Contains(texts(res), "## Not shown here") {
				t.Error("the text does not say that blocks are not shown")
			}
			for _, uri := range links {
				rr, err := s.cs.ReadResource(s.ctx, &sdk.ReadResourceParams{URI: uri})
				if err != nil {
					t.Fatalf("%s: %v", uri, err)
				}
				if n := est.Count(rr.Contents[0].Text); n > DefaultMaxResultTokens {
					t.Errorf("%s is %d tokens, over the server's budget", uri, n)
				}
			}
		})
	}

	// The target file's block (3) is over the budget: its pages, read in
	// order from the first, hold each line of the file once.
	full := s.full("build_context", diffRequest([]string{"big/big.go"}))
	var whole contextbuilder.Result
	if err := json.Unmarshal(full, &whole); err != nil {
		t.Fatal(err)
	}
	n := -1
	for i, b := range whole.Bundle.Blocks {
		if b.BlockType == contextbuilder.BlockFile && b.Meta.Path != nil && *b.Meta.Path == "big/big.go" {
			n = i + 1
		}
	}
	if n < 0 {
		t.Fatal("no file block")
	}
	var got strings.Builder
	next := blockURI(whole.Bundle.BundleID, n)
	fence := regexp.MustCompile("(?s)\n(`{3,})go\n(.*?)\n?`{3,}\n")
	pagesRead := 0
	for next != "" {
		rr, err := s.cs.ReadResource(s.ctx, &sdk.ReadResourceParams{URI: next})
		if err != nil {
			t.Fatalf("%s: %v", next, err)
		}
		text := rr.Contents[0].Text
		m := fence.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("%s has no fenced part: %.300s", next, text)
		}
		got.WriteString(m[2])
		got.WriteString("\n")
		next = ""
		if i := strings.Index(text, "Next page: "); i >= 0 {
			next = strings.TrimSpace(text[i+len("Next page: "):])
		}
		pagesRead++
	}
	if pagesRead < 2 {
		t.Errorf("the target block was read in %d page(s), want several", pagesRead)
	}
	if diff := cmp.Diff(whole.Bundle.Blocks[n-1].Content, got.String()); diff != "" {
		t.Errorf("the pages do not give back the block (-want +got):\n%.2000s", diff)
	}

	// The whole result does not fit the default budget: it is a tool
	// error saying how big it is and what to do, never a cut result.
	args := diffRequest([]string{"big/big.go"})
	args[argDetail] = detailFull
	if e := s.fails("build_context", args); !strings.Contains(e.text, "over max_result_tokens 8000; call again with max_result_tokens") {
		t.Errorf("full detail over the budget: %q", e.text)
	}
	// read_file of a file over the budget shows the lines that fit and
	// says where to go on.
	for _, max := range []int{MinResultTokens, DefaultMaxResultTokens} {
		res := s.call("read_file", map[string]any{"path": "big/big.go", argMaxResultTokens: max})
		if res.IsError || !strings.Contains(texts(res), "call read_file with start_line") {
			t.Errorf("read_file at %d: %.300s", max, texts(res))
		}
		if n := (shaper{est: tokens.ForModel(""), max: max}).total(res); n > max {
			t.Errorf("read_file at %d is %d tokens", max, n)
		}
	}
	// Result arguments are checked like the others.
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"build_context", map[string]any{"purpose": "plan", argMaxResultTokens: 10}, `field "max_result_tokens": must be an integer from 2000`},
		{"build_context", map[string]any{"purpose": "plan", argDetail: "all"}, `field "detail": must be "summary" or "full"`},
		{"budget", map[string]any{"purpose": "plan", argPage: 99}, `field "page": 99 is past the last page`},
		{"record_execution", map[string]any{argPage: 2}, `field "page": record_execution has no list to page`},
		{"build_context", map[string]any{"purpose": "diff"}, `purpose "diff" needs a target: "plan_step" ("target_files" or "target_symbols") or "user_selected_targets"`},
		{"build_context", map[string]any{"purpose": "plan", argPage: 2}, `field "page": 2 is past the last page (1)`},
		{"index_status", map[string]any{argPage: 2}, `field "page": 2 is past the last page (1)`},
	} {
		if e := s.fails(tt.tool, tt.args); !strings.Contains(e.text, tt.want) {
			t.Errorf("%s %v: %q, want %q", tt.tool, tt.args, e.text, tt.want)
		}
	}
}

// TestPagedLists: a long list is paged, each page within the budget,
// and the pages together hold each item once.
func TestPagedLists(t *testing.T) {
	s := start(t, bigWorkspace(t))
	for i := range 40 {
		a := diffRequest([]string{fmt.Sprintf("use/u%d.go", i%30)})
		a["correlation_id"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		s.ok("build_context", a)
	}
	est := tokens.ForModel("")
	var checks []json.RawMessage
	for page := 1; ; page++ {
		res := s.call("verify", map[string]any{argMaxResultTokens: MinResultTokens, argPage: page})
		if res.IsError {
			t.Fatalf("page %d: %s", page, texts(res))
		}
		if n := (shaper{est: est, max: MinResultTokens}).total(res); n > MinResultTokens {
			t.Errorf("page %d is %d tokens", page, n)
		}
		var out struct {
			Checks []json.RawMessage `json:"checks"`
			Page   pageInfo          `json:"page"`
		}
		if err := json.Unmarshal(mustJSON(t, res.StructuredContent), &out); err != nil {
			t.Fatal(err)
		}
		checks = append(checks, out.Checks...)
		if out.Page.Page == out.Page.Pages {
			if out.Page.Pages < 2 || len(checks) != out.Page.Total {
				t.Errorf("%d pages, %d checks read of %d", out.Page.Pages, len(checks), out.Page.Total)
			}
			break
		}
		if !strings.Contains(out.Page.Next, fmt.Sprintf(`"page": %d`, page+1)) {
			t.Errorf("page %d: next %q", page, out.Page.Next)
		}
	}
}

// countRanges counts the numbers of "1-3,5".
func countRanges(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for part := range strings.SplitSeq(s, ",") {
		if part == "" {
			continue
		}
		var lo, hi int
		if _, err := fmt.Sscanf(part, "%d-%d", &lo, &hi); err == nil {
			n += hi - lo + 1
		} else if _, err := fmt.Sscanf(part, "%d", &lo); err == nil {
			n++
		} else {
			t.Fatalf("bad ranges %q", s)
		}
	}
	return n
}

// TestProgress: a call with a progressToken that is still running after
// Options.ProgressAfter gets progress notifications with its token; the
// tool here finishes only once the client has seen one, so the test
// needs no clock.
func TestProgress(t *testing.T) {
	logs := &testenv.Buffer{}
	srv, err := New(Options{
		Root: indextest.WriteTree(t, shopWorkspace), ProgressAfter: time.Millisecond,
		Logger:  slog.New(slog.NewTextHandler(logs, nil)),
		Service: workspace.ServiceOptions{Index: index.Options{CacheDir: "off"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	seen := make(chan *sdk.ProgressNotificationParams, 1)
	err = srv.addTool(tool{
		name: "slow", title: "waits for a progress notification", readOnly: true, in: indexStatusSchema,
		call: func(ctx context.Context, _ *Server, _ json.RawMessage, _ resultArgs) (*sdk.CallToolResult, error) {
			select {
			case <-seen:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // only keeps a broken test from hanging
	defer cancel()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	var got *sdk.ProgressNotificationParams
	var once sync.Once
	client := sdk.NewClient(&sdk.Implementation{Name: "progress-test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			once.Do(func() {
				got = req.Params
				seen <- req.Params
			})
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cs.Close()
		_ = ss.Wait()
	}()
	params := &sdk.CallToolParams{Name: "slow"}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("slow: %v %v", err, res)
	}
	if got == nil || got.ProgressToken != "tok-1" || got.Progress < 1 || !strings.Contains(got.Message, "slow: still working") {
		t.Errorf("progress %+v, want token tok-1, progress 1 or more and a message", got)
	}
}

// TestLongLinePages: a block whose one line is over the budget (minified
// code) is cut across pages, each within the budget, and the pages give
// back the line.
func TestLongLinePages(t *testing.T) {
	var js strings.Builder
	js.WriteString("export function big(){return[")
	for i := range 6000 {
		fmt.Fprintf(&js, "%q,", fmt.Sprintf("v%05d", i))
	}
	js.WriteString("];}\n")
	s := start(t, indextest.WriteTree(t, "-- package.json --\n{\"name\": \"m\"}\n-- min.js --\n"+js.String()))
	var whole contextbuilder.Result
	if err := json.Unmarshal(s.full("build_context", diffRequest([]string{"min.js"})), &whole); err != nil {
		t.Fatal(err)
	}
	n := slices.IndexFunc(whole.Bundle.Blocks, func(b contextbuilder.Block) bool { return b.Meta.Path != nil && *b.Meta.Path == "min.js" }) + 1
	if n == 0 {
		t.Fatal("no block of min.js")
	}
	est := tokens.ForModel("")
	fence := regexp.MustCompile("(?s)\n`{3,}[a-z]*\n(.*?)\n?`{3,}\n")
	var got strings.Builder
	pagesRead := 0
	for next := blockURI(whole.Bundle.BundleID, n); next != ""; pagesRead++ {
		rr, err := s.cs.ReadResource(s.ctx, &sdk.ReadResourceParams{URI: next})
		if err != nil {
			t.Fatalf("%s: %v", next, err)
		}
		text := rr.Contents[0].Text
		if c := est.Count(text); c > DefaultMaxResultTokens {
			t.Errorf("%s is %d tokens", next, c)
		}
		m := fence.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("%s has no fenced part", next)
		}
		got.WriteString(m[1])
		next = ""
		if i := strings.Index(text, "Next page: "); i >= 0 {
			next = strings.TrimSpace(text[i+len("Next page: "):])
		}
	}
	if pagesRead < 2 {
		t.Fatalf("the line was read in %d page(s)", pagesRead)
	}
	if want := strings.TrimSuffix(whole.Bundle.Blocks[n-1].Content, "\n"); got.String() != want {
		t.Errorf("the pages give back %d bytes, want the block's %d", got.Len(), len(want))
	}
}
