package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"

	"github.com/ctxd/ctxd/contextbuilder/tokens"
)

// Reserve is the response reserve passed to every build; the effective
// budget B is then --max-input-tokens B+Reserve with --soft-limit-pct 100,
// so that hard = soft = B.
const Reserve = 4000

// Model fixes the tokenizer (o200k_base) whatever the user's config says.
const Model = "gpt-4o"

// estimator counts blocks the way ctxd does: title + "\n" + content.
var estimator = tokens.ForModel(Model)

// blockTokens is the token count of one rendered block.
func blockTokens(title, content string) int { return estimator.Count(title + "\n" + content) }

// ctxdRun is what one build gave: the target's and fixed blocks' tokens, and
// the selection around the target. Refused is set (and Sel empty) when ctxd
// refused the build.
type ctxdRun struct {
	Refused  string
	Fixed    int // system + constraints blocks
	Target   int // blocks whose path is the target
	Reported int // budget_report.estimated_input_tokens
	Sel      Selection
}

// buildOutput is the part of `ctxd build --format json` the benchmark reads.
type buildOutput struct {
	Bundle struct {
		Blocks []block `json:"blocks"`
	} `json:"bundle"`
	Manifest struct {
		Selection struct {
			IncludedFiles []includedFile `json:"included_files"`
		} `json:"selection"`
	} `json:"manifest"`
	BudgetReport struct {
		EstimatedInputTokens int `json:"estimated_input_tokens"`
	} `json:"budget_report"`
	Refusal *refusal `json:"refusal"`
}

type block struct {
	BlockType string    `json:"block_type"`
	Title     string    `json:"title"`
	Content   string    `json:"content"`
	Meta      blockMeta `json:"meta"`
}

type blockMeta struct {
	Path *string `json:"path"`
}

type includedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

type refusal struct {
	Code string `json:"code"`
}

// ctxdArgs are the exact arguments of one build at effective budget b.
func ctxdArgs(root, cacheDir, target string, b int) []string {
	return []string{"build", "--root", root, "--purpose", "diff", "--target", target,
		"--model", Model,
		"--max-input-tokens", strconv.Itoa(b + Reserve),
		"--response-token-reserve", strconv.Itoa(Reserve),
		"--soft-limit-pct", "100",
		"--format", "json", "--cache-dir", cacheDir}
}

// runCtxd runs one build of target at effective budget b.
func runCtxd(bin, root, cacheDir, target string, b int) (ctxdRun, error) {
	cmd := exec.Command(bin, ctxdArgs(root, cacheDir, target, b)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var o buildOutput
	if err := json.Unmarshal(out, &o); err != nil {
		return ctxdRun{}, fmt.Errorf("ctxd build %s at %d: %v (exit: %v); stderr: %s", target, b, err, runErr, stderr.Bytes())
	}
	return parseBuild(o, target), nil
}

// parseBuild turns ctxd's answer into the selection around target.
func parseBuild(o buildOutput, target string) ctxdRun {
	if o.Refusal != nil {
		return ctxdRun{Refused: o.Refusal.Code}
	}
	r := ctxdRun{Reported: o.BudgetReport.EstimatedInputTokens, Sel: Selection{Files: map[string]int{}}}
	for _, b := range o.Bundle.Blocks {
		n := blockTokens(b.Title, b.Content)
		r.Sel.Total += n
		switch {
		case b.BlockType == "system" || b.BlockType == "constraints":
			r.Fixed += n
		case b.Meta.Path == nil || *b.Meta.Path == "":
			r.Sel.Unpathed += n
		case *b.Meta.Path == target:
			r.Target += n
		default:
			r.Sel.Files[*b.Meta.Path] += n
		}
	}
	// A file the manifest lists without a block of its own (not expected,
	// but the tool must take whatever ctxd produces) is still included.
	for _, f := range o.Manifest.Selection.IncludedFiles {
		if _, ok := r.Sel.Files[f.Path]; !ok && f.Path != target {
			r.Sel.Files[f.Path] = 0
		}
	}
	return r
}
