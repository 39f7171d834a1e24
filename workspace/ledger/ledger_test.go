package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// view runs f inside a transaction that appends nothing.
func view(t testing.TB, l *Ledger, f func(v *View)) {
	t.Helper()
	if _, err := l.Transact(context.Background(), func(v *View) ([]Draft, error) {
		f(v)
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestSeedExample1ChatHistory is seed 000's "Example 1: Chat History".
func TestSeedExample1ChatHistory(t *testing.T) {
	l, _ := openTestLedger(t)
	s := testSettings()
	intent1 := mustBuild(t, l, Thread{ThreadID: "chat", TurnID: "1"}, "What is 2+2?", "c1", s)[0]
	exec1 := mustExecute(t, l, "chat", "1", "2+2 equals 4")

	// INTENT-2 "Explain more" declares [INTENT-1, EXECUTION-1], in reversed order.
	th := Thread{ThreadID: "chat", TurnID: "2", ParentTurnID: "1", DeclaredRefs: []string{"execution:1", "intent:1"}}
	var refs []ResolvedRef
	var policy []NormativeInput
	var prompt []ExecutionRef
	evs, err := l.Transact(context.Background(), func(v *View) ([]Draft, error) {
		var err error
		if refs, err = v.Resolve(th, s); err != nil {
			return nil, err
		}
		if policy, _, err = v.Intents(refs); err != nil {
			return nil, err
		}
		if prompt, err = v.Executions(refs); err != nil {
			return nil, err
		}
		return buildDrafts(v, th, "Explain more", "c2", s)
	})
	if err != nil {
		t.Fatal(err)
	}
	wantRefs := []ResolvedRef{
		{RefID: "intent:1", EventIndex: intent1.Index, EventDigest: intent1.Digest, AdmittedFor: AdmittedGovernance},
		{RefID: "execution:1", EventIndex: exec1.Index, EventDigest: exec1.Digest, AdmittedFor: AdmittedExecutionOnly},
	}
	if diff := cmp.Diff(wantRefs, refs); diff != "" {
		t.Errorf("resolved_refs (-want +got):\n%s", diff)
	}
	wantPolicy := []NormativeInput{{RefID: "intent:1", EventIndex: 0, IntentType: "diff", UserInput: "What is 2+2?"}}
	if diff := cmp.Diff(wantPolicy, policy); diff != "" {
		t.Errorf("policy sees (-want +got):\n%s", diff)
	}
	wantPrompt := []ExecutionRef{{RefID: "execution:1", TurnID: "1", EventIndex: 2, Output: "2+2 equals 4"}}
	if diff := cmp.Diff(wantPrompt, prompt); diff != "" {
		t.Errorf("prompt gets (-want +got):\n%s", diff)
	}
	var dp DecisionPayload
	if err := json.Unmarshal(evs[1].Payload, &dp); err != nil {
		t.Fatal(err)
	}
	intentDigest, _ := PayloadDigest(intent1.Payload)
	if diff := cmp.Diff([]string{intentDigest}, dp.ContextSpec.NormativeInputDigests); diff != "" {
		t.Errorf("normative_input_digests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantRefs, dp.ContextSpec.Retrieval.ResolvedRefs); diff != "" {
		t.Errorf("stored resolved_refs (-want +got):\n%s", diff)
	}
}

// resolveFixture is a ledger for the resolution table: thread A with two
// INTENTs of turn t1 (a retry), an EXECUTION, thread B with its own turn
// t1 and u1.
func resolveFixture(t testing.TB) *Ledger {
	l, _ := openTestLedger(t)
	_, err := l.Transact(context.Background(), func(v *View) ([]Draft, error) {
		in := func(thread, turn, corr, text string) Draft {
			return Draft{Kind: KindIntent, ThreadID: thread, TurnID: turn, CorrelationID: corr, Payload: IntentPayload{IntentType: "diff", UserInput: text}}
		}
		return []Draft{
			in("A", "t1", "ca1", "first try"),   // 0
			in("A", "t1", "ca1b", "second try"), // 1
			{Kind: KindExecution, ThreadID: "A", TurnID: "t1", Payload: ExecutionPayload{Output: "out"}},   // 2
			in("B", "t1", "cb1", "other thread, same turn id"),                                             // 3
			in("B", "u1", "shared", "only in B"),                                                           // 4
			in("A", "t2", "shared", "shared correlation id in A"),                                          // 5
			{Kind: KindExecution, ThreadID: "B", TurnID: "u1", Payload: ExecutionPayload{Output: "b out"}}, // 6
			in("A", "t3", "intent:t1", "a correlation id that looks like a ref"),                           // 7
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestResolve(t *testing.T) {
	l := resolveFixture(t)
	evs, err := l.Events()
	if err != nil {
		t.Fatal(err)
	}
	ref := func(id string, i int) ResolvedRef {
		admitted := AdmittedGovernance
		if evs[i].Kind == KindExecution {
			admitted = AdmittedExecutionOnly
		}
		return ResolvedRef{RefID: id, EventIndex: i, EventDigest: evs[i].Digest, AdmittedFor: admitted}
	}
	s := testSettings()
	deny := s
	deny.EmptyRefsPolicy = ResultDeny
	unset := s
	unset.EmptyRefsPolicy = ""
	two := s
	two.MaxRefs = 2
	zero := s
	zero.MaxRefs = 0
	noScope := s
	noScope.EnforceScopeBound = false
	badSort := s
	badSort.CanonicalSort = "lexicographic"
	negative := s
	negative.MaxRefs = -1

	tests := []struct {
		name     string
		thread   string
		refs     []string
		s        Settings
		want     []ResolvedRef
		wantCode string
		wantRef  string
		wantErr  error
	}{
		{name: "latest intent of a turn", thread: "A", refs: []string{"intent:t1"}, s: s, want: []ResolvedRef{ref("intent:t1", 1)}},
		{name: "execution", thread: "A", refs: []string{"execution:t1"}, s: s, want: []ResolvedRef{ref("execution:t1", 2)}},
		{name: "correlation id of an earlier intent", thread: "A", refs: []string{"ca1"}, s: s, want: []ResolvedRef{ref("ca1", 0)}},
		{name: "client order does not matter", thread: "A", refs: []string{"execution:t1", "ca1", "intent:t2"}, s: s,
			want: []ResolvedRef{ref("ca1", 0), ref("execution:t1", 2), ref("intent:t2", 5)}},
		{name: "duplicates keep the first ref id", thread: "A", refs: []string{"ca1b", "intent:t1", "ca1b"}, s: s,
			want: []ResolvedRef{ref("ca1b", 1)}},
		{name: "same turn id in both threads resolves in the thread", thread: "B", refs: []string{"intent:t1"}, s: s,
			want: []ResolvedRef{ref("intent:t1", 3)}},
		{name: "shared correlation id resolves in the thread", thread: "A", refs: []string{"shared"}, s: s,
			want: []ResolvedRef{ref("shared", 5)}},
		{name: "prefixed ref is never a correlation id", thread: "A", refs: []string{"intent:t3"}, s: s,
			want: []ResolvedRef{ref("intent:t3", 7)}},
		{name: "empty refs allowed", thread: "A", refs: nil, s: s, want: []ResolvedRef{}},
		{name: "empty refs denied", thread: "A", refs: []string{}, s: deny, wantCode: CodeEmptyRefsDenied},
		{name: "unset empty policy denies", thread: "A", refs: nil, s: unset, wantCode: CodeEmptyRefsDenied},
		{name: "too many refs", thread: "A", refs: []string{"intent:t1", "intent:t1", "nope"}, s: two, wantCode: CodeMaxRefsExceeded},
		{name: "max refs zero", thread: "A", refs: []string{"intent:t1"}, s: zero, wantCode: CodeMaxRefsExceeded},
		{name: "count is checked before refs", thread: "A", refs: []string{"nope", "nope2", "nope3"}, s: two, wantCode: CodeMaxRefsExceeded},
		{name: "not found", thread: "A", refs: []string{"intent:t1", "intent:t9"}, s: s, wantCode: CodeRefNotFound, wantRef: "intent:t9"},
		{name: "unknown correlation id", thread: "A", refs: []string{"zzz"}, s: s, wantCode: CodeRefNotFound, wantRef: "zzz"},
		{name: "execution of a turn without one", thread: "A", refs: []string{"execution:t2"}, s: s, wantCode: CodeRefNotFound, wantRef: "execution:t2"},
		{name: "cross-thread intent", thread: "A", refs: []string{"intent:u1"}, s: s, wantCode: CodeCrossThreadRef, wantRef: "intent:u1"},
		{name: "cross-thread execution", thread: "A", refs: []string{"execution:u1"}, s: s, wantCode: CodeCrossThreadRef, wantRef: "execution:u1"},
		{name: "cross-thread correlation id", thread: "B", refs: []string{"ca1"}, s: s, wantCode: CodeCrossThreadRef, wantRef: "ca1"},
		{name: "scope stays bound without enforce_scope_bound", thread: "A", refs: []string{"cb1"}, s: noScope, wantCode: CodeCrossThreadRef, wantRef: "cb1"},
		{name: "first failing ref in client order", thread: "A", refs: []string{"intent:t1", "cb1", "missing"}, s: s, wantCode: CodeCrossThreadRef, wantRef: "cb1"},
		{name: "first failing ref in client order, reversed", thread: "A", refs: []string{"missing", "cb1"}, s: s, wantCode: CodeRefNotFound, wantRef: "missing"},
		{name: "unsupported ordering", thread: "A", refs: []string{"intent:t1"}, s: badSort, wantErr: ErrInvalidSettings},
		{name: "negative max refs", thread: "A", refs: []string{"intent:t1"}, s: negative, wantErr: ErrInvalidSettings},
		{name: "invalid ref", thread: "A", refs: []string{"intent:t1", ""}, s: s, wantErr: ErrInvalidThread},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []ResolvedRef
			var err error
			view(t, l, func(v *View) {
				got, err = v.Resolve(Thread{ThreadID: tc.thread, TurnID: "now", DeclaredRefs: tc.refs}, tc.s)
			})
			var re *RefError
			switch {
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error = %v, want %v", err, tc.wantErr)
				}
			case tc.wantCode != "":
				if !errors.As(err, &re) || re.Code != tc.wantCode || re.RefID != tc.wantRef {
					t.Fatalf("error = %#v, want %s for ref %q", err, tc.wantCode, tc.wantRef)
				}
				if re.Advice == "" || (tc.wantRef != "" && !strings.Contains(re.Message, fmt.Sprintf("%q", tc.wantRef))) {
					t.Errorf("refusal %#v lacks advice or does not name the ref", re)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("resolved (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestThreadValidate(t *testing.T) {
	long := strings.Repeat("x", MaxIDBytes+1)
	tests := []struct {
		name      string
		th        Thread
		wantField string // "" for valid
	}{
		{"valid", Thread{ThreadID: "A", TurnID: "t1", ParentTurnID: "t0", DeclaredRefs: []string{"intent:t0", "corr id ≈"}}, ""},
		{"valid without parent and refs", Thread{ThreadID: "A", TurnID: "t1"}, ""},
		{"longest ids", Thread{ThreadID: long[1:], TurnID: long[1:], DeclaredRefs: []string{strings.Repeat("r", MaxRefBytes)}}, ""},
		{"empty thread id", Thread{TurnID: "t1"}, "thread.thread_id"},
		{"empty turn id", Thread{ThreadID: "A"}, "thread.turn_id"},
		{"long thread id", Thread{ThreadID: long, TurnID: "t"}, "thread.thread_id"},
		{"control char in turn id", Thread{ThreadID: "A", TurnID: "t\x07"}, "thread.turn_id"},
		{"newline in parent", Thread{ThreadID: "A", TurnID: "t", ParentTurnID: "p\n"}, "thread.parent_turn_id"},
		{"invalid UTF-8", Thread{ThreadID: "A\xff", TurnID: "t"}, "thread.thread_id"},
		{"zero-width space", Thread{ThreadID: "A\u200b", TurnID: "t"}, "thread.thread_id"},
		{"empty ref", Thread{ThreadID: "A", TurnID: "t", DeclaredRefs: []string{"a", "b", ""}}, "thread.declared_refs[2]"},
		{"long ref", Thread{ThreadID: "A", TurnID: "t", DeclaredRefs: []string{strings.Repeat("r", MaxRefBytes+1)}}, "thread.declared_refs[0]"},
		{"tab in ref", Thread{ThreadID: "A", TurnID: "t", DeclaredRefs: []string{"a\tb"}}, "thread.declared_refs[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.th.Validate()
			if tc.wantField == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidThread) || !strings.Contains(err.Error(), fmt.Sprintf("field %q", tc.wantField)) {
				t.Fatalf("Validate error = %v, want ErrInvalidThread naming field %q", err, tc.wantField)
			}
		})
	}
}

func TestThreadJSON(t *testing.T) {
	raw, err := json.Marshal(Thread{ThreadID: "A", TurnID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"thread_id":"A","turn_id":"t","declared_refs":[]}`; string(raw) != want {
		t.Errorf("Marshal = %s, want %s", raw, want)
	}
	raw, _ = json.Marshal(DecisionPayload{})
	if strings.Contains(string(raw), "null") {
		t.Errorf("zero DecisionPayload marshals a null: %s", raw)
	}
}

// TestInvariant2NormalizationMaterialized: the rules applied and the config
// digest are recorded in the spec, in configuration order without
// duplicates, and they are inside context_digest.
func TestInvariant2NormalizationMaterialized(t *testing.T) {
	s := testSettings()
	s.NormalizationRules = []string{RuleSortCanonical, RuleFilterIntentOnly, RuleSortCanonical, RuleScopeBound}
	th := Thread{ThreadID: "A", TurnID: "t1"}
	spec := NewContextSpec(th, "diff", "x", nil, nil, s)
	want := Normalization{AppliedRules: []string{RuleSortCanonical, RuleFilterIntentOnly, RuleScopeBound}, ConfigDigest: testConfigDigest}
	if diff := cmp.Diff(want, spec.Retrieval.Normalization); diff != "" {
		t.Errorf("normalization (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(AssemblyRules{SchemaVersion: "1", Ordering: OrderingEventIndexAsc}, spec.AssemblyRules); diff != "" {
		t.Errorf("assembly_rules (-want +got):\n%s", diff)
	}
	base, _ := ContextDigest(spec, AssembledContext{})
	other := s
	other.NormalizationRules = []string{RuleFilterIntentOnly, RuleSortCanonical, RuleScopeBound}
	reordered, _ := ContextDigest(NewContextSpec(th, "diff", "x", nil, nil, other), AssembledContext{})
	if base == reordered {
		t.Errorf("context_digest does not cover the applied rules")
	}
	empty := s
	empty.NormalizationRules = nil
	specEmpty := NewContextSpec(th, "diff", "x", nil, nil, empty)
	if specEmpty.Retrieval.Normalization.AppliedRules == nil {
		t.Errorf("nil rules recorded as nil, want []")
	}

	// Recorded in the ledger, and replay recomputes with it.
	l, dir := openTestLedger(t)
	evs := mustBuild(t, l, th, "x", "c1", s)
	var dp DecisionPayload
	json.Unmarshal(evs[1].Payload, &dp)
	if diff := cmp.Diff(want, dp.ContextSpec.Retrieval.Normalization); diff != "" {
		t.Errorf("stored normalization (-want +got):\n%s", diff)
	}
	if got := mismatches(verifyBoth(t, dir, fullOptions("", ""))); len(got) != 0 {
		t.Errorf("mismatches: %+v", got)
	}
}

// TestInvariant3ConfigPinnedViaDigest: every DECISION pins the config
// digest in its boundary and its spec; replay flags a different current
// digest and says when it could not compare.
func TestInvariant3ConfigPinnedViaDigest(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	evs, err := l.Events()
	if err != nil {
		t.Fatal(err)
	}
	decisions := 0
	for _, ev := range evs {
		if ev.Kind != KindDecision {
			continue
		}
		decisions++
		var dp DecisionPayload
		json.Unmarshal(ev.Payload, &dp)
		if dp.Boundary.ContextConfigDigest != testConfigDigest || dp.ContextSpec.Retrieval.Normalization.ConfigDigest != testConfigDigest {
			t.Errorf("decision %d pins %q / %q, want %s", ev.Index, dp.Boundary.ContextConfigDigest, dp.ContextSpec.Retrieval.Normalization.ConfigDigest, testConfigDigest)
		}
	}
	if decisions != 4 {
		t.Fatalf("%d decisions, want 4", decisions)
	}

	opts := fullOptions("", "")
	opts.ConfigDigest = "sha256:" + strings.Repeat("d", 64)
	got := mismatches(verifyBoth(t, dir, opts))
	if len(got) != decisions {
		t.Fatalf("%d mismatches, want one per decision: %+v", len(got), got)
	}
	for _, c := range got {
		if c.Kind != "DECISION" || c.Field != "boundary.context_config_digest" {
			t.Errorf("mismatch %+v, want a DECISION's boundary.context_config_digest", c)
		}
	}

	opts.ConfigDigest = ""
	checks := verifyBoth(t, dir, opts)
	if !slices.ContainsFunc(checks, func(c Check) bool {
		return c.Status == StatusSkipped && c.Field == "boundary.context_config_digest"
	}) {
		t.Errorf("no skipped config check without a current digest: %+v", checks)
	}
}

// TestInvariant4CanonicalOrdering: every permutation of the declared refs
// resolves to the same list, sorted by event_index.
func TestInvariant4CanonicalOrdering(t *testing.T) {
	l := resolveFixture(t)
	refs := []string{"intent:t2", "execution:t1", "ca1", "intent:t3"}
	var want []ResolvedRef
	permute(refs, 0, func(p []string) {
		var got []ResolvedRef
		view(t, l, func(v *View) {
			var err error
			if got, err = v.Resolve(Thread{ThreadID: "A", TurnID: "now", DeclaredRefs: p}, testSettings()); err != nil {
				t.Fatal(err)
			}
		})
		if !slices.IsSortedFunc(got, func(a, b ResolvedRef) int { return a.EventIndex - b.EventIndex }) {
			t.Errorf("order %v: not sorted by event_index: %+v", p, got)
		}
		if want == nil {
			want = got
		} else if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("order %v (-first +this):\n%s", p, diff)
		}
	})
	if len(want) != 4 {
		t.Fatalf("resolved %d refs, want 4", len(want))
	}
}

func permute(s []string, k int, f func([]string)) {
	if k == len(s) {
		f(slices.Clone(s))
		return
	}
	for i := k; i < len(s); i++ {
		s[k], s[i] = s[i], s[k]
		permute(s, k+1, f)
		s[k], s[i] = s[i], s[k]
	}
}

// TestInvariant5ScopeBoundRefs: refs to another thread's events are
// refused, whatever kind of ref names them, and the refusal is recorded as
// a DENY that replay confirms.
func TestInvariant5ScopeBoundRefs(t *testing.T) {
	l, dir := openTestLedger(t)
	s := testSettings()
	mustBuild(t, l, Thread{ThreadID: "A", TurnID: "t1"}, "in A", "ca1", s)
	mustExecute(t, l, "A", "t1", "A's output")
	for _, ref := range []string{"intent:t1", "execution:t1", "ca1"} {
		evs := mustBuild(t, l, Thread{ThreadID: "B", TurnID: "u-" + ref, DeclaredRefs: []string{ref}}, "in B", "cb-"+ref, s)
		var dp DecisionPayload
		json.Unmarshal(evs[1].Payload, &dp)
		if dp.Result != ResultDeny || dp.Reason != CodeCrossThreadRef || len(dp.ContextSpec.Retrieval.ResolvedRefs) != 0 || dp.Bundle != nil {
			t.Errorf("ref %s from thread B: result %s %s, %d refs, bundle %v; want DENY CROSS_THREAD_REF with nothing resolved",
				ref, dp.Result, dp.Reason, len(dp.ContextSpec.Retrieval.ResolvedRefs), dp.Bundle)
		}
	}
	if got := mismatches(verifyBoth(t, dir, fullOptions("", ""))); len(got) != 0 {
		t.Errorf("mismatches: %+v", got)
	}
	// A DECISION that claims a cross-thread ref resolved is refused at
	// append time.
	_, err := l.Transact(context.Background(), func(v *View) ([]Draft, error) {
		th := Thread{ThreadID: "B", TurnID: "u9", DeclaredRefs: []string{"intent:t1"}}
		a := v.Events()[0]
		refs := []ResolvedRef{{RefID: "intent:t1", EventIndex: 0, EventDigest: a.Digest, AdmittedFor: AdmittedGovernance}}
		inputs, digests, err := v.Intents(refs)
		if err != nil {
			return nil, err
		}
		dp := DecisionPayload{IntentIndex: v.Len(), Result: ResultAllow, Boundary: Boundary{testConfigDigest},
			ContextSpec: NewContextSpec(th, "diff", "x", refs, digests, s), AssembledContext: AssembledContext{NormativeInputs: inputs}}
		return []Draft{
			{Kind: KindIntent, ThreadID: "B", TurnID: "u9", Payload: IntentPayload{IntentType: "diff", UserInput: "x"}},
			{Kind: KindDecision, ThreadID: "B", TurnID: "u9", Payload: dp},
		}, nil
	})
	if !errors.Is(err, ErrInvalidDraft) || !strings.Contains(err.Error(), CodeCrossThreadRef) {
		t.Errorf("cross-thread DECISION draft: %v, want ErrInvalidDraft with CROSS_THREAD_REF", err)
	}
}

// TestInvariant6ReplayRecomputeEquality: for every stored DECISION,
// recompute(stored inputs) == stored digest, both replay modes agree, and a
// stored digest that does not recompute is reported.
func TestInvariant6ReplayRecomputeEquality(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	evs, err := l.Events()
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Kind != KindDecision {
			continue
		}
		var dp DecisionPayload
		if err := json.Unmarshal(ev.Payload, &dp); err != nil {
			t.Fatal(err)
		}
		got, err := ContextDigest(dp.ContextSpec, dp.AssembledContext)
		if err != nil || got != dp.ContextDigest {
			t.Errorf("decision %d: recomputed %s, %v; stored %s", ev.Index, got, err, dp.ContextDigest)
		}
	}
	if got := mismatches(verifyBoth(t, dir, fullOptions("", ""))); len(got) != 0 {
		t.Errorf("mismatches: %+v", got)
	}
	reseal(t, filepath.Join(dir, JournalFile), func(i int, m map[string]json.RawMessage) {
		if i == 4 {
			editPayload(t, m, func(p *DecisionPayload) { p.ContextSpec.Intent.UserInput = "rewritten" })
		}
	})
	got := mismatches(verifyBoth(t, dir, fullOptions("", "")))
	if len(got) != 1 || got[0].EventIndex != 4 || got[0].Field != "context_spec.intent" {
		t.Errorf("mismatches after rewriting a spec: %+v", got)
	}
}

// TestDigestScopeExcludesExecutionOutput: policy input and the normative
// half of the spec never see an EXECUTION's output; the output reaches the
// context_digest only through the resolved ref's event_digest (seed 000:
// resolved_refs, including execution_only, are in scope as the audit trail;
// output content is not). An INTENT's text, in contrast, is normative.
func TestDigestScopeExcludesExecutionOutput(t *testing.T) {
	type result struct {
		refs    []ResolvedRef
		inputs  []NormativeInput
		digests []string
	}
	build := func(tx fixtureTexts) result {
		l, _ := openTestLedger(t)
		writeFixture(t, l, tx)
		var r result
		view(t, l, func(v *View) {
			th := Thread{ThreadID: "A", TurnID: "t3", DeclaredRefs: []string{"intent:t1", "execution:t1"}}
			var err error
			if r.refs, err = v.Resolve(th, testSettings()); err != nil {
				t.Fatal(err)
			}
			if r.inputs, r.digests, err = v.Intents(r.refs); err != nil {
				t.Fatal(err)
			}
		})
		return r
	}
	digest := func(r result, refs []ResolvedRef) string {
		th := Thread{ThreadID: "A", TurnID: "t3", DeclaredRefs: []string{"intent:t1", "execution:t1"}}
		d, err := ContextDigest(NewContextSpec(th, "diff", "next", refs, r.digests, testSettings()), AssembledContext{NormativeInputs: r.inputs})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := build(defaultTexts())
	tx := defaultTexts()
	tx.output = "2+2 equals 5, says a different model"
	otherOutput := build(tx)
	tx = defaultTexts()
	tx.firstInput = "What is 3+3?"
	otherIntent := build(tx)

	// The output changes nothing normative.
	if diff := cmp.Diff(base.inputs, otherOutput.inputs); diff != "" {
		t.Errorf("normative inputs depend on the EXECUTION output (-base +other):\n%s", diff)
	}
	if diff := cmp.Diff(base.digests, otherOutput.digests); diff != "" {
		t.Errorf("normative_input_digests depend on the EXECUTION output (-base +other):\n%s", diff)
	}
	// Its only trace is the EXECUTION ref's event digest.
	if diff := cmp.Diff(base.refs, otherOutput.refs, cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".EventDigest"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("resolved refs differ beyond event digests (-base +other):\n%s", diff)
	}
	if base.refs[0].EventDigest != otherOutput.refs[0].EventDigest {
		t.Errorf("the INTENT ref's digest depends on a later EXECUTION's output")
	}
	if digest(base, base.refs) != digest(otherOutput, base.refs) {
		t.Errorf("context_digest depends on the EXECUTION output beyond its event digest")
	}
	// An INTENT's text is normative: the digest changes even with the refs held equal.
	if digest(base, base.refs) == digest(otherIntent, base.refs) {
		t.Errorf("context_digest does not depend on an INTENT's user_input")
	}
	if slices.Equal(base.digests, otherIntent.digests) {
		t.Errorf("normative_input_digests do not depend on an INTENT's user_input")
	}
	// And the spec's own intent text is in scope.
	th := Thread{ThreadID: "A", TurnID: "t3"}
	d1, _ := ContextDigest(NewContextSpec(th, "diff", "a", nil, nil, testSettings()), AssembledContext{})
	d2, _ := ContextDigest(NewContextSpec(th, "diff", "b", nil, nil, testSettings()), AssembledContext{})
	if d1 == d2 {
		t.Errorf("context_digest does not depend on the current user_input")
	}
}

func TestContextDigestNilEqualsEmpty(t *testing.T) {
	a, _ := ContextDigest(ContextSpec{}, AssembledContext{})
	b, _ := ContextDigest(ContextSpec{
		Retrieval:             Retrieval{DeclaredRefs: []string{}, ResolvedRefs: []ResolvedRef{}, Normalization: Normalization{AppliedRules: []string{}}},
		NormativeInputDigests: []string{},
	}, AssembledContext{NormativeInputs: []NormativeInput{}})
	if a != b {
		t.Errorf("nil and empty slices give different digests")
	}
}

func TestPayloadDigest(t *testing.T) {
	a, err := PayloadDigest(json.RawMessage(`{"b": 1, "a": "x"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PayloadDigest(json.RawMessage(`{"a":"x","b":1.0}`))
	if a != b || a != sha256Digest([]byte(`{"a":"x","b":1}`)) {
		t.Errorf("PayloadDigest is not the digest of the JCS form: %s %s", a, b)
	}
	for _, bad := range []string{"", "{", `{"a":1,"a":2}`} {
		if _, err := PayloadDigest(json.RawMessage(bad)); err == nil {
			t.Errorf("PayloadDigest(%q) succeeded", bad)
		}
	}
}

func TestTransactErrorPassthrough(t *testing.T) {
	l, dir := openTestLedger(t)
	mustBuild(t, l, Thread{ThreadID: "A", TurnID: "t1"}, "x", "c", testSettings())
	sentinel := errors.New("policy refused")
	evs, err := l.Transact(context.Background(), func(v *View) ([]Draft, error) {
		return []Draft{{Kind: KindExecution, ThreadID: "A", TurnID: "t1", Payload: ExecutionPayload{Output: "y"}}}, sentinel
	})
	if err != sentinel || evs != nil {
		t.Errorf("Transact = %v, %v; want nil, the callback's error itself", evs, err)
	}
	all, _ := l.Events()
	if len(all) != 2 {
		t.Errorf("%d events after a failed transaction, want 2", len(all))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Transact(ctx, func(v *View) ([]Draft, error) { return nil, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("Transact with a cancelled context = %v", err)
	}
	_ = dir
}

// TestTransactRejectsInvalidDrafts: a draft that could not verify is
// refused, and nothing of the transaction is appended.
func TestTransactRejectsInvalidDrafts(t *testing.T) {
	s := testSettings()
	intent := func(thread, turn string) Draft {
		return Draft{Kind: KindIntent, ThreadID: thread, TurnID: turn, Payload: IntentPayload{IntentType: "diff", UserInput: "x"}}
	}
	decision := func(v *View, th Thread, mutate func(*DecisionPayload)) Draft {
		refs, _ := v.Resolve(th, s)
		inputs, digests, _ := v.Intents(refs)
		dp := DecisionPayload{IntentIndex: v.Len(), Result: ResultAllow, Boundary: Boundary{testConfigDigest},
			ContextSpec: NewContextSpec(th, "diff", "x", refs, digests, s), AssembledContext: AssembledContext{NormativeInputs: inputs}}
		if mutate != nil {
			mutate(&dp)
		}
		return Draft{Kind: KindDecision, ThreadID: th.ThreadID, TurnID: th.TurnID, Payload: &dp}
	}
	th := Thread{ThreadID: "A", TurnID: "t2", DeclaredRefs: []string{"intent:t1"}}
	tests := []struct {
		name   string
		drafts func(v *View) []Draft
		want   string
	}{
		{"unknown kind", func(v *View) []Draft { return []Draft{{Kind: "NOTE", ThreadID: "A", TurnID: "t"}} }, `unknown kind "NOTE"`},
		{"wrong payload type", func(v *View) []Draft {
			return []Draft{{Kind: KindIntent, ThreadID: "A", TurnID: "t", Payload: ExecutionPayload{}}}
		}, "want ledger.IntentPayload"},
		{"nil payload pointer", func(v *View) []Draft {
			return []Draft{{Kind: KindIntent, ThreadID: "A", TurnID: "t", Payload: (*IntentPayload)(nil)}}
		}, "want ledger.IntentPayload"},
		{"empty thread id", func(v *View) []Draft { return []Draft{intent("", "t")} }, "thread_id is empty"},
		{"control char in correlation id", func(v *View) []Draft {
			d := intent("A", "t")
			d.CorrelationID = "c\x00"
			return []Draft{d}
		}, "correlation_id"},
		{"wrong output digest", func(v *View) []Draft {
			return []Draft{{Kind: KindExecution, ThreadID: "A", TurnID: "t1", Payload: ExecutionPayload{Output: "o", OutputDigest: sha256Digest([]byte("p"))}}}
		}, "output_digest"},
		{"invalid UTF-8 output", func(v *View) []Draft {
			return []Draft{{Kind: KindExecution, ThreadID: "A", TurnID: "t1", Payload: ExecutionPayload{Output: "\xff"}}}
		}, "UTF-8"},
		{"decision without its intent", func(v *View) []Draft { return []Draft{decision(v, th, nil)} }, "intent_event_index"},
		{"decision for an intent of another turn", func(v *View) []Draft {
			return []Draft{intent("A", "t3"), decision(v, th, nil)}
		}, "intent_event_index"},
		{"wrong context digest", func(v *View) []Draft {
			return []Draft{intent("A", "t2"), decision(v, th, func(dp *DecisionPayload) { dp.ContextDigest = sha256Digest(nil) })}
		}, "context_digest"},
		{"refs that do not resolve so", func(v *View) []Draft {
			return []Draft{intent("A", "t2"), decision(v, th, func(dp *DecisionPayload) {
				dp.ContextSpec.Retrieval.ResolvedRefs = nil
				dp.ContextSpec.NormativeInputDigests = nil
				dp.AssembledContext.NormativeInputs = nil
			})}
		}, "resolved_refs"},
		{"deny with a bundle", func(v *View) []Draft {
			return []Draft{intent("A", "t2"), decision(v, th, func(dp *DecisionPayload) {
				dp.Result, dp.Reason, dp.Bundle = ResultDeny, "context_selection_exceeds_max_items", testBundle("t2")
			})}
		}, "bundle"},
		{"unknown result", func(v *View) []Draft {
			return []Draft{intent("A", "t2"), decision(v, th, func(dp *DecisionPayload) { dp.Result = "MAYBE" })}
		}, "result"},
		{"boundary and spec disagree", func(v *View) []Draft {
			return []Draft{intent("A", "t2"), decision(v, th, func(dp *DecisionPayload) { dp.Boundary.ContextConfigDigest = "sha256:x" })}
		}, "config_digest"},
		{"spec identity of another turn", func(v *View) []Draft {
			return []Draft{intent("A", "t2"), decision(v, th, func(dp *DecisionPayload) {
				dp.ContextSpec.Identity.TurnID = "t9"
				dp.ContextDigest = ""
			})}
		}, "context_spec.identity"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, _ := openTestLedger(t)
			mustBuild(t, l, Thread{ThreadID: "A", TurnID: "t1"}, "x", "c", s)
			before, _ := l.Events()
			_, err := l.Transact(context.Background(), func(v *View) ([]Draft, error) { return tc.drafts(v), nil })
			if !errors.Is(err, ErrInvalidDraft) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Transact error = %v, want ErrInvalidDraft mentioning %q", err, tc.want)
			}
			after, _ := l.Events()
			if len(after) != len(before) {
				t.Errorf("%d events appended by a refused transaction", len(after)-len(before))
			}
		})
	}
}

// TestTransactFillsDigests: the ledger computes output_digest and an empty
// context_digest itself.
func TestTransactFillsDigests(t *testing.T) {
	l, _ := openTestLedger(t)
	evs := mustBuild(t, l, Thread{ThreadID: "A", TurnID: "t1"}, "x", "c", testSettings())
	var dp DecisionPayload
	json.Unmarshal(evs[1].Payload, &dp)
	if want, _ := ContextDigest(dp.ContextSpec, dp.AssembledContext); dp.ContextDigest != want || want == "" {
		t.Errorf("context_digest = %q, want %q", dp.ContextDigest, want)
	}
	ev := mustExecute(t, l, "A", "t1", "héllo")
	var ep ExecutionPayload
	json.Unmarshal(ev.Payload, &ep)
	if want := sha256Digest([]byte("héllo")); ep.OutputDigest != want {
		t.Errorf("output_digest = %s, want %s", ep.OutputDigest, want)
	}
	if string(ev.Obs) != `{"recorded_at":"2025-01-02T03:04:05.000000006Z"}` {
		t.Errorf("_obs = %s", ev.Obs)
	}
	all, _ := l.Events()
	if diff := cmp.Diff(ev, all[len(all)-1]); diff != "" {
		t.Errorf("returned event differs from the stored one (-returned +stored):\n%s", diff)
	}
}

func TestViewHelpers(t *testing.T) {
	l := resolveFixture(t)
	view(t, l, func(v *View) {
		if v.Len() != 8 || len(v.Events()) != 8 {
			t.Errorf("Len %d, %d events; want 8", v.Len(), len(v.Events()))
		}
		if !v.HasIntent("A", "t1") || v.HasIntent("A", "u1") || v.HasIntent("B", "t2") {
			t.Errorf("HasIntent answers wrongly")
		}
		evs := v.Events()
		refs := []ResolvedRef{
			{RefID: "execution:t1", EventIndex: 2, EventDigest: evs[2].Digest, AdmittedFor: AdmittedExecutionOnly},
			{RefID: "ca1", EventIndex: 0, EventDigest: evs[0].Digest, AdmittedFor: AdmittedGovernance},
		}
		inputs, digests, err := v.Intents(refs)
		if err != nil {
			t.Fatal(err)
		}
		if len(inputs) != 1 || inputs[0].UserInput != "first try" || len(digests) != 1 {
			t.Errorf("Intents = %+v, %v", inputs, digests)
		}
		execs, err := v.Executions(refs)
		if err != nil || len(execs) != 1 || execs[0].Output != "out" {
			t.Errorf("Executions = %+v, %v", execs, err)
		}
		empty, emptyDigests, err := v.Intents(nil)
		if err != nil || empty == nil || emptyDigests == nil {
			t.Errorf("Intents(nil) = %#v, %#v, %v; want empty, non-nil", empty, emptyDigests, err)
		}
		for _, stale := range []ResolvedRef{
			{RefID: "x", EventIndex: 0, EventDigest: evs[1].Digest, AdmittedFor: AdmittedGovernance},
			{RefID: "x", EventIndex: 2, EventDigest: evs[2].Digest, AdmittedFor: AdmittedGovernance},
			{RefID: "x", EventIndex: 99, EventDigest: evs[2].Digest, AdmittedFor: AdmittedGovernance},
		} {
			if _, _, err := v.Intents([]ResolvedRef{stale}); !errors.Is(err, ErrStaleRef) {
				t.Errorf("Intents(%+v) error = %v, want ErrStaleRef", stale, err)
			}
		}
		if _, err := v.Executions([]ResolvedRef{{RefID: "x", EventIndex: 0, EventDigest: evs[0].Digest, AdmittedFor: AdmittedExecutionOnly}}); !errors.Is(err, ErrStaleRef) {
			t.Errorf("Executions of an INTENT: %v, want ErrStaleRef", err)
		}
	})
}

// TestConcurrentTransacts: 8 goroutines × 20 transactions on one Ledger,
// plus two more Ledger instances on the same directory (separate flock
// descriptors, as two processes would have), all on one thread. Every
// transaction sees the events before it and its events get the next
// indexes.
func TestConcurrentTransacts(t *testing.T) {
	l, dir := openTestLedger(t)
	l2, err := Open(dir, fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	l3, err := Open(dir, fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	type job struct {
		l    *Ledger
		name string
	}
	var jobs []job
	for g := range 8 {
		jobs = append(jobs, job{l, fmt.Sprintf("g%d", g)})
	}
	jobs = append(jobs, job{l2, "p2"}, job{l3, "p3"})
	var wg sync.WaitGroup
	errs := make(chan error, len(jobs)*20)
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				turn := fmt.Sprintf("%s-%d", j.name, i)
				var seen int
				evs, err := j.l.Transact(context.Background(), func(v *View) ([]Draft, error) {
					seen = v.Len()
					th := Thread{ThreadID: "shared", TurnID: turn}
					if seen > 0 {
						th.DeclaredRefs = []string{"intent:" + v.Events()[seen-2].TurnID}
					}
					return buildDrafts(v, th, "turn "+turn, "c-"+turn, testSettings())
				})
				if err != nil {
					errs <- err
					return
				}
				if len(evs) != 2 || evs[0].Index != seen || evs[1].Index != seen+1 {
					errs <- fmt.Errorf("%s: appended at %d, %d after seeing %d events", turn, evs[0].Index, evs[1].Index, seen)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	evs, err := l.Events()
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * 20 * len(jobs); len(evs) != want {
		t.Fatalf("%d events, want %d", len(evs), want)
	}
	for i, ev := range evs {
		if ev.Index != i {
			t.Fatalf("event %d has index %d", i, ev.Index)
		}
		if i > 0 && ev.PrevDigest != evs[i-1].Digest {
			t.Fatalf("event %d does not chain to %d", i, i-1)
		}
	}
	checks := verifyBoth(t, dir, fullOptions("", ""))
	if got := mismatches(checks); len(got) != 0 {
		t.Errorf("mismatches: %+v", got)
	}
}
