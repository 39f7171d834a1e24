// Package prompt turns a context bundle into a provider-ready prompt (seed
// 001: "prompt artifacts are assembled from templates + context"): the two
// messages [system, user] that seed 000's execution sends to the model.
//
// A [Template] (schema ctxd.prompt_template.v1) holds the system and user
// texts of one purpose with placeholders: {{purpose}}, {{intent}},
// {{plan_step}}, {{correlation_id}} and {{context}}, the rendered bundle,
// which must occur exactly once. [Defaults] are the built-in templates;
// [LoadDir] reads the workspace's .ctxd/templates/*.json over them into an
// immutable [Set], whose [Set.Resolve] picks the template of a request.
// [Render] expands a template with an [Input] (bundle, intent, plan step,
// token estimator) into a [Prompt] (schema ctxd.prompt.v1) with its
// [Message]s and [TokenCounts], ready to be stored as a hash-addressed
// artifact. Failures are [*Error]s carrying seed 001's fail-closed reasons
// ([ReasonBuildFailed], [ReasonWriteFailed]).
//
// Rendering is a pure function: identical input gives byte-identical
// output. Expansion is single-pass, so text substituted into a template
// (file contents, intent text) is never scanned for placeholders: a block
// containing "{{intent}}" reaches the model as written.
package prompt
