// Package ledger stores a workspace's seed-000 threads and its audit trail
// in hash-chained journals, and replays them to prove that every recorded
// decision recomputes. It is pure storage and seed-000 logic: it imports no
// other ctxd package.
//
// # Journals
//
// Both <root>/.ctxd/ledger/events.jsonl (the [Ledger]) and
// <root>/.ctxd/audit.jsonl (the [Audit] trail) are JSONL journals. Each line
// is exactly the RFC 8785 (JCS) serialization of one JSON object followed by
// "\n", and carries event_index (0, 1, 2, … without gaps), prev_digest (the
// previous line's event_digest; "sha256:" and 64 zeros for line 0) and
// event_digest, "sha256:"+hex(sha256(JCS(the object without
// event_digest))): the digest covers every other byte of the line,
// observational _obs included.
//
// Appends are one write(2) on a descriptor opened O_APPEND, then fsync.
// The read-tail → compute → append section holds a mutex and an flock on
// <journal>.lock, so goroutines and processes (the server and the CLI)
// append to one chain. A process killed mid-write can leave a torn tail: the
// bytes after the last newline, or a last line that is not JSON. Opening a
// journal and every append move it to <journal>.torn-<unix nanos>[-n] and cut
// the journal back to its last complete line; nothing half-written is
// chained to. Any other line that fails to verify is corruption: it is
// reported by verification and never repaired, and appends fail with
// [ErrCorrupt] until a person has looked.
//
// # Ledger
//
// A [Ledger] holds [Event]s of three kinds: INTENT ([IntentPayload]),
// DECISION ([DecisionPayload]) and EXECUTION ([ExecutionPayload]).
// [Ledger.Transact] gives a callback a [View] of every event under the
// journal lock and appends the [Draft]s it returns. The View resolves a
// request's [Thread] (its declared refs) into [ResolvedRef]s by seed 000's
// rules — intent:<turn_id>, execution:<turn_id> or a correlation_id; refs
// bound to the thread, sorted by event_index, counted against [Settings] —
// failing with a [RefError] carrying a seed code (REF_NOT_FOUND,
// CROSS_THREAD_REF, MAX_REFS_EXCEEDED, EMPTY_REFS_DENIED). [View.Intents]
// gives the normative inputs policy may see (INTENTs only);
// [View.Executions] gives EXECUTION outputs, for prompts only.
// [NewContextSpec] and [ContextDigest] build the [ContextSpec] and the
// context_digest a DECISION pins; no timestamp, _obs, storage id or
// EXECUTION output is in its scope.
//
// # Verification
//
// [VerifyLedger] and [VerifyAudit] replay a journal and return one [Check]
// per line, plus file-level checks. [ModeStream] replays the JSONL file;
// [ModeLedger] builds the projection in memory and replays from SQL queries
// against it, giving the same Checks. Both compare an existing projection
// file with the fresh projection, byte for byte and then row by row, and
// never overwrite it.
//
// # SQLite projection
//
// [Project] writes a SQLite 3 database (by default <root>/.ctxd/ledger.sqlite)
// that the sqlite3 shell can query. It is rebuilt whole each time (built in
// memory, then a temporary file and a rename) and is only a view: the
// journal is the truth. The same journal always gives the same bytes, which
// is what verification relies on; [Ledger.KeepProjection] keeps an existing
// file current after every append.
//
//	meta(key TEXT PRIMARY KEY, value TEXT)
//	    schema_version   "1" (ProjectionSchemaVersion)
//	    source_file      "events.jsonl"
//	    source_sha256    "sha256:…" of the journal bytes projected
//	    source_bytes     their length
//	    event_count      number of complete lines (rows of events)
//	    torn_tail_bytes  length of an incomplete last line, "0" when none
//
//	events(event_index INTEGER PRIMARY KEY, kind, thread_id, turn_id,
//	       parent_turn_id, correlation_id, prev_digest, event_digest,
//	       payload TEXT, line TEXT NOT NULL)
//	    One row per complete line. event_index is the line's position,
//	    0-based, which equals the event's own event_index on every line that
//	    verifies. line is the line's exact bytes (without "\n"); payload is
//	    the payload's JSON text. A line that is not a readable event has
//	    NULL in every column but event_index and line. parent_turn_id and
//	    correlation_id are '' when absent.
//
//	decisions(event_index INTEGER PRIMARY KEY, intent_event_index, result,
//	          reason, context_digest, config_digest, bundle_id,
//	          bundle_fingerprint, artifact_sha256)
//	    One row per DECISION whose payload decodes. reason is '' for ALLOW;
//	    config_digest is boundary.context_config_digest; the bundle columns
//	    are NULL when there is no bundle (DENY).
//
//	resolved_refs(decision_index, position, ref_id, event_index,
//	              event_digest, admitted_for, PRIMARY KEY (decision_index, position))
//	    The context_spec.retrieval.resolved_refs of each decision row, in
//	    stored order (position 0, 1, …).
//
// Example: the refs of every decision that admitted an EXECUTION output,
//
//	SELECT d.event_index, r.ref_id, r.event_index
//	FROM decisions d JOIN resolved_refs r ON r.decision_index = d.event_index
//	WHERE r.admitted_for = 'execution_only' ORDER BY d.event_index, r.position;
package ledger
