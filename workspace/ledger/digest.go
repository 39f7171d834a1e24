package ledger

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/gowebpki/jcs"
)

// PayloadDigest returns "sha256:"+hex(sha256(JCS(payload))): the digest of
// an event payload as it appears in normative_input_digests. An empty or
// invalid payload is an error.
func PayloadDigest(payload json.RawMessage) (string, error) {
	if len(payload) == 0 {
		return "", fmt.Errorf("digesting payload: empty payload")
	}
	canon, err := jcs.Transform(payload)
	if err != nil {
		return "", fmt.Errorf("digesting payload: not canonicalizable JSON")
	}
	return sha256Digest(canon), nil
}

// ContextDigest returns context_digest:
// "sha256:"+hex(sha256(JCS({"context_spec":spec,"assembled_context":ac}))).
// Its scope is seed 000's "Digest Scope": the spec (identity, intent,
// declared and resolved refs, normalization, assembly rules, normative input
// digests) and the normative assembled context; nothing observational (no
// timestamp, _obs, storage id or EXECUTION output) can reach it because
// neither type holds one. nil and empty slices give the same digest.
func ContextDigest(spec ContextSpec, ac AssembledContext) (string, error) {
	raw, err := json.Marshal(struct {
		ContextSpec      ContextSpec      `json:"context_spec"`
		AssembledContext AssembledContext `json:"assembled_context"`
	}{spec, ac})
	if err != nil {
		return "", fmt.Errorf("computing context digest: %w", err)
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return "", fmt.Errorf("computing context digest: %w", err)
	}
	return sha256Digest(canon), nil
}

// NewContextSpec builds the context_spec of a DECISION: identity from the
// thread, the current intent, the declared refs in the client's order, the
// resolved refs as given (from [View.Resolve]: event_index order), the
// configured normalization rules in configuration order without duplicates,
// the config digest, the ordering (event_index_asc when s.CanonicalSort is
// "") and the normative input digests (from [View.Intents]). Inputs are
// copied; nil slices become empty ones.
func NewContextSpec(t Thread, intentType, userInput string, resolved []ResolvedRef, normative []string, s Settings) ContextSpec {
	rules := []string{}
	for _, r := range s.NormalizationRules {
		if !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	ordering := s.CanonicalSort
	if ordering == "" {
		ordering = OrderingEventIndexAsc
	}
	return ContextSpec{
		Identity: Identity{ThreadID: t.ThreadID, TurnID: t.TurnID, ParentTurnID: t.ParentTurnID},
		Intent:   SpecIntent{IntentType: intentType, UserInput: userInput},
		Retrieval: Retrieval{
			DeclaredRefs:  append([]string{}, t.DeclaredRefs...),
			ResolvedRefs:  append([]ResolvedRef{}, resolved...),
			Normalization: Normalization{AppliedRules: rules, ConfigDigest: s.ConfigDigest},
		},
		AssemblyRules:         AssemblyRules{SchemaVersion: SpecSchemaVersion, Ordering: ordering},
		NormativeInputDigests: append([]string{}, normative...),
	}
}
