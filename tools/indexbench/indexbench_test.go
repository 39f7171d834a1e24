package main

import (
	"bufio"
	"math"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {95, 95 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {0.1, time.Millisecond}} {
		if got := percentile(ds, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("p99 of one sample = %v", got)
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of none = %v", got)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{1234 * time.Microsecond, "1.23 ms"}, {12345 * time.Microsecond, "12.3 ms"}, {456 * time.Millisecond, "456 ms"}, {8650 * time.Millisecond, "8.65 s"}, {95 * time.Second, "95.0 s"}} {
		if got := fmtDur(c.d); got != c.want {
			t.Errorf("fmtDur(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	for _, c := range []struct {
		r    float64
		want string
	}{{4.94, "4.94×"}, {0.5, "0.50×"}, {0.0281, "0.028×"}, {12.6, "13×"}} {
		if got := fmtRatio(c.r); got != c.want {
			t.Errorf("fmtRatio(%v) = %q, want %q", c.r, got, c.want)
		}
	}
	if !math.IsNaN(ratio(1, 0)) {
		t.Error("ratio to nothing is not NaN")
	}
}

func TestGoals(t *testing.T) {
	r := row{ratio: 2.5}
	r.goalRatio(2, 1500*time.Millisecond)
	if r.met != -1 || r.goalCell() != "≤ 2.00× = 3.00 s: MISSED" {
		t.Errorf("2.5× against 2×: %+v %q", r, r.goalCell())
	}
	r = row{ratio: math.NaN()}
	r.goalRatio(2, 0)
	if r.met != 0 {
		t.Errorf("no ratio judged: %+v", r)
	}
	c := config{goalBuildSpec: "200ms", goalFirstSpec: "1s"}
	if err := c.parseGoals(); err != nil || c.goalBuildAbs != 200*time.Millisecond || c.goalFirstAbs != time.Second {
		t.Errorf("200ms, 1s: %v %v %v", c.goalBuildAbs, c.goalFirstAbs, err)
	}
	c = config{goalBuildSpec: "0.03x", goalFirstSpec: "0.5x"}
	if err := c.parseGoals(); err != nil || c.goalBuildRatio != 0.03 || c.goalFirst != 0.5 {
		t.Errorf("0.03x, 0.5x: %v %v %v", c.goalBuildRatio, c.goalFirst, err)
	}
	for _, bad := range []config{{goalBuildSpec: "fast", goalFirstSpec: "0.5x"}, {goalBuildSpec: "0.01x", goalFirstSpec: "soon"}} {
		if bad.parseGoals() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestReadFrame(t *testing.T) {
	in := "Content-Length: 2\r\nContent-Type: x\r\n\r\n{}content-length:4\n\nnull"
	r := bufio.NewReader(strings.NewReader(in))
	for _, want := range []string{"{}", "null"} {
		body, err := readFrame(r)
		if err != nil || string(body) != want {
			t.Fatalf("frame = %q, %v; want %q", body, err, want)
		}
	}
	if _, err := readFrame(bufio.NewReader(strings.NewReader("X: 1\r\n\r\n{}"))); err == nil {
		t.Error("a frame without Content-Length was read")
	}
}

func TestEditPositions(t *testing.T) {
	lines := strings.Split("// Copyright\npackage p\n\nfunc a() {}\n// middle\nfunc b() {}\n\nfunc c() {}\n", "\n")
	if got := commentLine(lines); got != 4 {
		t.Errorf("commentLine = %d, want 4", got)
	}
	if got := packageLine(lines); got != 1 {
		t.Errorf("packageLine = %d, want 1", got)
	}
	if got := utf16Len("a😀é"); got != 4 {
		t.Errorf("utf16Len = %d, want 4", got)
	}
}

func TestGeneratedEditFile(t *testing.T) {
	e := didChangeFile(t.TempDir(), nil)
	if !e.generated || e.lines < 4900 || e.lines > 5100 {
		t.Errorf("generated buffer: %d lines, generated %v", e.lines, e.generated)
	}
}
