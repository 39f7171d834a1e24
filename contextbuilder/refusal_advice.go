package contextbuilder

import (
	"fmt"
	"strings"
)

// A refusal reaches people through several front ends: the command line,
// an editor over LSP (VS Code, Neovim, or another client) and an agent
// over MCP. What can be done about it is the same everywhere — select a
// region, name a symbol, raise the budget — but each front end does it
// with its own controls: a flag, an editor setting or selection, a tool
// argument. So the package that refuses says what can be done once, as
// Actions, and each front end says them in its own words by giving its
// Terms to [Refusal.In]. The Advice a refusal is made with is the Actions
// in [RequestTerms], the words of the request itself, for a caller that
// does not re-render it.

// ActionKind is a kind of thing a refusal advises.
type ActionKind string

// Action kinds. They are not on the wire: only the advice's text is.
const (
	// ActionSelectRegion: send only a region of the target file.
	ActionSelectRegion ActionKind = "select_region"
	// ActionSmallerRegion: the region given is too large; give a smaller
	// one.
	ActionSmallerRegion ActionKind = "smaller_region"
	// ActionNameSymbol: name the symbol to change instead of its file.
	ActionNameSymbol ActionKind = "name_symbol"
	// ActionFewerSymbols: symbols were named and their declarations alone
	// are too large; name fewer or smaller ones.
	ActionFewerSymbols ActionKind = "fewer_symbols"
	// ActionFewerTargets: target fewer files.
	ActionFewerTargets ActionKind = "fewer_targets"
	// ActionRaiseBudget: use a model with a larger input window.
	ActionRaiseBudget ActionKind = "raise_budget"
	// ActionSmallerFile: choose a file under the indexing size cap.
	ActionSmallerFile ActionKind = "smaller_file"
	// ActionRaiseFileSizeCap: raise the indexing size cap.
	ActionRaiseFileSizeCap ActionKind = "raise_file_size_cap"
	// ActionRaisePolicyCap: ask the workspace owner to raise a policy cap.
	ActionRaisePolicyCap ActionKind = "raise_policy_cap"
	// ActionPickCandidate: retry with one of an ambiguity's candidates
	// (Action.Candidate is the example).
	ActionPickCandidate ActionKind = "pick_candidate"
	// ActionNameTarget: name the file to change.
	ActionNameTarget ActionKind = "name_target"
	// ActionCheckPath: a named file does not exist; check its path.
	ActionCheckPath ActionKind = "check_path"
	// ActionCheckSymbol: a named symbol has no definition; check it.
	ActionCheckSymbol ActionKind = "check_symbol"
	// ActionOpenFolder: no project folder is open.
	ActionOpenFolder ActionKind = "open_folder"
	// ActionInsideWorkspace: a path outside the workspace was given.
	ActionInsideWorkspace ActionKind = "inside_workspace"
	// ActionNeverSendRule: a target matched a never-send rule
	// (Action.Rule is the rule as the index records it, Action.Target
	// the path).
	ActionNeverSendRule ActionKind = "never_send_rule"
)

// Action is one thing a refusal advises, in no front end's words.
type Action struct {
	Kind ActionKind
	// Candidate is the example of ActionPickCandidate.
	Candidate Candidate
	// Target is the path an action is about, when it is about one.
	Target string
	// Rule is the never-send rule of ActionNeverSendRule, as the index
	// records it ("deny:21: .env", "deny_rules:1: secrets/").
	Rule string
}

// Terms are the words of one front end for what a user acts with. Each
// field is a clause completing the sentence it documents; an empty field
// falls back on RequestTerms'.
type Terms struct {
	// Region: how to send only a region of a file ("select the lines to
	// change …").
	Region string
	// Symbol: how to name a symbol to change.
	Symbol string
	// Symbols: where the named symbols are, to name fewer of them.
	Symbols string
	// Budget: how to raise the input budget.
	Budget string
	// FileSizeCap: how to raise the indexing size cap.
	FileSizeCap string
	// Target: how to name the file to change.
	Target string
	// Folder: how to open a project folder.
	Folder string
	// Inside: how to name a file inside the workspace.
	Inside string
	// FindPath and FindSymbol: how to find a file's path and a symbol's
	// name.
	FindPath, FindSymbol string
	// Pick says how to retry with candidate c of an ambiguous target.
	Pick func(c Candidate) string
}

// RequestTerms are the words of the request itself (the LSP and MCP
// requests share its fields): the Advice a refusal is made with, what an
// LSP client ctxd does not know is told, and what another front end's
// empty Terms fall back on. Read only.
var RequestTerms = Terms{
	Region:      "send a selection, or the region as \"path:L1-L2\" (1-based lines) in plan_step.target_files, instead of whole files",
	Symbol:      "name the symbols to change in plan_step.target_symbols",
	Symbols:     "plan_step.target_symbols",
	Budget:      "use a model with a larger input window (model.max_input_tokens)",
	FileSizeCap: "raise the indexing size cap where ctxd is started (--max-file-size) if the file really must be sent",
	Target:      "name the file to change in plan_step.target_files, or send it as the active file",
	Folder:      "open the project's folder as a workspace folder",
	Inside:      "choose a file inside the workspace, or open its folder as a workspace folder",
	FindPath:    "paths are relative to the workspace folder, with / separators",
	FindSymbol:  "a qualified name such as Type.Method also works",
	Pick: func(c Candidate) string {
		return fmt.Sprintf("retry the same request with one or more of the candidates in user_selected_targets, e.g. {\"path\": %q, \"symbol\": %q}; naming the file in plan_step.target_files also narrows the name to its definitions", c.Path, c.Symbol)
	},
}

// In returns r with its advice in t's words: a copy when r has actions,
// else r itself (its advice has no front end's words to change).
func (r *Refusal) In(t Terms) *Refusal {
	if r == nil || len(r.Actions) == 0 {
		return r
	}
	cp := *r
	cp.Advice = AdviceIn(r.Actions, t)
	return &cp
}

// AdviceIn says actions in t's words: one clause per action, in order,
// joined by "; " with "or" before the last.
func AdviceIn(actions []Action, t Terms) string {
	t = t.withDefaults()
	var clauses []string
	for _, a := range actions {
		if c := a.clause(t); c != "" {
			clauses = append(clauses, c)
		}
	}
	// The actions are alternatives, but for the never-send rules of
	// several targets, which are each to be dealt with.
	if len(clauses) > 1 && actions[len(actions)-1].Kind != ActionNeverSendRule {
		clauses[len(clauses)-1] = "or " + clauses[len(clauses)-1]
	}
	out := strings.Join(clauses, "; ")
	if len(actions) > 0 && narrowing[actions[0].Kind] && out != "" {
		out = "narrow the scope: " + out
	}
	return out
}

// narrowing are the actions that narrow the request; advice that starts
// with one says so first.
var narrowing = map[ActionKind]bool{ActionSelectRegion: true, ActionSmallerRegion: true, ActionFewerSymbols: true, ActionSmallerFile: true}

// withDefaults fills t's empty fields from RequestTerms.
func (t Terms) withDefaults() Terms {
	d := RequestTerms
	or := func(s *string, def string) {
		if *s == "" {
			*s = def
		}
	}
	or(&t.Region, d.Region)
	or(&t.Symbol, d.Symbol)
	or(&t.Symbols, d.Symbols)
	or(&t.Budget, d.Budget)
	or(&t.FileSizeCap, d.FileSizeCap)
	or(&t.Target, d.Target)
	or(&t.Folder, d.Folder)
	or(&t.Inside, d.Inside)
	or(&t.FindPath, d.FindPath)
	or(&t.FindSymbol, d.FindSymbol)
	if t.Pick == nil {
		t.Pick = d.Pick
	}
	return t
}

// clause is a in t's words.
func (a Action) clause(t Terms) string {
	switch a.Kind {
	case ActionSelectRegion:
		return t.Region
	case ActionSmallerRegion:
		return "select a smaller region"
	case ActionNameSymbol:
		return t.Symbol
	case ActionFewerSymbols:
		return "name fewer or smaller symbols (" + t.Symbols + ")"
	case ActionFewerTargets:
		return "target fewer files"
	case ActionRaiseBudget:
		return t.Budget
	case ActionSmallerFile:
		return "choose a smaller file"
	case ActionRaiseFileSizeCap:
		return t.FileSizeCap
	case ActionRaisePolicyCap:
		return "ask the workspace owner to raise the cap in .ctxd/config.json"
	case ActionPickCandidate:
		return t.Pick(a.Candidate)
	case ActionNameTarget:
		return t.Target
	case ActionCheckPath:
		return "check the path (" + t.FindPath + ") or save the file first"
	case ActionCheckSymbol:
		return "check the name (" + t.FindSymbol + ") or name the file instead"
	case ActionOpenFolder:
		return t.Folder
	case ActionInsideWorkspace:
		return t.Inside
	case ActionNeverSendRule:
		return neverSendClause(a.Target, a.Rule)
	}
	return ""
}

// neverSendClause says what can be done about the never-send rule that
// matched target: the rule by its pattern, and what the user can do about
// that rule — which depends on whose rule it is and what it is for. The
// words are the same in every front end: the config file is the same.
func neverSendClause(target, rule string) string {
	source, rest, _ := strings.Cut(rule, ":")
	_, text, _ := strings.Cut(rest, ": ")
	text = strings.TrimSpace(text)
	if text == "" {
		return fmt.Sprintf("%s matches a never-send rule (%s): choose another target", target, rule)
	}
	if source == "deny_rules" {
		return fmt.Sprintf("%s matches %q in deny_rules of .ctxd/config.json, this workspace's own rule: choose another target, or remove or narrow that rule there (it is the workspace owner's; a restart applies it)", target, text)
	}
	pattern, what := builtinRule(text)
	lead := fmt.Sprintf("%s matches the never-send rule %q of the context contract (%s), which cannot be switched off", target, pattern, what)
	switch strings.ToLower(text) {
	case "*.env", ".env", ".env.*":
		return lead + ": choose another target; if the model needs the variables' names, put them without their values in a file no rule matches (for example env.example) and target that"
	case "*.pfx", "*.key", "*.pem":
		return lead + ": key material is never sent; choose another target"
	case "bin/", "obj/":
		return lead + ": choose a target outside that directory, or move or copy the code to a path no rule matches"
	}
	return lead + ": choose another target"
}
