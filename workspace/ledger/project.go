package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver (pure Go)
)

// ProjectionSchemaVersion is meta.schema_version of the SQLite projection.
//
// Changelog:
//   - 1: tables meta, events, decisions, resolved_refs.
const ProjectionSchemaVersion = 1

// projectionSchema creates the projection's tables; doc.go documents them.
const projectionSchema = `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE events (
	event_index    INTEGER PRIMARY KEY,
	kind           TEXT,
	thread_id      TEXT,
	turn_id        TEXT,
	parent_turn_id TEXT,
	correlation_id TEXT,
	prev_digest    TEXT,
	event_digest   TEXT,
	payload        TEXT,
	line           TEXT NOT NULL
);
CREATE INDEX events_by_turn ON events (kind, thread_id, turn_id, event_index);
CREATE INDEX events_by_correlation ON events (kind, correlation_id, thread_id, event_index);
CREATE TABLE decisions (
	event_index        INTEGER PRIMARY KEY REFERENCES events (event_index),
	intent_event_index INTEGER NOT NULL,
	result             TEXT NOT NULL,
	reason             TEXT NOT NULL,
	context_digest     TEXT NOT NULL,
	config_digest      TEXT NOT NULL,
	bundle_id          TEXT,
	bundle_fingerprint TEXT,
	artifact_sha256    TEXT
);
CREATE TABLE resolved_refs (
	decision_index INTEGER NOT NULL REFERENCES decisions (event_index),
	position       INTEGER NOT NULL,
	ref_id         TEXT NOT NULL,
	event_index    INTEGER NOT NULL,
	event_digest   TEXT NOT NULL,
	admitted_for   TEXT NOT NULL,
	PRIMARY KEY (decision_index, position)
);
`

// Project (re)builds the SQLite projection of the ledger journal in dir at
// sqlitePath: every complete line becomes a row of events (readable events
// with their columns filled, others with only line), every DECISION whose
// payload decodes a row of decisions and its resolved refs rows of
// resolved_refs, and meta records the schema version, the source file's
// sha256, its line count and the length of an incomplete last line. The
// database is built in memory ([projectionImage]), written to a temporary
// file next to sqlitePath and renamed over it, so readers see the old or
// the new projection, never a partial one. A missing journal projects to
// empty tables. The file is byte for byte the projection's image, which
// depends on the journal's bytes only: verification compares it with a
// fresh image.
func Project(dir, sqlitePath string) error {
	data, _, err := readShared(filepath.Join(dir, JournalFile))
	if err != nil {
		return fmt.Errorf("projecting ledger: %w", err)
	}
	img, err := projectionImage(data)
	if err != nil {
		return fmt.Errorf("projecting ledger to %s: %w", sqlitePath, err)
	}
	if err := writeImage(sqlitePath, img, true); err != nil {
		return fmt.Errorf("projecting ledger: %w", err)
	}
	return nil
}

// writeImage writes a projection image to path through a synced temporary
// file. With replace it is renamed over whatever is there; without, an
// existing file is left alone (fs.ErrExist): verification creates a
// missing projection but never overwrites one.
func writeImage(path string, img []byte, replace bool) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil || !replace {
			os.Remove(tmpName)
		}
	}()
	_, err = tmp.Write(img)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", tmpName, err)
	}
	if replace {
		err = os.Rename(tmpName, path)
	} else {
		err = os.Link(tmpName, path) // fails with fs.ErrExist when path exists
	}
	if err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// projectionImage builds the projection of the journal bytes data in an
// in-memory database and returns the database file's bytes. The same data
// always gives the same bytes (with the same SQLite library): one
// connection, one transaction, the same statements in the same order, and
// nothing from the clock or the machine.
func projectionImage(data []byte) (img []byte, err error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := fillProjection(ctx, conn, data); err != nil {
		return nil, err
	}
	err = conn.Raw(func(dc any) error {
		s, ok := dc.(interface{ Serialize() ([]byte, error) })
		if !ok {
			return errors.New("the SQLite driver cannot serialize a database")
		}
		img, err = s.Serialize()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("serializing the projection: %w", err)
	}
	return img, nil
}

// imageConn opens an in-memory database holding a copy of img: the file a
// projection image came from is never opened by SQLite, so reading it can
// neither change it nor see it change. The caller closes both.
func imageConn(img []byte) (*sql.DB, *sql.Conn, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	err = conn.Raw(func(dc any) error {
		d, ok := dc.(interface{ Deserialize([]byte) error })
		if !ok {
			return errors.New("the SQLite driver cannot deserialize a database")
		}
		if len(img) == 0 {
			return errors.New("the file is empty")
		}
		return d.Deserialize(img)
	})
	if err != nil {
		conn.Close()
		db.Close()
		return nil, nil, err
	}
	return db, conn, nil
}

// fillProjection creates the tables in conn and fills them from the
// journal bytes, in one transaction.
func fillProjection(ctx context.Context, conn *sql.Conn, data []byte) (err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if _, err := tx.Exec(projectionSchema); err != nil {
		return fmt.Errorf("creating tables: %w", err)
	}
	insEvent, err := tx.Prepare(`INSERT INTO events (event_index, kind, thread_id, turn_id, parent_turn_id,
		correlation_id, prev_digest, event_digest, payload, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insEvent.Close()
	insDecision, err := tx.Prepare(`INSERT INTO decisions (event_index, intent_event_index, result, reason,
		context_digest, config_digest, bundle_id, bundle_fingerprint, artifact_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insDecision.Close()
	insRef, err := tx.Prepare(`INSERT INTO resolved_refs (decision_index, position, ref_id, event_index,
		event_digest, admitted_for) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insRef.Close()

	lines, tail := splitLines(data)
	for pos, line := range lines {
		ev, ferr := decodeEvent(line)
		if ferr != nil {
			if _, err := insEvent.Exec(pos, nil, nil, nil, nil, nil, nil, nil, nil, string(line)); err != nil {
				return fmt.Errorf("inserting event %d: %w", pos, err)
			}
			continue
		}
		if _, err := insEvent.Exec(pos, string(ev.Kind), ev.ThreadID, ev.TurnID, ev.ParentTurnID, ev.CorrelationID,
			ev.PrevDigest, ev.Digest, string(ev.Payload), string(line)); err != nil {
			return fmt.Errorf("inserting event %d: %w", pos, err)
		}
		if ev.Kind != KindDecision {
			continue
		}
		var dp DecisionPayload
		if decodeExact(ev.Payload, &dp) != nil {
			continue // reported by verification as a payload finding
		}
		var bid, bfp, bsha any
		if dp.Bundle != nil {
			bid, bfp, bsha = dp.Bundle.BundleID, dp.Bundle.BundleFingerprint, dp.Bundle.ArtifactSHA256
		}
		if _, err := insDecision.Exec(pos, dp.IntentIndex, dp.Result, dp.Reason, dp.ContextDigest,
			dp.Boundary.ContextConfigDigest, bid, bfp, bsha); err != nil {
			return fmt.Errorf("inserting decision %d: %w", pos, err)
		}
		for k, r := range dp.ContextSpec.Retrieval.ResolvedRefs {
			if _, err := insRef.Exec(pos, k, r.RefID, r.EventIndex, r.EventDigest, r.AdmittedFor); err != nil {
				return fmt.Errorf("inserting resolved ref %d of decision %d: %w", k, pos, err)
			}
		}
	}
	for _, kv := range [][2]string{
		{"schema_version", strconv.Itoa(ProjectionSchemaVersion)},
		{"source_file", JournalFile},
		{"source_sha256", sha256Digest(data)},
		{"source_bytes", strconv.Itoa(len(data))},
		{"event_count", strconv.Itoa(len(lines))},
		{"torn_tail_bytes", strconv.Itoa(len(tail))},
	} {
		if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?)`, kv[0], kv[1]); err != nil {
			return fmt.Errorf("inserting meta %s: %w", kv[0], err)
		}
	}
	return tx.Commit()
}

// querier is what the replay needs of a database: *sql.DB or the one
// *sql.Conn of an in-memory image.
type querier interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// projectedLines reads every line back, in position order, and the length
// of the incomplete tail.
func projectedLines(db querier) (lines [][]byte, torn int, err error) {
	ctx := context.Background()
	var tornText string
	if err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'torn_tail_bytes'`).Scan(&tornText); err != nil {
		return nil, 0, fmt.Errorf("reading meta torn_tail_bytes: %w", err)
	}
	if torn, err = strconv.Atoi(tornText); err != nil {
		return nil, 0, fmt.Errorf("reading meta torn_tail_bytes: %w", err)
	}
	rows, err := db.QueryContext(ctx, `SELECT event_index, line FROM events ORDER BY event_index`)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var pos int
		var line string
		if err := rows.Scan(&pos, &line); err != nil {
			return nil, 0, err
		}
		if pos != len(lines) {
			return nil, 0, fmt.Errorf("events table has a gap at line %d", len(lines))
		}
		lines = append(lines, []byte(line))
	}
	return lines, torn, rows.Err()
}

// sqlSource is the source of ledger replay: every lookup is a SQL query on
// the projection.
type sqlSource struct {
	event1, findTurn, findCorr, anyTurn, anyCorr, decision1, refs *sql.Stmt
}

func newSQLSource(db querier) (*sqlSource, error) {
	s := &sqlSource{}
	for _, q := range []struct {
		stmt **sql.Stmt
		text string
	}{
		{&s.event1, `SELECT kind, thread_id, turn_id, parent_turn_id, correlation_id, prev_digest, event_digest, payload
			FROM events WHERE event_index = ?`},
		{&s.findTurn, `SELECT event_index, event_digest FROM events
			WHERE kind = ? AND turn_id = ? AND thread_id = ? AND event_index < ? ORDER BY event_index DESC LIMIT 1`},
		{&s.findCorr, `SELECT event_index, event_digest FROM events
			WHERE kind = ? AND correlation_id = ? AND thread_id = ? AND event_index < ? ORDER BY event_index DESC LIMIT 1`},
		{&s.anyTurn, `SELECT EXISTS (SELECT 1 FROM events WHERE kind = ? AND turn_id = ? AND event_index < ?)`},
		{&s.anyCorr, `SELECT EXISTS (SELECT 1 FROM events WHERE kind = ? AND correlation_id = ? AND event_index < ?)`},
		{&s.decision1, `SELECT intent_event_index, result, reason, context_digest, config_digest,
			bundle_id, bundle_fingerprint, artifact_sha256 FROM decisions WHERE event_index = ?`},
		{&s.refs, `SELECT ref_id, event_index, event_digest, admitted_for FROM resolved_refs
			WHERE decision_index = ? ORDER BY position`},
	} {
		stmt, err := db.PrepareContext(context.Background(), q.text)
		if err != nil {
			s.close()
			return nil, err
		}
		*q.stmt = stmt
	}
	return s, nil
}

func (s *sqlSource) close() {
	for _, st := range []*sql.Stmt{s.event1, s.findTurn, s.findCorr, s.anyTurn, s.anyCorr, s.decision1, s.refs} {
		if st != nil {
			st.Close()
		}
	}
}

func (s *sqlSource) event(pos int) (Event, bool, error) {
	var kind, thread, turn, parent, corr, prev, digest, payload sql.NullString
	err := s.event1.QueryRow(pos).Scan(&kind, &thread, &turn, &parent, &corr, &prev, &digest, &payload)
	if errors.Is(err, sql.ErrNoRows) {
		return Event{}, false, nil
	}
	if err != nil {
		return Event{}, false, fmt.Errorf("reading event %d: %w", pos, err)
	}
	if !kind.Valid {
		return Event{}, false, nil
	}
	return Event{
		Index:         pos,
		PrevDigest:    sqlNull(prev),
		Digest:        sqlNull(digest),
		Kind:          Kind(kind.String),
		ThreadID:      sqlNull(thread),
		TurnID:        sqlNull(turn),
		ParentTurnID:  sqlNull(parent),
		CorrelationID: sqlNull(corr),
		Payload:       json.RawMessage(sqlNull(payload)),
	}, true, nil
}

func (s *sqlSource) find(q refQuery) (refHit, error) {
	in, anywhere := s.findTurn, s.anyTurn
	if q.byCorrelation {
		in, anywhere = s.findCorr, s.anyCorr
	}
	var hit refHit
	err := in.QueryRow(string(q.kind), q.key, q.thread, q.before).Scan(&hit.pos, &hit.digest)
	if err == nil {
		hit.found = true
		return hit, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return refHit{}, fmt.Errorf("looking up a ref: %w", err)
	}
	if err := anywhere.QueryRow(string(q.kind), q.key, q.before).Scan(&hit.elsewhere); err != nil {
		return refHit{}, fmt.Errorf("looking up a ref: %w", err)
	}
	return hit, nil
}

func (s *sqlSource) decision(pos int, _ DecisionPayload) (decisionRecord, error) {
	var rec decisionRecord
	var bid, bfp, bsha sql.NullString
	err := s.decision1.QueryRow(pos).Scan(&rec.intentIndex, &rec.result, &rec.reason, &rec.contextDigest,
		&rec.configDigest, &bid, &bfp, &bsha)
	if err != nil {
		return rec, fmt.Errorf("reading decision %d: %w", pos, err)
	}
	if bid.Valid {
		rec.bundle = &BundleRef{BundleID: bid.String, BundleFingerprint: bfp.String, ArtifactSHA256: bsha.String}
	}
	rows, err := s.refs.Query(pos)
	if err != nil {
		return rec, fmt.Errorf("reading resolved refs of decision %d: %w", pos, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r ResolvedRef
		if err := rows.Scan(&r.RefID, &r.EventIndex, &r.EventDigest, &r.AdmittedFor); err != nil {
			return rec, fmt.Errorf("reading resolved refs of decision %d: %w", pos, err)
		}
		rec.resolved = append(rec.resolved, r)
	}
	if err := rows.Err(); err != nil {
		return rec, fmt.Errorf("reading resolved refs of decision %d: %w", pos, err)
	}
	return rec, nil
}
