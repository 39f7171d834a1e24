package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace/change"
)

// TestExplanationsCoverRefusalCodes: every code the contract lists has an
// explanation, in the same order, so that each editor can show one for any
// refusal it receives, and every rejection code of a checked change after
// them.
func TestExplanationsCoverRefusalCodes(t *testing.T) {
	var got []string
	for _, e := range contextbuilder.Explanations() {
		got = append(got, string(e.Code))
	}
	want := append(refusalCodes(), strs(change.Codes()...)...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("explained codes differ from the refusal codes (-want +got):\n%s", diff)
	}
}

// TestVimRefusalsHelp checks the help file as Vim reads it: the file tag
// first, one tag per code and the list's tag, each defined once and none
// by accident (a "*word*" in the prose is a tag to Vim, and :helptags
// fails on a duplicate), every |link| resolving, and no line wider than
// 'textwidth'.
func TestVimRefusalsHelp(t *testing.T) {
	doc := string(vimRefusals())
	if !strings.HasPrefix(doc, "*ctxd-refusals.txt*") {
		t.Errorf("the help file does not start with its file tag:\n%.80s", doc)
	}
	tags := regexp.MustCompile(`\*([^ \t*|]+)\*`).FindAllStringSubmatch(doc, -1)
	var got []string
	for _, m := range tags {
		got = append(got, m[1])
	}
	want := []string{"ctxd-refusals.txt", vimCodesTag}
	for _, e := range contextbuilder.Explanations() {
		want = append(want, vimTag(e.Code))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	// ctxd-refusal-ui is doc/ctxd.txt's section on how refusals are
	// shown. A link to the list's own tag from this file leads the reader
	// back to where they are (issue 32).
	known := append(slices.Clone(want), "ctxd-refusal-ui")
	for _, m := range regexp.MustCompile(`\|([^ \t|]+)\|`).FindAllStringSubmatch(doc, -1) {
		if m[1] == vimCodesTag {
			t.Errorf("link |%s| points at the list it is in", m[1])
		} else if !slices.Contains(known, m[1]) {
			t.Errorf("link |%s| names no known tag", m[1])
		}
	}
	for i, line := range strings.Split(doc, "\n") {
		if len(line) > helpWidth {
			t.Errorf("line %d is %d bytes wide: %q", i+1, len(line), line)
		}
	}
}

// TestTSRefusals: the TypeScript table has an entry per code and its
// strings are JSON-escaped (a quote in the prose must not end the string).
func TestTSRefusals(t *testing.T) {
	ts := string(tsRefusals())
	for _, e := range contextbuilder.Explanations() {
		if !strings.Contains(ts, "  "+jsString(string(e.Code))+": {\n    summary: "+jsString(e.Summary)+",\n") {
			t.Errorf("no entry for %s", e.Code)
		}
	}
	if !strings.Contains(ts, `{\"path\": ..., \"symbol\": ...}`) {
		t.Error("quotes in the prose are not escaped")
	}
}
