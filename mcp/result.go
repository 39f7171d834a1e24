package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/internal/strictjson"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The result budget. An agent host caps what one tool result may hold
// (about 25k tokens, with a warning from 10k), and a bundle is sized for
// the model's input window, not for one tool result: a bundle of
// net/http/server.go is over 100k tokens. So every tool takes
// max_result_tokens, and the whole result (every text part, every link
// and the structuredContent) stays within it, counted with the bundle's
// tokenizer. What does not fit is never dropped silently: a block not
// shown in full is a resource link to its recorded bytes, and a long list
// is summarised with counts and paged (the same call with "page": 2, …).

const (
	// DefaultMaxResultTokens is a tool result's budget when neither the
	// call (max_result_tokens) nor the server (--max-result-tokens) sets
	// one: under the 10k tokens at which hosts start to warn.
	DefaultMaxResultTokens = 8000
	// MinResultTokens is the smallest budget a call may ask for: below it
	// not even a summary with its links fits.
	MinResultTokens = 2000
	// MaxResultTokens is the largest.
	MaxResultTokens = 1_000_000
)

// Result arguments every tool takes besides its own.
const (
	argMaxResultTokens = "max_result_tokens"
	argDetail          = "detail"
	argPage            = "page"
)

// detail values: a summary within the budget (default), or the whole
// result as the LSP command returns it, for a client that wants it (still
// within max_result_tokens, which it can raise).
const (
	detailSummary = "summary"
	detailFull    = "full"
)

// kindTooLarge is the tool error of a result over its budget even as a
// summary: the call says how to get it.
const kindTooLarge = "result_too_large"

// resultArgs are a call's result arguments.
type resultArgs struct {
	tool   string
	max    int
	detail string
	page   int // 1-based
}

// takeResultArgs removes the result arguments from a tool's arguments,
// validates them and returns the rest for the tool's own strict decoder.
// Arguments without them are returned as they are.
func (s *Server) takeResultArgs(args json.RawMessage, t *tool) (json.RawMessage, resultArgs, error) {
	ra := resultArgs{tool: t.name, max: s.maxResult, detail: detailSummary, page: 1}
	if strictjson.Absent(args) {
		return args, ra, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return args, ra, nil // not an object: the tool's decoder says why
	}
	found := false
	for _, k := range []string{argMaxResultTokens, argDetail, argPage} {
		raw, ok := obj[k]
		if !ok {
			continue
		}
		found = true
		delete(obj, k)
		switch k {
		case argMaxResultTokens:
			n, err := intArg(k, raw, MinResultTokens, MaxResultTokens)
			if err != nil {
				return nil, ra, err
			}
			ra.max = n
		case argPage:
			if !t.paged {
				return nil, ra, invalidArgs("field %q: %s has no list to page", k, t.name)
			}
			n, err := intArg(k, raw, 1, 1<<30)
			if err != nil {
				return nil, ra, err
			}
			ra.page = n
		case argDetail:
			if !t.detail {
				return nil, ra, invalidArgs("field %q: %s has no detail levels", k, t.name)
			}
			var d string
			if err := json.Unmarshal(raw, &d); err != nil || (d != detailSummary && d != detailFull) {
				return nil, ra, invalidArgs("field %q: must be %q or %q", k, detailSummary, detailFull)
			}
			ra.detail = d
		}
	}
	if !found {
		return args, ra, nil
	}
	rest, err := json.Marshal(obj)
	if err != nil {
		return nil, ra, fmt.Errorf("re-encoding the arguments: %w", err)
	}
	return rest, ra, nil
}

// intArg decodes an integer argument within [lo, hi].
func intArg(name string, raw json.RawMessage, lo, hi int) (int, error) {
	var n int
	if err := json.Unmarshal(raw, &n); err != nil || n < lo || n > hi {
		return 0, invalidArgs("field %q: must be an integer from %d to %d", name, lo, hi)
	}
	return n, nil
}

// shaper counts and fits one tool result.
type shaper struct {
	est *tokens.Estimator
	max int
}

// count is the tokens of a text.
func (sh shaper) count(s string) int { return sh.est.Count(s) }

// countJSON is the tokens of v's compact JSON.
func (sh shaper) countJSON(v any) int {
	data, err := marshal(v)
	if err != nil {
		return sh.max + 1
	}
	return sh.est.Count(string(data))
}

// marshal encodes v compactly with HTML characters as they are.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// total is the tokens of a result: its texts, its links and its
// structuredContent.
func (sh shaper) total(res *sdk.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			n += sh.count(c.Text)
		default:
			n += sh.countJSON(c)
		}
	}
	if res.StructuredContent != nil {
		n += sh.countJSON(res.StructuredContent)
	}
	return n
}

// check returns res when it fits the budget, else the tool error saying
// how to get it.
func (sh shaper) check(tool string, res *sdk.CallToolResult, hint string) *sdk.CallToolResult {
	if n := sh.total(res); n > sh.max {
		return tooLarge(tool, n, sh.max, hint)
	}
	return res
}

// tooLarge is the tool error of a result over max_result_tokens.
func tooLarge(tool string, n, max int, hint string) *sdk.CallToolResult {
	msg := fmt.Sprintf("the result of %s is %d tokens, over max_result_tokens %d", tool, n, max)
	if n <= MaxResultTokens {
		msg += fmt.Sprintf("; call again with max_result_tokens %d or more", n)
	}
	if hint != "" {
		msg += ", or " + hint
	}
	return errorResult(kindTooLarge, msg)
}

// pageInfo says which part of a paged list a result shows.
type pageInfo struct {
	Page  int `json:"page"`
	Pages int `json:"pages"`
	// Total is the number of items of the list(s) paged.
	Total int `json:"total"`
	// Shown is the number of items on this page.
	Shown int `json:"shown"`
	// Next says how to get the next page, when there is one.
	Next string `json:"next,omitempty"`
}

// pageOverhead is what the page info and its key cost at most.
const pageOverhead = 64

// pages splits items of the given costs into consecutive pages of at most
// room tokens each, and returns each page's [start, end) range. An item
// over room alone makes a page of its own. No items make one empty page.
func pages(costs []int, room int) [][2]int {
	var out [][2]int
	start, used := 0, 0
	for i, c := range costs {
		if i > start && used+c > room {
			out = append(out, [2]int{start, i})
			start, used = i, 0
		}
		used += c
	}
	return append(out, [2]int{start, len(costs)})
}

// pageJSON encodes v as a JSON object and pages the lists at paths,
// taken as one sequence (the first list's items, then the second's), so
// that the result with page p of them fits within room tokens; the
// object gains "page": pageInfo. A page past the last is an invalid
// argument. A result without any item to page is returned whole.
func (sh shaper) pageJSON(v any, paths []string, page int, room int, next func(int) string) (json.RawMessage, error) {
	data, err := marshal(v)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		if page > 1 {
			return nil, invalidArgs("field %q: %d is past the last page (1)", argPage, page)
		}
		return data, nil
	}
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("paging the result: %w", err)
	}
	type listRef struct {
		parent map[string]any
		key    string
		items  []any
	}
	var lists []listRef
	var costs []int
	found := false
	for _, p := range paths {
		parent, key, ok := walk(root, p)
		if !ok {
			continue
		}
		items, _ := parent[key].([]any)
		lists = append(lists, listRef{parent, key, items})
		found = true
		for _, it := range items {
			costs = append(costs, sh.countJSON(it)+1)
		}
	}
	if !found {
		if page > 1 {
			return nil, invalidArgs("field %q: %d is past the last page (1)", argPage, page)
		}
		return data, nil
	}
	// The rest of the result is what every page costs besides its items.
	for _, l := range lists {
		l.parent[l.key] = []any{}
	}
	fixed := sh.countJSON(root) + pageOverhead
	ranges := pages(costs, max(room-fixed, 1))
	if page > len(ranges) {
		return nil, invalidArgs("field %q: %d is past the last page (%d)", argPage, page, len(ranges))
	}
	r := ranges[page-1]
	off := 0
	for _, l := range lists {
		lo, hi := max(r[0]-off, 0), min(r[1]-off, len(l.items))
		if lo < hi {
			l.parent[l.key] = l.items[lo:hi]
		}
		off += len(l.items)
	}
	info := pageInfo{Page: page, Pages: len(ranges), Total: len(costs), Shown: r[1] - r[0]}
	if page < len(ranges) && next != nil {
		info.Next = next(page + 1)
	}
	root["page"] = info
	return marshal(root)
}

// walk finds the object holding the list at a dotted path; a segment
// after a list is an index in it ("index.roots.0.skipped_files").
func walk(root map[string]any, path string) (map[string]any, string, bool) {
	keys := strings.Split(path, ".")
	var cur any = root
	for _, k := range keys[:len(keys)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) {
				return nil, "", false
			}
			cur = c[i]
		default:
			return nil, "", false
		}
	}
	obj, ok := cur.(map[string]any)
	if !ok {
		return nil, "", false
	}
	last := keys[len(keys)-1]
	if _, ok := obj[last].([]any); !ok {
		return nil, "", false
	}
	return obj, last, true
}

// nextPage is the advice of a paged result: the same call with the next
// page.
func nextPage(tool string) func(int) string {
	return func(p int) string {
		return fmt.Sprintf("call %s again with the same arguments and \"page\": %d", tool, p)
	}
}

// countBy counts values by key, for summaries; encoding/json writes a
// map's keys sorted, so the summary is deterministic.
func countBy[T any](items []T, key func(T) string) map[string]int {
	out := map[string]int{}
	for _, it := range items {
		out[key(it)]++
	}
	return out
}
