// Package workspace holds a workspace folder's ctxd state and runs the
// governed build around the pure context builder: the configuration and
// policy of .ctxd/config.json (seed 001), the prompt templates of
// .ctxd/templates, the hash-addressed artifacts, the audit trail and the
// thread ledger (seed 000), and their replay.
//
// The main types are [Workspace], one folder's state, opened once per
// process with [Open] (or through a [Registry]) and immutable afterwards,
// and [Report], the outcome of [Verify]. [Workspace.Build],
// [Workspace.Manifest] and [Workspace.Budget] apply the configuration and
// policy and call the builder; Build also records what it selected (the
// bundle as an artifact, an audit event and, for a thread, INTENT and
// DECISION events). [Workspace.RenderPrompt] turns a bundle into a
// provider-ready prompt, [Workspace.RecordExecution] records a model's
// output as an EXECUTION event, and [Workspace.CheckChange] checks a
// model's answer as a change (package change does the checking) against
// the files it touches or the bundle it answered, writes it on request
// and records the verdict.
//
// Failures of the configuration, policy, thread references and prompt
// assembly are returned as *contextbuilder.Refusal with the seeds' reason
// strings as codes, so that every surface (LSP, CLI) fails closed the same
// way; malformed requests wrap contextbuilder.ErrInvalidRequest.
package workspace
