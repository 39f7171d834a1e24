package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// scriptFiles is the "files" object an embedded oracle script prints:
// each file's used files with their use counts.
type scriptFiles map[string]struct {
	Used map[string]int `json:"used"`
}

// split returns the used files of every file (an empty map for none) and
// the sorted files candidate keeps as targets.
func (fs scriptFiles) split(candidate func(string) bool) (map[string]map[string]int, []string) {
	used := map[string]map[string]int{}
	var cands []string
	for f, v := range fs {
		used[f] = v.Used
		if used[f] == nil {
			used[f] = map[string]int{}
		}
		if candidate(f) {
			cands = append(cands, f)
		}
	}
	slices.Sort(cands)
	return used, cands
}

// runScript writes an embedded oracle's source to script, runs cmd (which
// names it) in the script's directory and decodes its JSON output into out.
func runScript(script string, src []byte, cmd *exec.Cmd, out any) error {
	if err := os.WriteFile(script, src, 0o644); err != nil {
		return err
	}
	cmd.Dir = filepath.Dir(script)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(script), err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s output: %w", filepath.Base(script), err)
	}
	return nil
}
