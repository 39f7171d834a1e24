package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/policy"
)

// initConfig is what `ctxd init` writes to .ctxd/config.json: every member
// whose default the file can spell, set to that default, so that a team
// sees what it may change. The loader is strict JSON (an unknown member or
// a comment is an error, so that a misspelt member never silently does
// nothing), so the explanations live in initReadme next to it instead of
// in comments.
//
// "model" stays empty on purpose: an absent member means ctxd's built-in
// default, and a request's --model picks its own window, whereas a file
// that spelt gpt-4o's numbers would pin them for every model and change
// the configuration's digest. Everything else here normalizes to
// [policy.Default], so builds behave exactly as without the file
// (TestInitConfigIsTheDefault).
const initConfig = `{
  "schema_version": "1",
  "model": {},
  "deny_rules": [],
  "context": {
    "max_refs": 50,
    "empty_refs_policy": "ALLOW",
    "expand_last_n": 10,
    "allow_execution_refs_for_prompt": true,
    "canonical_sort": "event_index_asc",
    "enforce_scope_bound": true
  },
  "normalization": {
    "rules": ["FILTER_INTENT_ONLY", "SCOPE_BOUND", "SORT_CANONICAL"]
  },
  "sandbox": {
    "allow_hard_links": false
  }
}
`

// initReadme is the companion of initConfig, .ctxd/README.md: what each
// member means and how to change it. It is committed with the
// configuration (the .gitignore ctxd writes in .ctxd ignores only the
// records).
const initReadme = "# ctxd configuration\n" +
	"\n" +
	"`config.json` is this workspace's ctxd configuration, written by `ctxd init`\n" +
	"with every default: until someone edits it, builds behave exactly as without\n" +
	"it. Commit it (and this file); every build in the workspace, from any editor\n" +
	"or the command line, runs under it. The file is strict JSON: comments and\n" +
	"unknown members are errors, so that a misspelt member never silently does\n" +
	"nothing. The full reference is docs/policy.md in the ctxd repository, the\n" +
	"schema docs/schemas/config.schema.json.\n" +
	"\n" +
	"| member | what it does |\n" +
	"|---|---|\n" +
	"| `schema_version` | the file's format, always `\"1\"` |\n" +
	"| `model` | the default model of a build; empty means ctxd's built-in defaults (docs/policy.md lists them). Set `provider`, `model`, `max_input_tokens`, `max_output_tokens`, `response_token_reserve` and `soft_limit_threshold_pct` to pin them for everyone; a request may still override each |\n" +
	"| `deny_rules` | extra never-send patterns in .gitignore syntax, relative to the workspace root, e.g. `[\"secrets/**\", \"**/*.pem\"]`; they only add to ctxd's built-in list |\n" +
	"| `context.max_refs` | the most earlier turns a thread build may reference |\n" +
	"| `context.empty_refs_policy` | `DENY` refuses a thread build that references nothing; `ALLOW` accepts it |\n" +
	"| `context.expand_last_n` | how many earlier turns a client should reference when it expands a thread |\n" +
	"| `context.allow_execution_refs_for_prompt` | whether a recorded model output may enter a later bundle |\n" +
	"| `context.canonical_sort`, `context.enforce_scope_bound`, `normalization.rules` | fixed values ctxd records with every decision; any other value is an error |\n" +
	"| `sandbox.allow_hard_links` | `true` reads files that have more than one hard link (see docs/security.md before setting it) |\n" +
	"\n" +
	"A `policy` section (not written by `ctxd init`) limits which paths may be sent\n" +
	"and how much: see docs/policy.md.\n" +
	"\n" +
	"ctxd reads this file once, when a folder opens in an editor or a command\n" +
	"starts: restart the editor's ctxd server after a change. An invalid file makes\n" +
	"every build refuse with `context_policy_invalid`, naming the member at fault.\n" +
	"\n" +
	"Because the file exists, ctxd keeps this workspace's records (what was sent,\n" +
	"the audit trail, threads) here in `.ctxd/`, in files the `.gitignore` it\n" +
	"writes here keeps out of version control.\n"

// initFiles are the files ctxd init writes, relative to the workspace
// root, in the order it writes them.
var initFiles = []struct{ name, content string }{
	{policy.ConfigPath, initConfig},
	{path.Join(path.Dir(policy.ConfigPath), "README.md"), initReadme},
}

func init() {
	exitCodeHelp["init"] = "  0  written\n  1  internal error (a file could not be written)\n" +
		"  2  usage error, or .ctxd/config.json exists and --force was not given\n"
}

// runInit writes a workspace's .ctxd/config.json with every default and
// its explanation, .ctxd/README.md. It never overwrites a configuration
// unless --force is given; an existing README.md is kept then too.
func runInit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := newFlagSet("init", "init [--root DIR] [--force]", stderr, stdout)
	root := flags.String("root", ".", "workspace folder to write .ctxd/config.json in")
	force := flags.Bool("force", false, "overwrite an existing .ctxd/config.json and .ctxd/README.md")
	if code, ok := parseFlags(flags, args); !ok {
		return code
	}
	dir, err := rootDir(*root)
	if err != nil {
		fmt.Fprintf(stderr, "ctxd init: %v\n", err)
		return exitUsage
	}
	// Where the records went before: after the file exists they go to
	// .ctxd, and the user should know the earlier ones stay behind.
	before, beforeErr := workspace.Locate(dir)

	// os.Root: a .ctxd that is a link out of the workspace is an error,
	// not a way to write elsewhere.
	r, err := os.OpenRoot(dir)
	if err != nil {
		fmt.Fprintf(stderr, "ctxd init: %v\n", err)
		return exitInternal
	}
	defer r.Close()
	cfg := initFiles[0].name
	if _, err := r.Lstat(cfg); err == nil && !*force {
		fmt.Fprintf(stderr, "ctxd init: %s already exists in %s; it is left as it is (--force overwrites it with the defaults)\n", cfg, dir)
		return exitUsage
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "ctxd init: %s: %v\n", cfg, err)
		return exitInternal
	}
	if err := r.MkdirAll(path.Dir(cfg), 0o755); err != nil {
		fmt.Fprintf(stderr, "ctxd init: creating %s: %v\n", path.Dir(cfg), err)
		return exitInternal
	}
	var wrote, kept []string
	for _, f := range initFiles {
		if f.name != cfg && !*force {
			if _, err := r.Lstat(f.name); err == nil {
				kept = append(kept, f.name)
				continue
			}
		}
		if err := writeFileAtomic(r, f.name, []byte(f.content)); err != nil {
			fmt.Fprintf(stderr, "ctxd init: %v\n", err)
			return exitInternal
		}
		wrote = append(wrote, f.name)
	}
	for _, name := range wrote {
		fmt.Fprintf(stdout, "wrote %s\n", name)
	}
	for _, name := range kept {
		fmt.Fprintf(stdout, "kept the existing %s (--force overwrites it)\n", name)
	}
	fmt.Fprintln(stdout, "Every value is ctxd's default: builds behave as they did without the file. .ctxd/README.md says what each member does.")
	if after, err := workspace.Locate(dir); err == nil {
		fmt.Fprintf(stdout, "This workspace's records now go to %s (git-ignored).\n", after.Dir)
	}
	if _, err := os.Stat(before.Dir); beforeErr == nil && !before.InWorkspace && err == nil {
		fmt.Fprintf(stdout, "Records written before stay in %s.\n", before.Dir)
	}
	fmt.Fprintln(stdout, "Commit .ctxd/config.json and .ctxd/README.md; restart an editor's ctxd server to apply a change.")
	return exitOK
}

// writeFileAtomic writes name under r through a temporary file renamed
// into place, so that a crash never leaves a half-written configuration
// that every build would then refuse.
func writeFileAtomic(r *os.Root, name string, data []byte) error {
	tmp := name + ".init.tmp"
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = r.Rename(tmp, name)
	}
	if werr != nil {
		_ = r.Remove(tmp)
		return fmt.Errorf("writing %s: %w", name, werr)
	}
	return nil
}
