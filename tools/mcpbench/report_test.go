package main

import (
	"strings"
	"testing"
)

func TestSize(t *testing.T) {
	for n, want := range map[int]string{
		0:      "0 B",
		1023:   "1,023 B",
		12288:  "12,288 B (12.0 KiB)",
		868142: "868,142 B (847.8 KiB)",
		-1500:  "-1,500 B",
	} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
	if got := groupDigits(1234567); got != "1,234,567" {
		t.Errorf("groupDigits = %q", got)
	}
}

func TestReport(t *testing.T) {
	r := &report{header: []string{"mcpbench: test", "workspace: w"}}
	r.figure("tools", "8")
	r.goal("frame", "10 B", "≤ 12 KiB", true)
	if !r.allMet() {
		t.Error("allMet = false with every goal met")
	}
	r.unavailable("read_file", "unknown tool", "answers")
	if r.allMet() {
		t.Error("allMet = true with a goal not available")
	}
	r.goal("leaks", "1", "0 | none", false)
	r.detail("leak: frame %d", 3)
	if m, x, n := r.counts(); m != 1 || x != 1 || n != 1 {
		t.Errorf("counts = %d %d %d", m, x, n)
	}

	text := r.text()
	for _, want := range []string{"mcpbench: test", "MISSED", "not available", "goals: 1 met, 1 missed, 1 not available", "leak: frame 3"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	md := r.markdown()
	for _, want := range []string{"| figure | value | goal | met |", "| --- | --- | --- | --- |", `0 \| none`, "workspace: w  \n"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "mcpbench: test") {
		t.Error("markdown repeats the first header line under its own title")
	}
}
