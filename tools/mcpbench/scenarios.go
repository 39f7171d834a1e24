package main

// The scenarios, in the order an agent's session would meet them: the
// handshake and the tool list an agent host loads into every prompt, a
// bundle and what its resource links lead to, the agent tools, the
// sandbox and secret refusals, the refusals' advice, the record and
// verify tools, and last the malformed lines (last because a server that
// does not survive them would end the session for every scenario after).

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Goals, in bytes of one frame (the answer's whole JSON-RPC line, which is
// what an agent host reads).
const (
	goalToolsList     = 12 << 10 // tools/list: sent to the model with every prompt
	goalResult        = 40 << 10 // a tool answer with the server's default result budget
	goalLimitedResult = 20 << 10 // build_context with max_result_tokens 4000
	limitedTokens     = 4000
)

// redactionMarker starts what ctxd puts in place of a secret
// ([REDACTED:<rule-id>], docs/secrets.md).
const redactionMarker = "[REDACTED:"

// bench is one run against one server.
type bench struct {
	srv     *server
	rep     *report
	root    string // the workspace copy
	src     string // the tree it was copied from (absolute)
	secrets []secret
	scan    *scanner
	rawWait time.Duration // how long a malformed line's error answer is waited for

	// tools are the tools tools/list named, with their input schemas; nil
	// when tools/list gave no usable answer (every tool is then tried).
	tools map[string]toolInfo
	// toolErrors are the texts of every tool error of the run, for the
	// advice check.
	toolErrors []seenError
}

// seenError is one tool error's texts and the call that got it.
type seenError struct {
	label string
	texts []string
}

// outcome is one request's answer, decoded as far as possible.
type outcome struct {
	f   *frame
	dur time.Duration
	err error       // no answer (timeout, exit, write failure)
	res *toolResult // a tools/call result
	bad string      // why the answer is neither an error nor a tool result
}

// answered says the request got a frame.
func (o *outcome) answered() bool { return o.err == nil && o.f != nil }

// ok says the call got a tool result that is not an error.
func (o *outcome) ok() bool { return o.res != nil && !o.res.IsError }

// describe says what the answer was, for a table cell.
func (o *outcome) describe() string {
	switch {
	case o.err != nil:
		return o.err.Error()
	case o.f.Error != nil:
		return cut(o.f.Error.String(), 100)
	case o.bad != "":
		return o.bad
	case o.res != nil && o.res.IsError:
		return "tool error: " + o.res.FirstLine(100)
	}
	return fmt.Sprintf("%s in %s", size(o.f.Size()), o.dur.Round(time.Millisecond))
}

// request sends a request other than tools/call.
func (b *bench) request(method string, params any, label string) *outcome {
	f, dur, err := b.srv.call(method, params, label)
	return &outcome{f: f, dur: dur, err: err}
}

// callTool calls a tool and decodes its result; a tool error's texts are
// kept for the advice check.
func (b *bench) callTool(name string, args any, label string) *outcome {
	o := b.request("tools/call", map[string]any{"name": name, "arguments": args}, "tools/call "+label)
	if !o.answered() || o.f.Error != nil {
		return o
	}
	res, err := decodeToolResult(o.f)
	if err != nil {
		o.bad = err.Error()
		return o
	}
	o.res = res
	if res.IsError {
		b.toolErrors = append(b.toolErrors, seenError{label: label, texts: res.Texts()})
	}
	return o
}

// listed says tools/list named the tool; true when the list is unknown,
// so that the call is tried and its answer decides.
func (b *bench) listed(name string) bool {
	if b.tools == nil {
		return true
	}
	_, ok := b.tools[name]
	return ok
}

// unknownTool says the answer is the protocol error of a tool the server
// does not have.
func unknownTool(o *outcome) bool {
	return o.answered() && o.f.Error != nil &&
		(o.f.Error.Code == -32601 || strings.Contains(strings.ToLower(o.f.Error.Message), "unknown tool"))
}

// missing says a tool is not available: not listed, or unknown to the
// server when called.
func (b *bench) missing(name string, o *outcome) bool {
	return !b.listed(name) || unknownTool(o)
}

// run runs every scenario.
func (b *bench) run() {
	if !b.initialize() {
		b.rep.detail("initialize got no answer: the scenarios still run, and say how each ends")
	}
	b.toolsList()
	b.buildContext()
	b.agentTools()
	b.sandbox()
	b.advice()
	b.records()
	b.robustness()
}

func (b *bench) initialize() bool {
	o := b.request("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcpbench", "version": "1"},
	}, "initialize")
	if !o.answered() || o.f.Error != nil {
		b.rep.goal("initialize", o.describe(), "answered", false)
		return false
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name, Version string
		} `json:"serverInfo"`
	}
	_ = json.Unmarshal(o.f.Result, &r) // what is missing shows as empty
	b.rep.goal("initialize", fmt.Sprintf("%s %s, protocol %s, %s", r.ServerInfo.Name, r.ServerInfo.Version, r.ProtocolVersion, size(o.f.Size())),
		"answered", true)
	if err := b.srv.notify("notifications/initialized", nil); err != nil {
		b.rep.detail("notifications/initialized: %v", err)
	}
	return true
}

func (b *bench) toolsList() {
	o := b.request("tools/list", map[string]any{}, "tools/list")
	if !o.answered() || o.f.Error != nil {
		b.rep.goal("tools/list frame", o.describe(), "≤ "+size(goalToolsList), false)
		return
	}
	page, err := decodeToolsPage(o.f)
	if err != nil {
		b.rep.goal("tools/list frame", size(o.f.Size())+"; "+err.Error(), "≤ "+size(goalToolsList), false)
		return
	}
	frames := []*frame{o.f}
	// A paginated list is followed to learn every tool; the goal is on the
	// first page, the one a host loads before anything else.
	for cursor := page.NextCursor; cursor != "" && len(frames) < 20; {
		more := b.request("tools/list", map[string]any{"cursor": cursor}, "tools/list (next page)")
		if !more.answered() || more.f.Error != nil {
			break
		}
		p, err := decodeToolsPage(more.f)
		if err != nil {
			break
		}
		frames = append(frames, more.f)
		page.Tools = append(page.Tools, p.Tools...)
		cursor = p.NextCursor
	}
	b.tools = map[string]toolInfo{}
	var names []string
	for _, t := range page.Tools {
		b.tools[t.Name] = t
		names = append(names, t.Name)
	}
	value := size(o.f.Size())
	if len(frames) > 1 {
		value += fmt.Sprintf(" (first of %d pages)", len(frames))
	}
	b.rep.goal("tools/list frame", value, "≤ "+size(goalToolsList), o.f.Size() <= goalToolsList)
	b.rep.figure("tools/list tools", fmt.Sprintf("%d: %s", len(names), strings.Join(names, ", ")))
}

// buildArgs is the scenario's build request: a diff of http/server.go.
func buildArgs() map[string]any {
	return map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s1", "target_files": []string{"http/server.go"}}}
}

// links is what reading a result's resource links found, over the run.
type links struct {
	seen       map[string]bool
	read       int // links read (each URI once)
	answered   int
	biggest    int
	biggestURI string
}

// follow reads each resource link of o's result not read before, as an
// agent that wants the rest of a bundle does, right after the call (a
// link may name the session's latest bundle). It says whether the
// redaction marker is in any of the answers.
func (b *bench) follow(o *outcome, ls *links) (marked bool) {
	if o.res == nil {
		return false
	}
	for _, uri := range o.res.Links() {
		if ls.seen[uri] {
			continue
		}
		ls.seen[uri] = true
		ls.read++
		r := b.request("resources/read", map[string]any{"uri": uri}, "resources/read "+uri)
		var contents struct {
			Contents []json.RawMessage `json:"contents"`
		}
		if r.answered() && r.f.Error == nil && json.Unmarshal(r.f.Result, &contents) == nil && len(contents.Contents) > 0 {
			ls.answered++
		} else {
			b.rep.detail("resources/read %s: %s", uri, r.describe())
		}
		if r.answered() {
			marked = marked || hasMarker(r.f.Raw)
			if r.f.Size() > ls.biggest {
				ls.biggest, ls.biggestURI = r.f.Size(), uri
			}
		}
	}
	return marked
}

// hasMarker says a frame holds ctxd's redaction marker, as bytes or once
// its JSON strings are unescaped.
func hasMarker(raw []byte) bool {
	return strings.Contains(string(raw), redactionMarker) || strings.Contains(stringsOf(raw), redactionMarker)
}

func (b *bench) buildContext() {
	ls := &links{seen: map[string]bool{}}

	o := b.callTool("build_context", buildArgs(), "build_context http/server.go")
	if o.ok() {
		b.rep.goal("build_context frame (default budget)", size(o.f.Size())+", "+o.res.ContentKinds(), "≤ "+size(goalResult), o.f.Size() <= goalResult)
		b.rep.figure("build_context resource_link items (default budget)", fmt.Sprint(len(o.res.Links())))
	} else {
		b.rep.goal("build_context frame (default budget)", o.describe(), "≤ "+size(goalResult), false)
	}
	b.follow(o, ls)

	args := buildArgs()
	args["max_result_tokens"] = limitedTokens
	l := b.callTool("build_context", args, fmt.Sprintf("build_context http/server.go max_result_tokens %d", limitedTokens))
	figure := fmt.Sprintf("build_context frame (max_result_tokens %d)", limitedTokens)
	switch {
	case l.ok():
		b.rep.goal(figure, size(l.f.Size())+", "+l.res.ContentKinds(), "≤ "+size(goalLimitedResult), l.f.Size() <= goalLimitedResult)
		b.rep.figure(fmt.Sprintf("build_context resource_link items (max_result_tokens %d)", limitedTokens), fmt.Sprint(len(l.res.Links())))
	case !b.hasProperty("build_context", "max_result_tokens") || mentions(l, "max_result_tokens"):
		b.rep.unavailable(figure, "the argument is not accepted: "+l.describe(), "≤ "+size(goalLimitedResult))
	default:
		b.rep.goal(figure, l.describe(), "≤ "+size(goalLimitedResult), false)
	}
	b.follow(l, ls)

	// The files holding credentials as targets: whatever the agent tools
	// do, their contents reach the agent this way, and must come back
	// redacted, in the frame or behind its links.
	figure = "build_context " + configPath + ", " + yamlPath
	goal := "answers, redacted (" + redactionMarker + "…)"
	c := b.callTool("build_context", map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s2", "target_files": []string{configPath, yamlPath}}}, figure)
	if c.ok() {
		marked := b.follow(c, ls) || hasMarker(c.f.Raw)
		b.rep.goal(figure, fmt.Sprintf("%s, marker %s", size(c.f.Size()), presence(marked)), goal, marked)
	} else {
		b.rep.goal(figure, c.describe(), goal, false)
	}

	switch {
	case ls.read == 0 && !o.ok() && !l.ok() && !c.ok():
		b.rep.goal("resource links answer resources/read", "no build_context result to follow", "every link answers", false)
		return
	case ls.read == 0:
		b.rep.unavailable("resource links answer resources/read", "no resource_link in build_context's results", "every link answers")
		return
	}
	b.rep.goal("resource links answer resources/read", fmt.Sprintf("%d of %d", ls.answered, ls.read), "every link answers", ls.answered == ls.read)
	b.rep.figure("biggest resources/read frame", fmt.Sprintf("%s (%s)", size(ls.biggest), ls.biggestURI))
}

// presence says present or absent.
func presence(ok bool) string {
	if ok {
		return "present"
	}
	return "absent"
}

// hasProperty says the tool's input schema has the property; true when
// the tool list is unknown.
func (b *bench) hasProperty(tool, prop string) bool {
	if b.tools == nil {
		return true
	}
	t, ok := b.tools[tool]
	if !ok {
		return false
	}
	_, ok = t.InputSchema.Properties[prop]
	return ok
}

// mentions says the answer is an error that names word (an unknown
// argument, typically).
func mentions(o *outcome, word string) bool {
	switch {
	case o.answered() && o.f.Error != nil:
		return strings.Contains(o.f.Error.Message, word)
	case o.res != nil && o.res.IsError:
		return strings.Contains(strings.Join(o.res.Texts(), "\n"), word)
	}
	return false
}

// agentTool is one call of the agent tools scenario.
type agentTool struct {
	name string
	args map[string]any
}

var agentTools = []agentTool{
	{"search_symbols", map[string]any{"query": "ServeHTTP"}},
	// NewServeMux is declared once, in http/server.go, and used across
	// the package: a reference search with a certain answer.
	{"find_references", map[string]any{"symbol": "NewServeMux", "path": "http/server.go"}},
	{"read_file", map[string]any{"path": "http/server.go", "start_line": 1, "end_line": 40}},
	{"list_files", map[string]any{"path": "http"}},
}

func (b *bench) agentTools() {
	for _, t := range agentTools {
		args, _ := json.Marshal(t.args) // plain values always encode
		figure := fmt.Sprintf("%s %s", t.name, args)
		o := b.callTool(t.name, t.args, figure)
		switch {
		case b.missing(t.name, o):
			b.rep.unavailable(figure, o.describe(), "answers (no isError)")
		default:
			b.rep.goal(figure, o.describe(), "answers (no isError)", o.ok())
		}
	}
}

func (b *bench) sandbox() {
	outsideAbs := filepath.Join(b.src, "http", "server.go")
	for _, c := range []struct{ figure, path string }{
		{"read_file .env", ".env"},
		// The copy's own folder name: the path leaves the root and comes
		// back into it, which a lexical check must refuse all the same.
		{"read_file ../" + filepath.Base(b.root) + "/http/server.go", "../" + filepath.Base(b.root) + "/http/server.go"},
		{"read_file absolute path outside", outsideAbs},
	} {
		o := b.callTool("read_file", map[string]any{"path": c.path}, c.figure)
		goal := "tool error with a REFUSE_ code"
		switch {
		case b.missing("read_file", o):
			b.rep.unavailable(c.figure, o.describe(), goal)
		case o.res != nil && o.res.IsError:
			code := o.res.RefusalCode()
			value := fmt.Sprintf("tool error, %s", size(o.f.Size()))
			if code != "" {
				value = fmt.Sprintf("%s, %s", code, size(o.f.Size()))
			} else {
				value += ", no REFUSE_ code: " + o.res.FirstLine(80)
			}
			b.rep.goal(c.figure, value, goal, code != "")
		case !o.answered():
			b.rep.goal(c.figure, o.describe(), goal, false)
		default:
			b.rep.goal(c.figure, "not refused: "+o.describe(), goal, false)
		}
	}

	figure := "read_file " + configPath
	goal := "answers, redacted (" + redactionMarker + "…), no planted secret"
	o := b.callTool("read_file", map[string]any{"path": configPath}, figure)
	switch {
	case b.missing("read_file", o):
		b.rep.unavailable(figure, o.describe(), goal)
	case !o.ok():
		b.rep.goal(figure, o.describe(), goal, false)
	default:
		leaks := b.scan.scanFrame(o.f.Raw)
		marked := hasMarker(o.f.Raw)
		value := fmt.Sprintf("%s, %d planted secrets in it, marker %s", size(o.f.Size()), len(leaks), presence(marked))
		b.rep.goal(figure, value, goal, len(leaks) == 0 && marked)
	}
}

// refusalCase is a build that must be refused, and the code it must be
// refused with.
type refusalCase struct {
	figure string
	code   string
	args   map[string]any
}

func refusalCases() []refusalCase {
	step := func(key string, values ...string) map[string]any {
		return map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s1", key: values}}
	}
	tooLarge := buildArgs()
	// The default response reserve (4000) would leave nothing under 2000
	// input tokens, an invalid request rather than a refusal.
	tooLarge["model"] = map[string]any{"max_input_tokens": 2000, "response_token_reserve": 500}
	return []refusalCase{
		{"build_context target_symbols ServeHTTP (ambiguous)", "REFUSE_AMBIGUOUS_TARGET", step("target_symbols", "ServeHTTP")},
		{"build_context http/server.go, max_input_tokens 2000", "REFUSE_CONTEXT_TOO_LARGE", tooLarge},
		{"build_context nope/x.go (missing)", "REFUSE_TARGET_NOT_FOUND", step("target_files", "nope/x.go")},
		{"build_context ../x.go (outside)", "REFUSE_OUTSIDE_SANDBOX", step("target_files", "../x.go")},
	}
}

func (b *bench) advice() {
	for _, c := range refusalCases() {
		o := b.callTool("build_context", c.args, c.figure)
		goal := "refused with " + c.code
		if c.code == "REFUSE_CONTEXT_TOO_LARGE" {
			goal += ", ≤ " + size(goalResult)
		}
		switch {
		case o.res != nil && o.res.IsError:
			code := o.res.RefusalCode()
			ok := code == c.code
			if c.code == "REFUSE_CONTEXT_TOO_LARGE" {
				ok = ok && o.f.Size() <= goalResult
			}
			if code == "" {
				code = "no REFUSE_ code (" + o.res.FirstLine(60) + ")"
			}
			b.rep.goal(c.figure, fmt.Sprintf("%s, %s", code, size(o.f.Size())), goal, ok)
		case !o.answered():
			b.rep.goal(c.figure, o.describe(), goal, false)
		default:
			b.rep.goal(c.figure, "not refused: "+o.describe(), goal, false)
		}
	}

	// Every tool error of the run so far, not only these: the sandbox
	// refusals and the invalid arguments are advice an agent reads too.
	// An error's texts are read together: its second text repeats the
	// first as JSON, and one name is one hit.
	var hits []string
	for _, e := range b.toolErrors {
		for _, h := range adviceHits(strings.Join(e.texts, "\n")) {
			hits = append(hits, fmt.Sprintf("  - %s: %s %q in %q", e.label, h.Kind, h.Match, h.Near))
		}
	}
	// Without a single tool error there is no advice to judge: not a pass.
	value := fmt.Sprintf("%d in %d tool errors", len(hits), len(b.toolErrors))
	b.rep.goal("refusal texts naming a CLI flag or editor field", value, "0", len(hits) == 0 && len(b.toolErrors) > 0)
	if len(hits) > 0 {
		b.rep.detail("CLI flags (--select, --target, --symbol, --max-input-tokens, --root) and editor fields (active_file, selection) in tool errors:")
		b.rep.details = append(b.rep.details, hits...)
	}
}

func (b *bench) records() {
	figure := `record_execution {"thread_id":"t","turn_id":"u"} (no output)`
	o := b.callTool("record_execution", map[string]any{"thread_id": "t", "turn_id": "u"}, figure)
	switch {
	case b.missing("record_execution", o):
		b.rep.unavailable(figure, o.describe(), "an error")
	case o.res != nil && o.res.IsError:
		b.rep.goal(figure, "tool error (isError): "+o.res.FirstLine(90), "an error", true)
	case o.answered() && o.f.Error != nil:
		b.rep.goal(figure, "JSON-RPC error (not a tool error): "+cut(o.f.Error.String(), 90), "an error", true)
	case !o.answered():
		b.rep.goal(figure, o.describe(), "an error", false)
	default:
		b.rep.goal(figure, "accepted: "+o.describe(), "an error", false)
	}

	for _, c := range []struct {
		name, figure string
		args         map[string]any
	}{
		{"verify", "verify {} frame", map[string]any{}},
		{"budget", "budget frame (http/server.go)", buildArgs()},
	} {
		o := b.callTool(c.name, c.args, c.figure)
		switch {
		case b.missing(c.name, o):
			b.rep.unavailable(c.figure, o.describe(), "≤ "+size(goalResult))
		case o.ok():
			b.rep.goal(c.figure, size(o.f.Size()), "≤ "+size(goalResult), o.f.Size() <= goalResult)
		default:
			b.rep.goal(c.figure, o.describe(), "≤ "+size(goalResult), false)
		}
	}
}

// malformedLines are what a broken client could send: a message cut
// short, a line that is not JSON, JSON that is not an object.
var malformedLines = []string{`{"jsonrpc":"2.0","id":`, `not json`, `42`}

// parseErrorCodes are the answers JSON-RPC defines for such lines: Parse
// error, Invalid Request.
var parseErrorCodes = []int{-32700, -32600}

func (b *bench) robustness() {
	for _, line := range malformedLines {
		figure := "malformed line " + line
		f, err := b.srv.sendRaw(line, b.rawWait)
		p := b.ping("ping after " + line)
		if f == nil {
			f = b.srv.nextOrphan() // answered while the ping was waited for
		}
		var got string
		ok := false
		switch {
		case f != nil && f.Error != nil:
			got = fmt.Sprintf("error %d", f.Error.Code)
			ok = slices.Contains(parseErrorCodes, f.Error.Code)
		case f != nil:
			got = "an answer without an error: " + cut(string(f.Raw), 60)
		case err != nil:
			got = err.Error()
		}
		pong := "ping answered"
		if !p.answered() || p.f.Error != nil {
			pong, ok = "ping: "+p.describe(), false
		}
		b.rep.goal(figure, got+"; "+pong, "error -32700/-32600, then ping answered", ok)
	}
	final := b.ping("final ping")
	alive := b.srv.alive()
	value := "running, ping answered"
	switch {
	case !alive:
		value = "exited"
	case !final.answered() || final.f.Error != nil:
		value = "running, ping: " + final.describe()
	}
	b.rep.goal("server after the malformed lines", value, "running and serving", alive && final.answered() && final.f.Error == nil)
}

// ping sends a ping, waited for as long as a malformed line's answer: a
// server that serves answers a ping at once.
func (b *bench) ping(label string) *outcome {
	f, dur, err := b.srv.callWithin("ping", map[string]any{}, label, b.rawWait)
	return &outcome{f: f, dur: dur, err: err}
}

// leaks scans every frame of the run; it is called once the server has
// stopped, so that nothing it sent is left out.
func (b *bench) leaks() {
	frames := b.srv.received()
	total := 0
	var found []leak
	for i, r := range frames {
		total += r.f.Size()
		for _, l := range b.scan.scanFrame(r.f.Raw) {
			l.Frame, l.What = i, r.what
			found = append(found, l)
		}
	}
	b.rep.figure("frames received", fmt.Sprintf("%d, %s", len(frames), size(total)))
	// A line on stdout that is not JSON-RPC (a stray print, a log line)
	// breaks a host's reader.
	var invalid []string
	for i, r := range frames {
		if r.f.Invalid != "" {
			invalid = append(invalid, fmt.Sprintf("frame %d: %s: %s", i, r.f.Invalid, cut(string(r.f.Raw), 60)))
		}
	}
	b.rep.goal("frames that are not JSON-RPC 2.0", fmt.Sprint(len(invalid)), "0", len(invalid) == 0 && len(frames) > 0)
	for _, x := range invalid[:min(len(invalid), 5)] {
		b.rep.detail("%s", x)
	}
	// No frame at all is no evidence of no leak.
	b.rep.goal("planted secrets in any frame", fmt.Sprintf("%d (%d secrets planted, %d pieces looked for)", len(found), len(b.secrets), b.scan.needles()), "0", len(found) == 0 && len(frames) > 0)
	for _, l := range found {
		b.rep.detail("leak: frame %d (%s): %s, %s", l.Frame, l.What, l.Secret, wholeOrPiece(l.Whole))
	}
	// The log is not sent to the agent, so it has no goal here; a secret
	// in it is still worth knowing.
	logLeaks := b.scan.scanText(b.srv.stderr.Bytes())
	b.rep.figure("planted secrets in the server's log (stderr)", fmt.Sprint(len(logLeaks)))
	for _, l := range logLeaks {
		b.rep.detail("leak in the server's log (stderr): %s", l.Secret)
	}
}

func wholeOrPiece(whole bool) string {
	if whole {
		return "the whole value"
	}
	return "a piece of it"
}
