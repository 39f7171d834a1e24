package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// gitignoreHeader opens the .gitignore ctxd writes in .ctxd.
const gitignoreHeader = "# Written by ctxd: generated state is ignored; config.json and templates/ are meant to be committed."

// gitignoreLines are the patterns of the generated state: artifacts, the
// seed 000 ledger and its SQLite projection, the audit log and its lock,
// temp files and torn-write leftovers.
var gitignoreLines = []string{
	"artifacts/",
	"ledger/",
	"audit.jsonl",
	"audit.jsonl.lock",
	"ledger.sqlite",
	"*.tmp",
	"*.torn-*",
}

// selfIgnore is the line a .gitignore ctxd creates ends with: the file
// ignores itself, so that a build leaves `git status` clean in a workspace
// that committed only its config.json (git reads an ignored .gitignore all
// the same). It is never appended to an existing file: one a team
// committed would then change. A team that wants the file in its
// repository adds it with `git add -f`.
const selfIgnore = ".gitignore"

// ensureGitignore writes .gitignore in the state directory when it is
// absent, or appends the ctxd lines it lacks, keeping every user line.
func ensureGitignore(r *os.Root) error {
	old, err := r.ReadFile(".gitignore")
	absent := errors.Is(err, fs.ErrNotExist)
	if err != nil && !absent {
		return fmt.Errorf("reading %s/.gitignore: %w", Dir, err)
	}
	next, changed := mergeGitignore(string(old))
	if absent {
		next += selfIgnore + "\n"
	}
	if !changed {
		return nil
	}
	if err := writeAtomic(r, ".", ".gitignore", ".gitignore.", []byte(next), 0o644, nil); err != nil {
		return fmt.Errorf("writing %s/.gitignore: %w", Dir, err)
	}
	return nil
}

// mergeGitignore returns the .gitignore content holding old's lines plus
// the missing ctxd lines, and whether that differs from old. A line
// counts as present when equal after trimming spaces (and a CR).
func mergeGitignore(old string) (string, bool) {
	have := map[string]bool{}
	for _, l := range strings.Split(old, "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var missing []string
	for _, l := range gitignoreLines {
		if !have[l] {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		return old, false
	}
	var b strings.Builder
	b.WriteString(old)
	if old != "" && !strings.HasSuffix(old, "\n") {
		b.WriteByte('\n')
	}
	if !have[gitignoreHeader] {
		b.WriteString(gitignoreHeader + "\n")
	}
	for _, l := range missing {
		b.WriteString(l + "\n")
	}
	return b.String(), true
}

// GitignoreMissing returns the lines of ctxd's .gitignore (the patterns
// that keep the records out of commits) that content lacks, in ctxd's
// order; none when content has them all. A line counts as present as in
// mergeGitignore.
func GitignoreMissing(content string) []string {
	have := map[string]bool{}
	for _, l := range strings.Split(content, "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var missing []string
	for _, l := range gitignoreLines {
		if !have[l] {
			missing = append(missing, l)
		}
	}
	return missing
}
