package contextbuilder

import (
	"slices"
	"strings"
)

// Explanation is the long help of one refusal code: what it means, why ctxd
// refuses rather than guessing, and what the user can do from each front
// end. A refusal's own advice is one self-contained sentence; this is the
// page behind it, shown where the user is: `ctxd explain CODE` on the
// command line, `:help ctxd-refusals` in Neovim and the refusal's details in
// VS Code. The two editor files are generated from this table by
// tools/gencontract, so the three never disagree.
type Explanation struct {
	// Code is the refusal code exactly as it appears in a refusal.
	Code RefusalCode `json:"code"`
	// Summary is one line: when the refusal happens.
	Summary string `json:"summary"`
	// Paragraphs are plain text, one paragraph per string, without
	// markup or hard line breaks, so that each front end wraps them to its
	// own width.
	Paragraphs []string `json:"paragraphs"`
}

// The codes of other layers (the policy, prompt, ledger and workspace
// packages) are written out here because those packages import this one;
// a test in internal/cli checks that they match the constants.
var explanations = []Explanation{
	{
		Code:    RefuseContextTooLarge,
		Summary: "the required context does not fit the model's input window",
		Paragraphs: []string{
			"The required part of a bundle (the system rules, the constraints and the target files) needs more tokens than the hard limit, even after ctxd has removed every optional block and sliced what it may slice. The hard limit is max_input_tokens minus response_token_reserve. The contract forbids silent truncation, so ctxd refuses instead of cutting the target. A target larger than the indexing size cap (--max-file-size) is refused the same way.",
			"What to do: narrow the scope. Select the region to change, or name a symbol, instead of sending whole files; target fewer files; or use a model with a larger input window. On the command line: --target PATH:L1-L2 (1-based lines) or --symbol NAME, and --max-input-tokens N. In VS Code: select the lines and run ctxd: Build Context for Selection, or ctxd: Build Context for Symbol…; the budget is the ctxd.model.maxInputTokens setting. In Neovim: :'<,'>CtxdBuild on a visual selection, or :CtxdBuild diff NAME; the budget is model.max_input_tokens in vim.g.ctxd. When a symbol was named already, name fewer or smaller ones. The refusal's advice says this in the words of the front end it reached. The refusal carries the budget report, which shows the estimate (what the system rules, constraints and sliced targets need) and the limits.",
		},
	},
	{
		Code:    RefuseSecretRisk,
		Summary: "a required file holds a secret that cannot be removed safely",
		Paragraphs: []string{
			"A target or other required block matches a high-confidence secret pattern (a private key, an API key, a password assignment) that ctxd cannot redact deterministically, or its text cannot be decoded for scanning (invalid UTF-8 or NUL bytes), so ctxd cannot prove it holds no secret. It is also raised for every build when the secret rules given with --secret-rules could not be loaded. ctxd never sends what it cannot prove clean.",
			"What to do: move the secret out of the project (into an environment variable or a secret manager), or add a deny rule for the file to deny_rules in .ctxd/config.json so that it is never a candidate; then retry. For undecodable text, save the file as UTF-8. The refusal's redaction report names the file and the rule that matched, never the secret.",
		},
	},
	{
		Code:    RefuseAmbiguousTarget,
		Summary: "a target symbol name has several definitions",
		Paragraphs: []string{
			"A target symbol (for example Add) is defined in more than one place and nothing in the request says which one is meant. ctxd does not guess: it refuses and lists the candidates, each with its path, qualified name (such as Cart.Add) and position.",
			"What to do: pick one candidate and retry. On the command line, add --select PATH#SYMBOL, e.g. --select cart/cart.go#Cart.Add (repeatable; the qualified name Type.Method is the unambiguous form). Over LSP or MCP, retry the same request with the candidate in user_selected_targets as {\"path\": ..., \"symbol\": ...}. Naming the file with --target (plan_step.target_files) also narrows the name to the definitions in that file. The editors offer the candidates as a pick list.",
		},
	},
	{
		Code:    RefuseUnsupportedTarget,
		Summary: "the target cannot be sent: binary, unknown encoding, ignored, unreadable or never-send",
		Paragraphs: []string{
			"The target file exists but ctxd may not send it: it is binary (or ctxd cannot tell, which counts as binary), it is in an unknown encoding, it is ignored by .gitignore or .ctxdignore, it could not be read, it changed on disk while the bundle was built, or every target matched a never-send rule. The never-send rules are part of the context contract and cannot be switched off: .git/, .vs/, .ctxd/, any bin/ or obj/ directory, node_modules/, a top-level packages/, and *.pfx, *.key, *.pem, *.env, .env and .env.* files. They are meant for build output, dependencies and key material, so they also match a source directory that happens to be called obj or bin (Go's cmd/internal/obj, for example).",
			"What to do: choose a text file as the target. For an ignored file, remove the ignore rule. For a never-send match, the refusal names the rule that matched: a rule of the contract cannot be switched off, so choose a file outside it, or move or copy the code to a path no rule matches; a rule of your own (deny_rules in .ctxd/config.json) can be removed there. Converting the file to UTF-8 fixes an encoding refusal; saving the file and retrying fixes a file that changed while being read.",
		},
	},
	{
		Code:    RefuseOutsideSandbox,
		Summary: "a path is outside the workspace folder",
		Paragraphs: []string{
			"ctxd only reads inside the project root (the workspace folder, or --root on the command line). A target, active file or selection outside it, a path that leaves it with .. or a symbolic link, a hard-linked file (unless allowed), or a build with no folder open at all is refused.",
			"What to do: choose a file inside the workspace, or open the file's folder as a workspace folder (on the command line, pass it as --root). Paths in a request are relative to the workspace folder. If every hard link in the workspace is trusted, set \"sandbox\": {\"allow_hard_links\": true} in .ctxd/config.json and restart ctxd.",
		},
	},
	{
		Code:    RefuseTargetNotFound,
		Summary: "a named target file or symbol does not exist",
		Paragraphs: []string{
			"A target file is not in the workspace index (a typo, a path not relative to the workspace folder, or a new file not yet saved), a target symbol has no definition in the index, or a diff names no target at all. This code is ctxd's addition to the contract's refusals.",
			"What to do: check the path (relative to the workspace folder; on the command line, to --root) and save the file; check the symbol's spelling (a qualified name such as Type.Method also works); or name the file instead of the symbol. A diff needs a target: open the file to change, select a region, or pass --target.",
		},
	},
	{
		Code:    "context_policy_read_failed",
		Summary: ".ctxd/config.json could not be read",
		Paragraphs: []string{
			"The workspace's .ctxd/config.json exists but could not be opened or read (permissions, a symbolic link leaving the workspace, an I/O error). Every build is refused until it can be read, because the policy it holds decides what may be sent.",
			"What to do: make .ctxd/config.json a readable regular file inside the workspace, then restart ctxd (or run the command again).",
		},
	},
	{
		Code:    "context_policy_invalid",
		Summary: ".ctxd/config.json is not valid",
		Paragraphs: []string{
			"The workspace's .ctxd/config.json is not valid JSON or does not follow its schema (an unknown member, a wrong type, an out-of-range number). ctxd fails closed rather than run under a policy it cannot read.",
			"What to do: fix the file at the position the message names; docs/schemas/config.schema.json in the ctxd repository describes every member. Then restart ctxd (or run the command again).",
		},
	},
	{
		Code:    "context_policy_override_invalid",
		Summary: "a skill tries to widen the policy or does not exist",
		Paragraphs: []string{
			"The requested skill is not defined in .ctxd/config.json, or its override would widen the global policy (a namespace the policy does not allow, a larger cap). A skill may only narrow the policy.",
			"What to do: use a skill that exists (policy.skills in .ctxd/config.json; --skill on the command line), or ask the workspace owner to fix its override so that it only narrows the policy.",
		},
	},
	{
		Code:    "context_namespace_denied",
		Summary: "a target is outside the namespaces the policy allows",
		Paragraphs: []string{
			"The workspace policy (or the skill in force) allows context only from some namespaces, sets of paths named in .ctxd/config.json, and an explicit target lies outside all of them. Related files outside them are left out quietly; a target you named is refused.",
			"What to do: choose a target inside an allowed namespace, build without the narrowing skill, or ask the workspace owner to add the namespace to policy.allowed_context_namespaces in .ctxd/config.json (a restart applies it).",
		},
	},
	{
		Code:    "context_selection_exceeds_max_items",
		Summary: "the required selection has more items than the policy allows",
		Paragraphs: []string{
			"After every optional block was removed, the required part of the selection still has more items than policy.max_items (or the skill's cap) in .ctxd/config.json.",
			"What to do: narrow the request (fewer target files or symbols, a region instead of whole files), or ask the workspace owner to raise the cap.",
		},
	},
	{
		Code:    "context_selection_exceeds_max_bytes",
		Summary: "the required selection is larger than the policy allows",
		Paragraphs: []string{
			"After every optional block was removed, the required part of the selection is still larger than policy.max_bytes (or the skill's cap) in .ctxd/config.json.",
			"What to do: narrow the request (select a region or name a symbol instead of whole files, target fewer files), or ask the workspace owner to raise the cap.",
		},
	},
	{
		Code:    "context_selection_exceeds_max_user_messages",
		Summary: "a thread's turn references too many earlier user messages",
		Paragraphs: []string{
			"The earlier intents a turn references (its declared refs), plus the current one, exceed policy.max_user_messages_per_thread in .ctxd/config.json.",
			"What to do: reference fewer earlier intents (--ref on the command line, declared_refs in a request), or start a new thread.",
		},
	},
	{
		Code:    "context_selection_failed",
		Summary: "the selection could not be recorded under .ctxd/",
		Paragraphs: []string{
			"ctxd records every bundle it builds (an artifact, an audit event and, in a thread, ledger events) under the workspace's .ctxd/ directory, and refuses a bundle it cannot record: an unrecorded bundle could not be verified later.",
			"What to do: make the workspace's .ctxd directory writable (it must be a directory inside the workspace, not a symbolic link), free disk space if needed, then restart ctxd or retry. ctxd verify --root DIR checks what was recorded.",
		},
	},
	{
		Code:    "context_record_disk_full",
		Summary: "the disk that holds ctxd's records is full",
		Paragraphs: []string{
			"ctxd records every bundle it builds (an artifact, an audit event and, in a thread, ledger events) before it answers, and the disk that holds the records had no space left (ENOSPC). Nothing was answered without a record. The records are in the workspace's .ctxd/ directory when the workspace has a .ctxd/config.json, otherwise in ctxd/workspaces under $XDG_STATE_HOME (default ~/.local/state).",
			"What to do: free space on that disk and retry; nothing needs restarting. ctxd verify --root DIR then checks what was recorded: a write the full disk cut short shows as incomplete (exit 6), and ctxd verify --repair completes it.",
		},
	},
	{
		Code:    "prompt_build_failed",
		Summary: "the prompt template could not be rendered",
		Paragraphs: []string{
			"The prompt template was not found or is invalid, so no prompt could be rendered from the bundle.",
			"What to do: check the template id (--template on the command line) and the workspace's templates in .ctxd/templates/*.json, fix the one the message names, and retry.",
		},
	},
	{
		Code:    "prompt_write_failed",
		Summary: "the rendered prompt could not be recorded",
		Paragraphs: []string{
			"ctxd records every prompt it renders under .ctxd/ and refuses one it cannot record.",
			"What to do: make the workspace's .ctxd directory writable, then retry.",
		},
	},
	{
		Code:    "REF_NOT_FOUND",
		Summary: "a declared ref of a thread does not exist",
		Paragraphs: []string{
			"A turn declares a ref (intent:<turn>, execution:<turn> or a correlation id) that the workspace's ledger does not hold.",
			"What to do: check the ref's spelling and that the turn it names was recorded in this workspace (ctxd verify --root DIR lists the ledger's state), or drop the ref.",
		},
	},
	{
		Code:    "CROSS_THREAD_REF",
		Summary: "a declared ref belongs to another thread",
		Paragraphs: []string{
			"A turn may only reference events of its own thread, and one of its declared refs names an event of another thread.",
			"What to do: remove the ref, or make the request in the thread the ref belongs to.",
		},
	},
	{
		Code:    "MAX_REFS_EXCEEDED",
		Summary: "a turn declares more refs than the configuration allows",
		Paragraphs: []string{
			"The turn declares more refs than context.max_refs in .ctxd/config.json.",
			"What to do: declare fewer refs, or ask the workspace owner to raise context.max_refs.",
		},
	},
	{
		Code:    "EMPTY_REFS_DENIED",
		Summary: "a turn declares no refs and the configuration requires some",
		Paragraphs: []string{
			"context.empty_refs_policy in .ctxd/config.json is DENY, and the turn declares no refs.",
			"What to do: declare the refs the turn builds on (--ref on the command line, declared_refs in a request), or ask the workspace owner to allow empty refs.",
		},
	},
	// The change checker's rejection codes (workspace/change): a verdict
	// on a model's answer, not a refusal of a build, explained from the
	// same table so that `ctxd explain` and the editors know them too.
	{
		Code:    "CHANGE_MALFORMED",
		Summary: "the model's answer holds no change ctxd can read",
		Paragraphs: []string{
			"ctxd found no change in the answer, or one it cannot read safely: no unified diff, no SEARCH/REPLACE block after a path line, no whole file in a fenced block after its path; formats mixed in one answer; a rename; one file written twice under different paths; a whole file that leaves code out behind a placeholder such as \"// ... existing code ...\", which would delete that code. Prose around a change is ignored, so a model that only explained what to do gives this.",
			"What to do: ask again; the rejection's error_context tells the model which formats ctxd reads. Over LSP, MCP and the CLI, pass it as last_error of the next build; the editors' change commands retry by themselves.",
		},
	},
	{
		Code:    "CHANGE_OUTSIDE_SANDBOX",
		Summary: "the answer changes a file outside the workspace folder",
		Paragraphs: []string{
			"A path of the answer leaves the workspace root: an absolute path elsewhere, a .. segment, or a symbolic link that leads out. ctxd never reads or writes outside the workspace, whatever a model asks for.",
			"What to do: nothing to change on your side; ask again. The error_context tells the model to name files relative to the workspace root.",
		},
	},
	{
		Code:    "CHANGE_NEVER_SEND_PATH",
		Summary: "the answer changes a never-send file (.env, a key, build output)",
		Paragraphs: []string{
			"The answer changes a file that a never-send rule covers: the contract's own (.git/, .ctxd/, bin/, obj/, node_modules/, *.pem, *.key, *.pfx, *.env, .env, .env.*) or the workspace's deny_rules. The model cannot have seen such a file through ctxd, and ctxd does not vouch for a change to key material or environment files.",
			"What to do: make that part of the change yourself, or ask the model again without it.",
		},
	},
	{
		Code:    "CHANGE_NOT_IN_BUNDLE",
		Summary: "the answer changes a file the bundle did not carry",
		Paragraphs: []string{
			"The answer was checked against a bundle (bundle_id, --bundle), and it changes a file that bundle did not include, so the model wrote it without seeing it. A new file passes only where the bundle's plan step names it as a target.",
			"What to do: build a bundle that targets the file too (plan_step.target_files, --target), then ask again; or check the answer without a bundle id to check it against the files as they are.",
		},
	},
	{
		Code:    "CHANGE_STALE",
		Summary: "a file changed after the bundle was built (or while the change was written)",
		Paragraphs: []string{
			"The sha256 of a file the answer changes differs from the one the bundle's manifest recorded: someone edited it after the context was built, so the answer was made from other bytes. It is also the verdict when a file changes between the check and --write, or when writing fails; nothing is written then.",
			"What to do: build the context again and ask again. The editors do this in their retry loop.",
		},
	},
	{
		Code:    "CHANGE_CONTEXT_MISMATCH",
		Summary: "the lines the change replaces are not in the file",
		Paragraphs: []string{
			"A hunk's context and removed lines, or a SEARCH block, do not occur in the file, even ignoring trailing whitespace and with Unicode punctuation normalised (curly quotes, dashes, non-breaking spaces). ctxd never drops context lines to make a hunk fit. Also: a change to a file that does not exist, or that creates one that does. The rejection quotes the closest lines the file has, with their numbers, secrets redacted.",
			"What to do: ask again with the rejection's error_context as last_error: the model sees the real lines and can correct its change.",
		},
	},
	{
		Code:    "CHANGE_AMBIGUOUS_MATCH",
		Summary: "the lines the change replaces occur more than once",
		Paragraphs: []string{
			"A SEARCH block, or a hunk whose line numbers do not pick one place, matches the file at several places, and ctxd does not guess which one is meant. An empty SEARCH block on an existing file matches everywhere.",
			"What to do: ask again; the error_context names the candidate lines and asks for more surrounding lines in the change.",
		},
	},
	{
		Code:    "CHANGE_SYNTAX_ERROR",
		Summary: "the changed file does not parse where the change touched it",
		Paragraphs: []string{
			"After the change, tree-sitter finds a syntax error (an ERROR or MISSING node) that the file did not have before: in a file that parsed cleanly, anywhere; in a file that already had errors, inside the changed lines. The rejection names the line and column.",
			"What to do: ask again; the error_context gives the model the position and the line.",
		},
	},
	{
		Code:    "CHANGE_SECRET",
		Summary: "the change adds a credential",
		Paragraphs: []string{
			"ctxd's secret scanner (the same rules as for bundles, with your --secret-rules) finds a credential in the lines the change adds, or the change would write a [REDACTED:rule] marker over a secret the model never saw. The rejection names the file, line and rule, never the value.",
			"What to do: keep credentials out of source (an environment variable, a secret manager); ask again, telling the model to read the value from configuration. A marker in a changed line means the model rewrote a line holding a secret: ask it to leave that line as it is.",
		},
	},
}

// Explanations returns the long help of every refusal code ctxd can
// return, in a fixed order: the contract's codes first, then the policy,
// prompt and thread codes. The result is a copy.
func Explanations() []Explanation {
	out := make([]Explanation, len(explanations))
	for i, e := range explanations {
		e.Paragraphs = slices.Clone(e.Paragraphs)
		out[i] = e
	}
	return out
}

// Explain returns the long help of code; ok is false for a code ctxd does
// not know.
func Explain(code RefusalCode) (e Explanation, ok bool) {
	for _, e := range explanations {
		if e.Code == code {
			e.Paragraphs = slices.Clone(e.Paragraphs)
			return e, true
		}
	}
	return Explanation{}, false
}

// Wrap breaks a paragraph of an explanation into lines of at most width
// bytes at spaces (a word longer than width gets a line of its own): the
// one layout `ctxd explain` prints and the Neovim help file is generated
// with.
func Wrap(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, w := range strings.Fields(text) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
