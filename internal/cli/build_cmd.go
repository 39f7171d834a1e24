package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/handlers"
	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/markdown"
	"github.com/ctxd/ctxd/workspace/policy"
)

// exitRefused is the exit code of a build the context builder refused
// (docs/protocol.md, CLI): stdout then holds {"refusal": …}.
const exitRefused = 3

// Output formats of ctxd build.
const (
	outJSON     = "json"
	outMarkdown = "markdown"
	outSummary  = "summary"
	// outPrompt renders the bundle with a prompt template into a
	// provider-ready prompt, as ctxd.renderPrompt does.
	outPrompt = "prompt"
)

const buildSynopsis = "build --root DIR --purpose intent|plan|diff [--target PATH[:L1-L2]]... [--new-file PATH]... [--symbol NAME]... [--select PATH[#SYMBOL]]... " +
	"[--intent TEXT] [--constraint TEXT]... [--last-error TEXT] [--model NAME] [--max-input-tokens N] " +
	"[--max-output-tokens N] [--response-token-reserve N] [--soft-limit-pct N] " +
	"[--skill NAME] [--thread-id ID --turn-id ID [--parent-turn-id ID] [--ref REF]...] " +
	"[--format json|markdown|summary|prompt [--template ID]] [--log-level L] [--cache-dir DIR|off] [--max-file-size BYTES] [--secret-rules FILE]"

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// buildFlags are the parsed flags of ctxd build that make up the request.
type buildFlags struct {
	purpose     string
	targets     stringList
	newFiles    stringList
	symbols     stringList
	selects     stringList
	intent      string
	constraints stringList
	lastError   string
	model       string
	maxInput    int
	maxOutput   int
	reserve     int
	softPct     int
	skill       string
	threadID    string
	turnID      string
	parentTurn  string
	refs        stringList
}

// request turns the flags into the build request the LSP command would
// receive; set names the flags given on the command line, so that only
// those override the model defaults of the config.
func (f *buildFlags) request(set map[string]bool) *contextbuilder.Request {
	req := &contextbuilder.Request{Purpose: contextbuilder.Purpose(f.purpose)}
	if f.intent != "" {
		req.Intent = &contextbuilder.Intent{ID: "cli", Text: f.intent}
	}
	if len(f.targets) > 0 || len(f.symbols) > 0 || len(f.newFiles) > 0 {
		// The plan step has no text of its own: the command line has
		// one --intent, and a prompt that printed it again as the plan
		// step would say the same thing twice.
		req.PlanStep = &contextbuilder.PlanStep{
			ID:            "cli",
			TargetFiles:   append([]string(nil), f.targets...),
			TargetSymbols: append([]string(nil), f.symbols...),
			NewFiles:      append([]string(nil), f.newFiles...),
		}
	}
	for _, v := range f.selects {
		req.UserSelectedTargets = append(req.UserSelectedTargets, parseSelect(v))
	}
	for i, c := range f.constraints {
		req.Constraints = append(req.Constraints, contextbuilder.Constraint{
			Scope: contextbuilder.ScopeUser,
			ID:    "cli-" + strconv.Itoa(i+1),
			Text:  c,
		})
	}
	if f.lastError != "" {
		req.LastError = &contextbuilder.LastError{Message: f.lastError}
	}
	var m contextbuilder.ModelRequest
	given := false
	str := func(name string, v string, dst **string) {
		if set[name] {
			*dst, given = &v, true
		}
	}
	num := func(name string, v int, dst **int) {
		if set[name] {
			*dst, given = &v, true
		}
	}
	str("model", f.model, &m.Model)
	num("max-input-tokens", f.maxInput, &m.MaxInputTokens)
	num("max-output-tokens", f.maxOutput, &m.MaxOutputTokens)
	num("response-token-reserve", f.reserve, &m.ResponseTokenReserve)
	num("soft-limit-pct", f.softPct, &m.SoftLimitThresholdPct)
	if given {
		req.Model = &m
	}
	req.Skill = f.skill
	if f.threadID != "" || f.turnID != "" || set["ref"] || f.parentTurn != "" {
		th := map[string]any{"thread_id": f.threadID, "turn_id": f.turnID, "declared_refs": append([]string{}, f.refs...)}
		if f.parentTurn != "" {
			th["parent_turn_id"] = f.parentTurn
		}
		req.Thread, _ = json.Marshal(th) // strings and a string list always encode
	}
	return req
}

// check finds the usage errors the request's validation would report in
// its JSON terms, and says them in the command line's: a flag given blank,
// a thread flag without the others, a diff without a target.
func (f *buildFlags) check(fs *flag.FlagSet) error {
	given := func(name string) bool { return flagSet(fs, name) }
	switch {
	case given("intent") && strings.TrimSpace(f.intent) == "":
		return errors.New("--intent is blank: give the request in words, or leave the flag out")
	case given("last-error") && strings.TrimSpace(f.lastError) == "":
		return errors.New("--last-error is blank: give the previous attempt's error message, or leave the flag out")
	case f.threadID != "" && f.turnID == "":
		return errors.New("--thread-id needs --turn-id (the turn of the thread this build is for)")
	case f.threadID == "" && (f.turnID != "" || f.parentTurn != "" || len(f.refs) > 0):
		return errors.New("--turn-id, --parent-turn-id and --ref need --thread-id (the thread they belong to)")
	case f.purpose == string(contextbuilder.PurposeDiff) && len(f.targets) == 0 && len(f.symbols) == 0 && len(f.newFiles) == 0 && len(f.selects) == 0:
		return errors.New("--purpose diff needs a target: --target PATH[:L1-L2], --symbol NAME, --select PATH[#SYMBOL] or --new-file PATH")
	}
	for i, c := range f.constraints {
		if strings.TrimSpace(c) == "" {
			return fmt.Errorf("--constraint #%d is blank", i+1)
		}
	}
	return nil
}

// checkModel finds, before anything is indexed, the model error the build
// would fail with: a --model that ctxd's table does not know, without
// --max-input-tokens, or limits that do not fit together. It merges the
// flags over .ctxd/config.json's model as the build does; a config that
// does not load is left to the build, which reports it.
func checkModel(root string, r *contextbuilder.ModelRequest) error {
	if r == nil {
		return nil
	}
	var c contextbuilder.Config
	if cfg, err := policy.Load(root); err == nil {
		m := cfg.File.Model
		c.Model = contextbuilder.Model{Provider: m.Provider, Model: m.Model, MaxInputTokens: m.MaxInputTokens, MaxOutputTokens: m.MaxOutputTokens,
			ResponseTokenReserve: m.ResponseTokenReserve, SoftLimitThresholdPct: m.SoftLimitThresholdPct}
	}
	_, err := contextbuilder.EffectiveModel(c, r)
	if err == nil {
		return nil
	}
	msg := flagTerms(err.Error(), requestFlags)
	if r.Model != nil && r.MaxInputTokens == nil && strings.TrimSpace(*r.Model) != "" {
		if _, known := contextbuilder.LookupModel(*r.Model); !known {
			var names []string
			for _, k := range contextbuilder.KnownModels() {
				names = append(names, k.Name)
			}
			msg += "; give --max-input-tokens N (the model's context window), or name a model ctxd knows: " + strings.Join(names, ", ")
		}
	}
	return errors.New(msg)
}

// requestFlags are the command-line flags of the build request's fields,
// for error messages: the builder names the JSON field ("model.max_input_tokens"),
// which a person at a shell never wrote. An index is left out of a key:
// "constraints[1].text" is looked up as "constraints.text".
var requestFlags = map[string]string{
	"purpose":                        "--purpose",
	"intent":                         "--intent",
	"intent.text":                    "--intent",
	"last_error":                     "--last-error",
	"last_error.message":             "--last-error",
	"model":                          "--model",
	"model.model":                    "--model",
	"model.max_input_tokens":         "--max-input-tokens",
	"model.max_output_tokens":        "--max-output-tokens",
	"model.response_token_reserve":   "--response-token-reserve",
	"model.soft_limit_threshold_pct": "--soft-limit-pct",
	"plan_step":                      "--target",
	"plan_step.target_files":         "--target",
	"plan_step.target_symbols":       "--symbol",
	"plan_step.new_files":            "--new-file",
	"user_selected_targets":          "--select",
	"user_selected_targets.path":     "--select",
	"user_selected_targets.symbol":   "--select",
	"constraints":                    "--constraint",
	"constraints.text":               "--constraint",
	"skill":                          "--skill",
	"thread.thread_id":               "--thread-id",
	"thread.turn_id":                 "--turn-id",
	"thread.parent_turn_id":          "--parent-turn-id",
	"thread.declared_refs":           "--ref",
	"declared_refs":                  "--ref",
	"template_id":                    "--template",
}

// quotedField is a request field as the builder's messages quote it, with
// the word "field" before it when there is one, and an index:
// field "constraints[0].text", "model.max_input_tokens".
var quotedField = regexp.MustCompile(`(?:fields? )?"([a-z_]+(?:\[[0-9]+\])?(?:\.[a-z_]+(?:\[[0-9]+\])?)*)"`)

// fieldIndex is an index in a field name.
var fieldIndex = regexp.MustCompile(`\[([0-9]+)\]`)

// flagTerms rewrites the request fields a message names as the flags that
// set them (flags maps a field, its indexes left out, to its flag); an
// indexed field is the flag's occurrence, counted from 1 ("--constraint
// #2"). A field without a flag (one of .ctxd/config.json, such as
// model.provider) is left as the message wrote it. Translating here, at
// the edge, keeps the layers below in the JSON terms that LSP and MCP
// clients read.
func flagTerms(msg string, flags map[string]string) string {
	return quotedField.ReplaceAllStringFunc(msg, func(m string) string {
		name := quotedField.FindStringSubmatch(m)[1]
		fl, ok := flags[fieldIndex.ReplaceAllString(name, "")]
		if !ok {
			return m
		}
		if idx := fieldIndex.FindAllStringSubmatch(name, -1); len(idx) > 0 {
			n, _ := strconv.Atoi(idx[len(idx)-1][1])
			fl += fmt.Sprintf(" #%d", n+1)
		}
		return fl
	})
}

// runBuild indexes one folder exactly as `ctxd index` (and the server) do,
// then runs the same build as the ctxd.buildContext command and prints it.
func runBuild(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("build", buildSynopsis, stderr, stdout)
	root := fs.String("root", "", "workspace folder to build from (required)")
	var f buildFlags
	fs.StringVar(&f.purpose, "purpose", "", "what the bundle is for: intent, plan or diff (required)")
	fs.Var(&f.targets, "target", "target file, relative to --root, optionally with a line range PATH:L1-L2 (repeatable)")
	fs.Var(&f.newFiles, "new-file", "a file the change creates, relative to --root: a target without content that ctxd check-change --bundle lets the answer create (repeatable)")
	fs.Var(&f.symbols, "symbol", "target symbol name (repeatable)")
	fs.Var(&f.selects, "select", "a symbol of a file as PATH#SYMBOL, which becomes the target region (e.g. cart/cart.go#Cart.Add), or a PATH alone;\n"+
		"the answer to REFUSE_AMBIGUOUS_TARGET: a candidate as PATH#SYMBOL with the qualified name, or the PATH that holds\n"+
		"only one of them; sets user_selected_targets (repeatable)")
	fs.StringVar(&f.intent, "intent", "", "the user's request in words")
	fs.Var(&f.constraints, "constraint", "a user constraint (repeatable)")
	fs.StringVar(&f.lastError, "last-error", "", "error message of a previous attempt, for retries")
	fs.StringVar(&f.model, "model", "", "model name (default from the config); ctxd knows the context window of common OpenAI, Anthropic and Google models,\n"+
		"e.g. gpt-4.1 or anthropic/claude-sonnet-4; another model needs --max-input-tokens")
	fs.IntVar(&f.maxInput, "max-input-tokens", 0, "model's maximum input tokens (default: the --model's window from ctxd's table, else the config's)")
	fs.IntVar(&f.maxOutput, "max-output-tokens", 0, "model's maximum output tokens (default from the config)")
	fs.IntVar(&f.reserve, "response-token-reserve", 0, "tokens reserved for the response (default from the config)")
	fs.IntVar(&f.softPct, "soft-limit-pct", 0, "soft limit as a percentage of the hard limit, 1 to 100 (default from the config)")
	fs.StringVar(&f.skill, "skill", "", "policy override (a skill of .ctxd/config.json) the build runs under")
	fs.StringVar(&f.threadID, "thread-id", "", "thread the build belongs to: records INTENT and DECISION events in .ctxd/ledger (seed 000)")
	fs.StringVar(&f.turnID, "turn-id", "", "turn of the thread (required with --thread-id)")
	fs.StringVar(&f.parentTurn, "parent-turn-id", "", "turn this one follows, e.g. the failed attempt of a retry")
	fs.Var(&f.refs, "ref", "declared ref of the thread: intent:<turn>, execution:<turn> or a correlation id (repeatable)")
	format := fs.String("format", outSummary, "output: json, markdown, summary, or prompt (a ctxd.prompt.v1 from a template, as JSON)")
	template := fs.String("template", "", "with --format prompt: the template id (default: the purpose's default template)")
	level := fs.String("log-level", "warn", "log level: debug, info, warn or error")
	idxFlags := indexFlags(fs)
	rules := secretRulesFlag(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	// Everything printed on stderr from here on goes around the progress
	// line, which shows on a terminal while indexing or building takes
	// more than a second.
	progress := newProgressLine(stderr, isTerminal(stderr))
	defer progress.Clear()
	stderr = progress.Writer()

	fail := func(code int, msg string, args ...any) int {
		fmt.Fprintf(stderr, "ctxd build: "+msg+"\n", args...)
		return code
	}
	switch *format {
	case outJSON, outMarkdown, outSummary, outPrompt:
	default:
		return fail(exitUsage, "invalid --format %q: want json, markdown, summary or prompt", *format)
	}
	if *root == "" {
		return fail(exitUsage, "--root is required")
	}
	if f.purpose == "" {
		return fail(exitUsage, "--purpose is required (intent, plan or diff)")
	}
	if *template != "" && *format != outPrompt {
		return fail(exitUsage, "--template %s applies to --format prompt only (got --format %s)", *template, *format)
	}
	if err := f.check(fs); err != nil {
		return fail(exitUsage, "%v", err)
	}
	dir, err := rootDir(*root)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	// Usage errors about the tree come before indexing it, which takes
	// seconds on a large one: a typo in a path or range is answered at
	// once.
	if err := checkCacheDir(fs, idxFlags, dir); err != nil {
		return fail(exitUsage, "%v", err)
	}
	for _, t := range f.targets {
		if err := checkTarget(dir, t); err != nil {
			return fail(exitUsage, "%v", err)
		}
	}
	for _, v := range f.selects {
		if err := checkSelect(dir, v); err != nil {
			return fail(exitUsage, "%v", err)
		}
	}
	for _, v := range f.newFiles {
		if !index.IsFileURI(v) && !filepath.IsAbs(v) {
			if err := checkNotDir("--new-file", dir, v); err != nil {
				return fail(exitUsage, "%v", err)
			}
		}
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	req := f.request(set)
	// Validate before indexing: a request the builder would reject is a
	// usage error, and there is no point in scanning the workspace first.
	if err := req.Validate(); err != nil {
		return fail(exitUsage, "%s", flagTerms(err.Error(), requestFlags))
	}
	if err := checkModel(dir, req.Model); err != nil {
		return fail(exitUsage, "%v", err)
	}
	logger, closeLog, err := newLogger(*level, "", stderr)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	defer closeLog()
	scanner, _, err := loadSecretRules(*rules)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	idxOpts := idxFlags.options()
	idxOpts.OnProgress = progress.indexProgress(filepath.Base(dir))
	svc := workspace.NewService(workspace.ServiceOptions{Logger: logger, Index: idxOpts, Redactor: scanner, Now: clock()})
	defer func() {
		if err := svc.Close(); err != nil {
			logger.Warn("saving the index cache failed", "err", err)
		}
	}()
	_, err = svc.OpenFolder(ctx, dir, filepath.Base(dir))
	// The index reports the end of a scan after publishing it, so the
	// line may still show when OpenFolder returns.
	progress.Clear()
	if err != nil {
		if ie := (*workspace.IndexError)(nil); errors.As(err, &ie) {
			return fail(exitInternal, "indexing %s failed: %s", *root, ie.Detail)
		}
		return fail(exitInternal, "%v", err)
	}
	logger.Info("building context", "purpose", req.Purpose, "targets", len(f.targets), "symbols", len(f.symbols),
		"constraints", len(f.constraints), "format", *format)

	start := time.Now()
	// The CLI takes no editor positions, but an ambiguous target's
	// candidates are reported in LSP's default units, as over LSP.
	caller := workspace.Caller{Positions: handlers.Positions(position.UTF16)}
	var (
		res    *contextbuilder.Result
		prompt *workspace.PromptResult
	)
	progress.Set("building context")
	if *format == outPrompt {
		prompt, err = svc.RenderPrompt(ctx, caller, &workspace.PromptRequest{Request: *req, TemplateID: *template})
	} else {
		res, err = svc.BuildContext(ctx, caller, req)
	}
	progress.Clear()
	if err != nil {
		switch f := workspace.Classify(err); f.Kind {
		case workspace.FailRefused:
			return printRefusal("build", f.Refusal, stdout, stderr, targetFiles(f.Refusal, req)...)
		case workspace.FailInvalid:
			return fail(exitUsage, "%s", flagTerms(err.Error(), requestFlags))
		default:
			return fail(exitInternal, "%v", err)
		}
	}
	if prompt != nil {
		logger.Info("prompt rendered", "template_id", prompt.Prompt.TemplateID, "prompt_artifact", prompt.PromptArtifact, "total_tokens", prompt.Prompt.TokenCounts.Total, "elapsed", time.Since(start))
		if err := writeJSON(stdout, prompt); err != nil {
			return fail(exitInternal, "writing the output: %v", err)
		}
		return exitOK
	}
	if res == nil || res.Bundle == nil || res.Manifest == nil || res.RedactionReport == nil || res.BudgetReport == nil {
		return fail(exitInternal, "the context builder returned an incomplete result")
	}
	logBuilt(logger, res, time.Since(start))

	switch *format {
	case outJSON:
		err = writeJSON(stdout, res)
	case outMarkdown:
		err = markdown.Write(stdout, res)
	default:
		err = formatSummary(stdout, res, *root)
	}
	if err != nil {
		return fail(exitInternal, "writing the output: %v", err)
	}
	return exitOK
}

// logBuilt logs what a build chose: ids, hashes, counts and the decision,
// never a block's content.
func logBuilt(logger *slog.Logger, r *contextbuilder.Result, elapsed time.Duration) {
	logger.Info("context built",
		"bundle_id", r.Bundle.BundleID,
		"bundle_fingerprint", r.Manifest.Fingerprints.BundleFingerprint,
		"project_index_fingerprint", r.Manifest.Fingerprints.ProjectIndexFingerprint,
		"blocks", len(r.Bundle.Blocks),
		"included_files", len(r.Manifest.Selection.IncludedFiles),
		"excluded", len(r.Manifest.Selection.ExcludedCandidates),
		"redactions", len(r.RedactionReport.Redactions),
		"estimated_input_tokens", r.BudgetReport.EstimatedInputTokens,
		"decision", r.BudgetReport.Decision,
		"elapsed", elapsed)
	for _, e := range r.Manifest.Selection.ExcludedCandidates {
		logger.Debug("excluded candidate", "path", e.Path, "reason", e.Reason)
	}
	for _, f := range r.Manifest.Selection.IncludedFiles {
		logger.Debug("included file", "path", f.Path, "hash", f.Hash, "byte_size", f.ByteSize, "reason", f.Reason)
	}
}

func (t *trackWriter) Write(p []byte) (int, error) {
	t.wrote = true
	return t.w.Write(p)
}

// writeJSON writes v as JSON indented with two spaces and a trailing
// newline. HTML characters are left as they are: the output is read by
// people and programs, never embedded in a page.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printRefusal prints a refusal as the CLI's commands do, its advice in
// the command line's words (cliTerms): {"refusal": …}
// on stdout for programs (its candidates with LSP's 0-based lines, as
// documented), the code, message and advice on stderr for people, with an
// ambiguous target's candidates as --select values and 1-based lines, those
// in the files named by first first. It returns the exit code (3, or 1
// when stdout fails).
func printRefusal(command string, refusal *contextbuilder.Refusal, stdout, stderr io.Writer, first ...string) int {
	refusal = refusal.In(cliTerms)
	if err := writeJSON(stdout, map[string]*contextbuilder.Refusal{"refusal": refusal}); err != nil {
		fmt.Fprintf(stderr, "ctxd %s: writing the refusal: %v\n", command, err)
		return exitInternal
	}
	msg := refusal.Message
	if command == "build" {
		// The JSON on stdout keeps the wire's terms; the line for a
		// person names the flag they typed.
		msg = declaredRef.ReplaceAllStringFunc(msg, func(m string) string {
			n, _ := strconv.Atoi(declaredRef.FindStringSubmatch(m)[1])
			return fmt.Sprintf("--ref #%d", n+1)
		})
	}
	fmt.Fprintf(stderr, "ctxd %s: refused: %s: %s\n", command, refusal.Code, markdown.OneLine(msg))
	if len(refusal.Candidates) > 0 {
		fmt.Fprintln(stderr, "  candidates (retry with one as --select PATH#SYMBOL):")
		var rows [][]string
		for _, c := range humanOrder(refusal.Candidates, first) {
			rows = append(rows, []string{"--select " + markdown.OneLine(c.Path+"#"+c.Symbol), markdown.OneLine(c.Kind), fmt.Sprintf("line %d", c.Range.Start.Line+1)})
		}
		writeTable(indent{stderr}, rows)
	}
	if refusal.Advice != "" {
		fmt.Fprintf(stderr, "  advice: %s\n", markdown.OneLine(refusal.Advice))
	}
	if _, ok := contextbuilder.Explain(refusal.Code); ok {
		fmt.Fprintf(stderr, "  more:   ctxd explain %s\n", refusal.Code)
	}
	return exitRefused
}

// declaredRef is a ref of the request's thread as a refusal's message
// names it: declared_refs[0].
var declaredRef = regexp.MustCompile(`\bdeclared_refs\[([0-9]+)\]`)

// indent indents every line written through it by two more spaces.
type indent struct{ w io.Writer }

func (i indent) Write(p []byte) (int, error) {
	for line := range strings.Lines(string(p)) {
		if _, err := io.WriteString(i.w, "  "+line); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// humanOrder returns the candidates with those in the files named by
// first (the --target files) ahead of the others, each group in the
// refusal's order (path, then position).
func humanOrder(cands []contextbuilder.Candidate, first []string) []contextbuilder.Candidate {
	in := func(c contextbuilder.Candidate) bool {
		return slices.Contains(first, c.Path)
	}
	out := make([]contextbuilder.Candidate, 0, len(cands))
	for _, c := range cands {
		if in(c) {
			out = append(out, c)
		}
	}
	for _, c := range cands {
		if !in(c) {
			out = append(out, c)
		}
	}
	return out
}

// targetFiles are the request's target files without their line ranges,
// as workspace-relative slash paths, for ordering an ambiguity's
// candidates; nil for other refusals.
func targetFiles(r *contextbuilder.Refusal, req *contextbuilder.Request) []string {
	if r.Code != contextbuilder.RefuseAmbiguousTarget || req.PlanStep == nil {
		return nil
	}
	var out []string
	for _, t := range req.PlanStep.TargetFiles {
		file, _ := splitTargetRange(t)
		out = append(out, path.Clean(filepath.ToSlash(file)))
	}
	return out
}

// lineRange is the form of a --target line suffix: L or L1-L2. The
// builder checks the numbers (1-based, not reversed).
var lineRange = regexp.MustCompile(`^[0-9]+(-[0-9]+)?$`)

// splitTargetRange splits "PATH:L1-L2" into its path and suffix; suffix is
// "" when the value has no colon.
func splitTargetRange(v string) (file, suffix string) {
	i := strings.LastIndexByte(v, ':')
	if i < 0 {
		return v, ""
	}
	return v[:i], v[i+1:]
}

// checkTarget checks a --target value before anything is indexed: a
// suffix after the last colon must be a line range (a file whose name
// holds a colon is still found when it exists), and the file must exist
// under the root. A path that leaves the root, or a URI, is left to the
// builder, which refuses it as REFUSE_OUTSIDE_SANDBOX with the reason.
func checkTarget(root, v string) error {
	if v == "" {
		return errors.New("--target: empty path")
	}
	if index.IsFileURI(v) || filepath.IsAbs(v) {
		return nil
	}
	if existsUnder(root, v) {
		return checkNotDir("--target", root, v)
	}
	file, suffix := splitTargetRange(v)
	if file != v && !lineRange.MatchString(suffix) {
		return fmt.Errorf("--target %s: %q is not a line range: want PATH or PATH:L1-L2 (1-based, inclusive; e.g. %s:10-20)", v, suffix, file)
	}
	if err := checkExists("--target", root, file); err != nil {
		return err
	}
	return checkNotDir("--target", root, file)
}

// checkNotDir is the usage error of a directory given where a file is
// meant: the builder would look it up as a file and answer that it does
// not exist, which misleads.
func checkNotDir(flagName, root, rel string) error {
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil
	}
	// Lstat: a symbolic link is the builder's to resolve (or refuse, when
	// it leaves the root); the command line does not follow it.
	if info, err := os.Lstat(filepath.Join(root, clean)); err == nil && info.IsDir() {
		return fmt.Errorf("%s %s is a directory: name a file in it (targets are files; repeat the flag for several, or use --symbol NAME to find a definition)", flagName, rel)
	}
	return nil
}

// checkSelect checks a --select value before anything is indexed: it
// needs a path, and the path must exist under the root.
func checkSelect(root, v string) error {
	u := parseSelect(v)
	if u.Path == "" {
		return fmt.Errorf("--select %q: want PATH#SYMBOL (e.g. cart/cart.go#Cart.Add) or PATH", v)
	}
	if strings.HasSuffix(v, "#") {
		return fmt.Errorf("--select %q: the symbol after # is empty: want PATH#SYMBOL (e.g. cart/cart.go#Cart.Add) or PATH", v)
	}
	if index.IsFileURI(u.Path) || filepath.IsAbs(u.Path) {
		return nil
	}
	if err := checkExists("--select", root, u.Path); err != nil {
		return err
	}
	return checkNotDir("--select", root, u.Path)
}

// parseSelect splits a --select value at its last "#": a path holds a "#"
// far more rarely than a symbol does not.
func parseSelect(v string) contextbuilder.UserTarget {
	if i := strings.LastIndexByte(v, '#'); i >= 0 {
		return contextbuilder.UserTarget{Path: v[:i], Symbol: v[i+1:]}
	}
	return contextbuilder.UserTarget{Path: v}
}

// existsUnder reports whether rel names an existing path under root.
func existsUnder(root, rel string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil
}

// checkExists is the usage error of a path that does not exist under the
// root; a path that leaves the root is the builder's to refuse.
func checkExists(flagName, root, rel string) error {
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(root, clean)); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %s: no such file under --root %s (paths are relative to --root)", flagName, rel, root)
	}
	return nil
}

// checkCacheDir refuses an explicit --cache-dir (or $CTXD_CACHE_DIR)
// inside the root: the index never writes into the workspace, and rather
// than quietly running without a cache, the CLI says so. The default
// directory is not checked: with --root $HOME it is inside the root
// through no choice of the user, and the index then runs without a cache.
func checkCacheDir(flags *flag.FlagSet, o indexOpts, root string) error {
	dir := *o.cacheDir
	if dir == "" || dir == "off" {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("--cache-dir %s: %w", dir, err)
	}
	realRoot := root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		realRoot = r
	}
	if r, err := evalExisting(abs); err == nil {
		abs = r
	}
	if rel, err := filepath.Rel(realRoot, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		from := "--cache-dir"
		if !flagSet(flags, "cache-dir") {
			from = "$CTXD_CACHE_DIR"
		}
		return fmt.Errorf("%s %s is inside --root %s: the index never writes into the workspace; choose a directory outside it, or off", from, dir, root)
	}
	return nil
}

// evalExisting resolves the symbolic links of the longest existing prefix
// of p (a cache directory need not exist yet) and appends the rest.
func evalExisting(p string) (string, error) {
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", fmt.Errorf("no existing prefix of %s", p)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(flags *flag.FlagSet, name string) bool {
	found := false
	flags.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}
