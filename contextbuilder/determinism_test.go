package contextbuilder_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
)

// detCorrelation is the explicit correlation_id of the requests that carry
// a file URI: the URI differs per directory, the id must not.
const detCorrelation = "3f2a9c1e-7b4d-4e6a-8c5f-1d2e3f4a5b6c"

// detSecret is the credential planted in the service; it must be redacted.
const detSecret = "hunter2-prod-Zq81xLm"

// detWorkspace is the determinism fixture: Go packages importing each
// other, a large Go file (sliced under a small budget) holding a secret,
// TypeScript files importing each other, a .env file and a README.
func detWorkspace() []wsFile {
	var svc strings.Builder
	svc.WriteString(`// Package service implements checkout.
package service

import (
	"errors"

	"example.com/shop/internal/model"
	"example.com/shop/internal/store"
)

// password is the database password of the old deployment.
const password = "` + detSecret + `"

// Service checks orders out.
type Service struct {
	store model.Store
	mem   *store.Memory
}

// New returns a Service saving to st.
func New(st model.Store) *Service {
	return &Service{store: st, mem: store.NewMemory()}
}

// Checkout validates an order and saves it.
func (s *Service) Checkout(id string, total int) error {
	if total <= 0 {
		return errors.New("empty order")
	}
	o := model.NewOrder(id, total)
	if err := s.store.Save(o); err != nil {
		return err
	}
	return s.mem.Save(o)
}
`)
	for i := 0; svc.Len() < 16000; i++ {
		fmt.Fprintf(&svc, "\n// audit%d records step %d of the audit trail.\nfunc audit%d(n int) int {\n\ts := n\n", i, i, i)
		for j := range 12 {
			fmt.Fprintf(&svc, "\ts += %d * n // audit line %d of step %d\n", (i*31+j*7)%997, j, i)
		}
		svc.WriteString("\treturn s\n}\n")
	}
	return []wsFile{
		{"go.mod", []byte("module example.com/shop\n\ngo 1.22\n")},
		{"README.md", []byte("# shop\n\nA tiny shop used by the determinism test.\n")},
		{".env", []byte("API_KEY=env-secret-value-9f8e7d6c\nDEBUG=false\n")},
		{"internal/model/model.go", []byte(`// Package model holds the shop's types.
package model

// Order is one order.
type Order struct {
	ID    string
	Total int
}

// Store saves orders.
type Store interface {
	Save(o Order) error
}

// NewOrder returns an order.
func NewOrder(id string, total int) Order {
	return Order{ID: id, Total: total}
}
`)},
		{"internal/store/memory.go", []byte(`// Package store keeps orders.
package store

import "example.com/shop/internal/model"

// Memory is an in-memory Store.
type Memory struct {
	orders []model.Order
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{} }

// Save implements model.Store.
func (m *Memory) Save(o model.Order) error {
	m.orders = append(m.orders, o)
	return nil
}

// Count returns how many orders were saved.
func (m *Memory) Count() int { return len(m.orders) }
`)},
		{"internal/service/service.go", []byte(svc.String())},
		{"internal/service/report.go", []byte(`package service

import "example.com/shop/internal/model"

// Report summarizes a checkout for the logs.
func Report(s *Service, o model.Order) string {
	if err := s.Checkout(o.ID, o.Total); err != nil {
		return "failed: " + err.Error()
	}
	return "ok: " + o.ID
}
`)},
		{"cmd/shop/main.go", []byte(`package main

import (
	"fmt"

	"example.com/shop/internal/model"
	"example.com/shop/internal/service"
	"example.com/shop/internal/store"
)

func main() {
	s := service.New(store.NewMemory())
	fmt.Println(s.Checkout("a1", 3), model.NewOrder("b", 1))
}
`)},
		{"web/tsconfig.json", []byte(`{"compilerOptions": {"strict": true, "baseUrl": "."}}` + "\n")},
		{"web/src/api.ts", []byte(`export interface CartItem {
  sku: string;
  qty: number;
}

export async function postOrder(items: CartItem[]): Promise<number> {
  const res = await fetch("/orders", { method: "POST", body: JSON.stringify(items) });
  return res.status;
}
`)},
		{"web/src/cart.ts", []byte(`import { CartItem, postOrder } from "./api";

export class Cart {
  private items: CartItem[] = [];

  add(sku: string, qty: number): void {
    this.items.push({ sku, qty });
  }

  async checkout(): Promise<number> {
    return postOrder(this.items);
  }
}
`)},
	}
}

// detRequest is one request of the fixture; uri makes the file URI of a
// path in the directory being built.
type detRequest struct {
	name  string
	make  func(uri func(string) string) *contextbuilder.Request
	check func(t *testing.T, res *contextbuilder.Result, err error)
}

// detRequests: a diff with a selection under a budget that slices the
// target, a plan with targets, symbols and constraints, an intent, a diff
// whose P2 candidates are dropped for the budget, and a diff with an active
// file and no correlation_id (derived portably).
func detRequests() []detRequest {
	checkout := contextbuilder.Range{Start: contextbuilder.Position{Line: 27, Character: 1}, End: contextbuilder.Position{Line: 30, Character: 0}}
	constraints := []contextbuilder.Constraint{
		{Scope: contextbuilder.ScopeUser, ID: "u1", Text: "Keep the public API stable."},
		{Scope: contextbuilder.ScopeSystem, ID: "s1", Text: "MUST NOT add dependencies"},
		{Scope: contextbuilder.ScopeProject, ID: "p1", Text: "Write tests\nfor every change."},
	}
	built := func(t *testing.T, res *contextbuilder.Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("build: %v", err)
		}
	}
	hasRedaction := func(res *contextbuilder.Result, typ contextbuilder.RedactionType, detail string) bool {
		return slices.ContainsFunc(res.RedactionReport.Redactions, func(r contextbuilder.Redaction) bool {
			return r.Type == typ && strings.Contains(r.Details, detail)
		})
	}
	return []detRequest{
		{
			name: "diff-selection-sliced",
			make: func(uri func(string) string) *contextbuilder.Request {
				u := uri("internal/service/service.go")
				return &contextbuilder.Request{
					Purpose: contextbuilder.PurposeDiff, CorrelationID: detCorrelation,
					ActiveFile: u, Selection: &contextbuilder.SelectionRange{URI: u, Range: checkout},
					Intent:      &contextbuilder.Intent{ID: "i1", Text: "Reject negative totals."},
					Constraints: constraints,
					Model:       &contextbuilder.ModelRequest{MaxInputTokens: intp(1500), ResponseTokenReserve: intp(200)},
				}
			},
			check: func(t *testing.T, res *contextbuilder.Result, err error) {
				built(t, res, err)
				if !hasRedaction(res, contextbuilder.RedactContentSliced, "TARGET_REGION_ONLY") {
					t.Errorf("the fixture no longer slices the target: %+v", res.RedactionReport.Redactions)
				}
			},
		},
		{
			name: "plan-targets-constraints",
			make: func(func(string) string) *contextbuilder.Request {
				return &contextbuilder.Request{
					Purpose: contextbuilder.PurposePlan,
					Intent:  &contextbuilder.Intent{ID: "i2", Text: "Count saved orders per customer."},
					PlanStep: &contextbuilder.PlanStep{ID: "p2", Text: "Extend the store.",
						TargetFiles: []string{"internal/store/memory.go", "./internal/model/model.go", "internal/service/service.go:26-36"}, TargetSymbols: []string{"Memory.Save"}},
					Constraints: constraints,
				}
			},
			check: func(t *testing.T, res *contextbuilder.Result, err error) {
				built(t, res, err)
				if !hasRedaction(res, contextbuilder.RedactPatternRedacted, "") {
					t.Errorf("the fixture no longer redacts the service's password: %+v", res.RedactionReport.Redactions)
				}
			},
		},
		{
			name: "intent",
			make: func(func(string) string) *contextbuilder.Request {
				return &contextbuilder.Request{
					Purpose:     contextbuilder.PurposeIntent,
					Intent:      &contextbuilder.Intent{ID: "i3", Text: "Let customers pay later."},
					Constraints: constraints[:1],
				}
			},
			check: built,
		},
		{
			name: "diff-p2-dropped",
			make: func(func(string) string) *contextbuilder.Request {
				return &contextbuilder.Request{
					Purpose:  contextbuilder.PurposeDiff,
					PlanStep: &contextbuilder.PlanStep{ID: "p4", Text: "Rename Total to Amount.", TargetFiles: []string{"internal/model/model.go"}},
					Model:    &contextbuilder.ModelRequest{MaxInputTokens: intp(1400), ResponseTokenReserve: intp(100), SoftLimitThresholdPct: intp(90)},
				}
			},
			check: func(t *testing.T, res *contextbuilder.Result, err error) {
				built(t, res, err)
				dropped := slices.ContainsFunc(res.Manifest.Selection.ExcludedCandidates, func(e contextbuilder.Excluded) bool {
					return e.Reason == contextbuilder.ExcludeTokenBudget
				})
				kept := slices.ContainsFunc(res.Bundle.Blocks, func(b contextbuilder.Block) bool { return b.Priority == contextbuilder.P2 })
				if !dropped || !kept {
					t.Errorf("the fixture should keep some P2 candidates and drop others for the budget (dropped %v, kept %v): %+v", dropped, kept, res.Manifest.Selection.ExcludedCandidates)
				}
			},
		},
		{
			name: "diff-active-derived-correlation",
			make: func(uri func(string) string) *contextbuilder.Request {
				return &contextbuilder.Request{
					Purpose:    contextbuilder.PurposeDiff,
					ActiveFile: uri("web/src/cart.ts"),
					LastError:  &contextbuilder.LastError{Message: "TS2345: Argument of type 'string' is not assignable", Path: "web/src/cart.ts", Range: &contextbuilder.Range{Start: contextbuilder.Position{Line: 6, Character: 4}}},
				}
			},
			check: built,
		},
	}
}

// detEnv is one environment of the determinism test.
type detEnv struct {
	name       string
	dir        string
	gomaxprocs int
	// shuffle writes the files in a random order, around extra files
	// created and deleted again before indexing.
	shuffle bool
}

// detOutputs builds every request in env and returns, per request, the
// JSON of Build, BuildManifest and Budget.
func detOutputs(t *testing.T, env detEnv, files []wsFile) map[string][3][]byte {
	t.Helper()
	runtime.GOMAXPROCS(env.gomaxprocs)
	if err := os.MkdirAll(env.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	order := slices.Clone(files)
	if env.shuffle {
		r := rand.New(rand.NewPCG(7, 11))
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var extras []string
		for i := range 12 {
			p := fmt.Sprintf("aa_extra_%02d.txt", i)
			if i%3 == 1 {
				p = fmt.Sprintf("internal/service/zz_extra_%02d.go", i)
			}
			if i%3 == 2 {
				p = fmt.Sprintf("web/src/extra_%02d.ts", i)
			}
			extras = append(extras, p)
		}
		var mixed []wsFile
		for i := range max(len(order), len(extras)) {
			if i < len(extras) {
				mixed = append(mixed, wsFile{path: extras[i], data: []byte("package extra // created and deleted before indexing\n")})
			}
			if i < len(order) {
				mixed = append(mixed, order[i])
			}
		}
		(&genWS{}).write(t, env.dir, mixed)
		for _, p := range extras {
			if err := os.Remove(filepath.Join(env.dir, filepath.FromSlash(p))); err != nil {
				t.Fatal(err)
			}
		}
	} else if _, err := os.Stat(filepath.Join(env.dir, "go.mod")); err != nil {
		(&genWS{}).write(t, env.dir, order)
	}
	x := indexDir(t, env.dir)
	snap := x.Snapshot()
	uri := func(rel string) string { return fileURI(env.dir, rel) }
	ctx := context.Background()
	out := map[string][3][]byte{}
	for _, rq := range detRequests() {
		req := rq.make(uri)
		resolveSelection(snap, req, "")
		opts := contextbuilder.Options{CreatedAt: goldenTime}
		res, err := contextbuilder.Build(ctx, snap, req, opts)
		rq.check(t, res, err)
		b := encodeOutcome(t, res, err)
		if bytes.Contains(b, []byte(detSecret)) || bytes.Contains(b, []byte("env-secret-value")) {
			t.Errorf("%s/%s: a secret is in the output", env.name, rq.name)
		}
		if bytes.Contains(b, []byte(env.dir)) {
			t.Errorf("%s/%s: the output names the workspace directory %s", env.name, rq.name, env.dir)
		}
		mres, merr := contextbuilder.BuildManifest(ctx, snap, req, opts)
		if merr != nil {
			t.Fatalf("%s/%s: BuildManifest: %v", env.name, rq.name, merr)
		}
		bres, berr := contextbuilder.Budget(ctx, snap, req, opts)
		if berr != nil {
			t.Fatalf("%s/%s: Budget: %v", env.name, rq.name, berr)
		}
		m, _ := json.MarshalIndent(mres, "", "  ")
		bb, _ := json.MarshalIndent(bres, "", "  ")
		out[rq.name] = [3][]byte{b, m, bb}
	}
	return out
}

// TestDeterminismAcrossEnvironments builds the same requests on the same
// files (a) in one directory with GOMAXPROCS 1, (b) in another directory
// with another name, the files written in a shuffled order among extra
// files deleted before indexing, with GOMAXPROCS 2, and (c) in the first
// directory again with a fresh index and GOMAXPROCS 8. Every output must be
// byte-identical: fingerprints, ids, blocks, reports (INV-CONTEXT-2).
func TestDeterminismAcrossEnvironments(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	base := tempRoot(t)
	files := detWorkspace()
	envs := []detEnv{
		{name: "a", dir: filepath.Join(base, "workspace"), gomaxprocs: 1},
		{name: "b", dir: filepath.Join(base, "other-name"), gomaxprocs: 2, shuffle: true},
		{name: "c", dir: filepath.Join(base, "workspace"), gomaxprocs: 8},
	}
	var ref map[string][3][]byte
	for _, env := range envs {
		got := detOutputs(t, env, files)
		if ref == nil {
			ref = got
			continue
		}
		for _, rq := range detRequests() {
			for i, what := range []string{"Build", "BuildManifest", "Budget"} {
				if !bytes.Equal(ref[rq.name][i], got[rq.name][i]) {
					t.Errorf("%s %s: environment %s differs from a (-a +%s):\n%s", rq.name, what, env.name, env.name, cmp.Diff(string(ref[rq.name][i]), string(got[rq.name][i])))
				}
			}
		}
	}
}

// TestDeterminismFingerprints: one changed byte of a target file changes
// project_index_fingerprint and bundle_fingerprint (and not
// config_fingerprint); another created_at changes nothing but created_at.
func TestDeterminismFingerprints(t *testing.T) {
	dir := tempRoot(t)
	files := detWorkspace()
	(&genWS{}).write(t, dir, files)
	ctx := context.Background()
	req := detRequests()[1].make(nil) // the plan: memory.go is a target
	build := func(x *index.Index, at time.Time) *contextbuilder.Result {
		t.Helper()
		res, err := contextbuilder.Build(ctx, x.Snapshot(), req, contextbuilder.Options{CreatedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	before := build(indexDir(t, dir), goldenTime)

	// created_at only.
	later := build(indexDir(t, dir), goldenTime.Add(90*time.Minute))
	if later.Bundle.CreatedAt == before.Bundle.CreatedAt {
		t.Fatalf("created_at did not change: %s", later.Bundle.CreatedAt)
	}
	later.Bundle.CreatedAt = before.Bundle.CreatedAt
	a, _ := json.Marshal(before)
	b, _ := json.Marshal(later)
	if !bytes.Equal(a, b) {
		t.Errorf("changing created_at changed more than created_at:\n%s", cmp.Diff(string(a), string(b)))
	}

	// One byte of a target file.
	p := filepath.Join(dir, "internal", "store", "memory.go")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("in-memory"))
	data[i] = 'I'
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	after := build(indexDir(t, dir), goldenTime)
	fb, fa := before.Manifest.Fingerprints, after.Manifest.Fingerprints
	if fa.ProjectIndexFingerprint == fb.ProjectIndexFingerprint {
		t.Errorf("project_index_fingerprint unchanged after editing a target file: %s", fa.ProjectIndexFingerprint)
	}
	if fa.BundleFingerprint == fb.BundleFingerprint {
		t.Errorf("bundle_fingerprint unchanged after editing a target file: %s", fa.BundleFingerprint)
	}
	if after.Bundle.BundleID == before.Bundle.BundleID {
		t.Errorf("bundle_id unchanged after editing a target file")
	}
	if fa.ConfigFingerprint != fb.ConfigFingerprint {
		t.Errorf("config_fingerprint changed with a file: %s -> %s", fb.ConfigFingerprint, fa.ConfigFingerprint)
	}
	var hb, ha string
	for _, f := range before.Manifest.Selection.IncludedFiles {
		if f.Path == "internal/store/memory.go" {
			hb = f.Hash
		}
	}
	for _, f := range after.Manifest.Selection.IncludedFiles {
		if f.Path == "internal/store/memory.go" {
			ha = f.Hash
		}
	}
	if hb == "" || ha == hb || ha != sha256Hex(data) {
		t.Errorf("included_files hash of memory.go: before %s, after %s, want sha256 of the new bytes %s", hb, ha, sha256Hex(data))
	}
}
