package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// FieldProjection is the Check.Field of a finding about the SQLite
// projection as a whole; a differing row is reported with
// FieldProjection + "." + the table's name.
const FieldProjection = "projection"

// maxProjectionFindings bounds the row findings reported for one
// projection; one more check counts the rest.
const maxProjectionFindings = 20

// projectedTable is a table of the projection and its key columns, in the
// order rows are compared.
type projectedTable struct {
	name string
	key  []string
}

// projectedTables are every table of the projection, and sqlite_schema
// (the tables' definitions).
var projectedTables = []projectedTable{
	{"sqlite_schema", []string{"type", "name"}},
	{"meta", []string{"key"}},
	{"events", []string{"event_index"}},
	{"decisions", []string{"event_index"}},
	{"resolved_refs", []string{"decision_index", "position"}},
}

// contentColumns hold journal text (the user's words, model output):
// findings say that they differ, never what they hold.
var contentColumns = map[string]bool{"payload": true, "line": true, "sql": true}

// readJournalAndProjection reads the journal and, when projPath is set,
// the projection file, under one shared lock of the journal: an append
// refreshes the projection under the exclusive lock, so the two are read
// as of the same moment. proj is nil when the projection does not exist.
func readJournalAndProjection(path, projPath string) (data []byte, exists bool, proj []byte, err error) {
	if lf, err := os.Open(path + ".lock"); err == nil {
		defer lf.Close()
		if err := waitLock(lf, lockShared); err != nil {
			return nil, false, nil, fmt.Errorf("locking %s.lock: %w", path, err)
		}
	}
	data, err = os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data, err = nil, nil
	case err != nil:
		return nil, false, nil, fmt.Errorf("reading journal %s: %w", path, err)
	default:
		exists = true
	}
	if projPath == "" {
		return data, exists, nil, nil
	}
	proj, err = os.ReadFile(projPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return data, exists, nil, nil
	case err != nil:
		return nil, false, nil, fmt.Errorf("reading projection %s: %w", projPath, err)
	}
	if proj == nil {
		proj = []byte{} // exists, empty
	}
	return data, exists, proj, nil
}

// checkProjection compares the projection file's bytes disk with fresh,
// the image of the journal as it is now (data, read from journalPath),
// and returns the file-level findings: none when they are byte for byte
// equal. A file that is byte for byte the projection of an earlier state
// of this journal (see [behindBy]) is one incomplete finding: an update
// that a crash interrupted, not a forgery. Otherwise the file is opened
// (from memory) and every row of every table compared with the fresh
// projection's, each differing row a finding naming its table and key; a
// file SQLite cannot read is one finding, and so is a file whose rows all
// match but whose bytes do not (free pages, padding, header).
func checkProjection(name string, disk, fresh, data []byte, journalPath string) ([]Check, error) {
	if bytes.Equal(disk, fresh) {
		return nil, nil
	}
	if n, ok := behindBy(disk, data, journalPath); ok {
		lines, _ := splitLines(data)
		return []Check{{Source: SourceLedger, EventIndex: -1, Status: StatusIncomplete, Field: FieldProjection,
			Message: fmt.Sprintf("%s is the projection of the ledger's first %d of %d events: an update was interrupted (a crash between an append and the projection's rewrite); "+
				"every row it holds is the ledger's. `ctxd verify --repair` brings it up to date", name, n, len(lines))}}, nil
	}
	want, err := imageTables(fresh)
	if err != nil {
		return nil, fmt.Errorf("reading the fresh projection: %w", err)
	}
	return compareProjection(name, disk, fresh, want), nil
}

// maxTornCandidates bounds the moved-aside tails behindBy reads.
const maxTornCandidates = 64

// behindBy reports whether disk is, byte for byte, the projection ctxd
// wrote of an earlier state of the journal whose bytes are now data, and
// of how many complete lines. Every projection ctxd writes is of the whole
// journal at that moment, and the journal only grows by whole lines or
// loses a torn tail (moved to <journal>.torn-<nanos>), so an earlier state
// is a prefix of data ending at a newline, plus, when the projection
// recorded a torn tail (meta torn_tail_bytes), one of the moved-aside
// tails. The candidate is projected again and compared whole, so a file
// anyone changed is never taken for one that is only behind.
func behindBy(disk, data []byte, journalPath string) (int, bool) {
	sourceBytes, torn, ok := projectedSize(disk)
	if !ok {
		return 0, false
	}
	keep := sourceBytes - torn
	if keep < 0 || keep > len(data) || (keep > 0 && data[keep-1] != '\n') {
		return 0, false
	}
	prefix := data[:keep]
	var candidates [][]byte
	if torn == 0 {
		candidates = append(candidates, prefix)
	} else {
		for _, t := range tornTails(journalPath, torn) {
			candidates = append(candidates, append(slices.Clip(prefix), t...))
		}
	}
	for _, c := range candidates {
		if bytes.Equal(c, data) {
			continue // the fresh projection, which disk is not
		}
		img, err := projectionImage(c)
		if err == nil && bytes.Equal(img, disk) {
			lines, _ := splitLines(c)
			return len(lines), true
		}
	}
	return 0, false
}

// projectedSize reads meta source_bytes and torn_tail_bytes of a
// projection image; ok is false when the image is not readable as one.
func projectedSize(img []byte) (sourceBytes, torn int, ok bool) {
	db, conn, err := imageConn(img)
	if err != nil {
		return 0, 0, false
	}
	defer db.Close()
	defer conn.Close()
	ctx := context.Background()
	var src, tail string
	if conn.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'source_bytes'`).Scan(&src) != nil ||
		conn.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'torn_tail_bytes'`).Scan(&tail) != nil {
		return 0, 0, false
	}
	sourceBytes, err1 := strconv.Atoi(src)
	torn, err2 := strconv.Atoi(tail)
	if err1 != nil || err2 != nil || sourceBytes < 0 || torn < 0 {
		return 0, 0, false
	}
	return sourceBytes, torn, true
}

// tornTails returns the contents of the moved-aside tails of the journal
// at journalPath that are size bytes long, in name order, at most
// maxTornCandidates of them.
func tornTails(journalPath string, size int) [][]byte {
	names, err := filepath.Glob(journalPath + ".torn-*")
	if err != nil {
		return nil
	}
	slices.Sort(names)
	var out [][]byte
	for _, name := range names {
		if len(out) == maxTornCandidates {
			break
		}
		info, err := os.Lstat(name)
		if err != nil || !info.Mode().IsRegular() || info.Size() != int64(size) {
			continue
		}
		if b, err := os.ReadFile(name); err == nil && len(b) == size {
			out = append(out, b)
		}
	}
	return out
}

// compareProjection is checkProjection for a disk image that differs from
// fresh, whose tables are want.
func compareProjection(name string, disk, fresh []byte, want map[string]*tableRows) []Check {
	mismatch := func(field, msg string) Check {
		return Check{Source: SourceLedger, EventIndex: -1, Status: StatusMismatch, Field: field, Message: msg}
	}
	repair := "; `ctxd verify --repair` rebuilds it from the ledger"
	got, err := imageTables(disk)
	if err != nil {
		return []Check{mismatch(FieldProjection, fmt.Sprintf("%s cannot be read as the ledger's projection (%s)%s", name, oneLineErr(err), repair))}
	}
	var findings []Check
	for _, t := range projectedTables {
		for _, msg := range diffTable(t, want[t.name], got[t.name]) {
			findings = append(findings, mismatch(FieldProjection+"."+t.name, fmt.Sprintf("%s: %s", name, msg)))
		}
	}
	if len(findings) > maxProjectionFindings {
		n := len(findings) - maxProjectionFindings
		findings = append(findings[:maxProjectionFindings],
			mismatch(FieldProjection, fmt.Sprintf("%s: %d more differing rows%s", name, n, repair)))
	}
	if len(findings) == 0 {
		off := firstDiff(disk, fresh)
		findings = append(findings, mismatch(FieldProjection, fmt.Sprintf(
			"%s differs from a fresh projection of the ledger at byte %d (of %d, fresh %d) although every row matches: "+
				"the file was changed outside ctxd or written by another SQLite version%s", name, off, len(disk), len(fresh), repair)))
	}
	return findings
}

// firstDiff is the offset of the first byte where a and b differ (the
// shorter length when one is a prefix of the other).
func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// tableRows is a table read back: its columns and its rows by key, each
// row's values rendered as text that tells types apart.
type tableRows struct {
	cols []string
	keys []string // in key order
	rows map[string][]string
}

// imageTables reads every table of a projection image.
func imageTables(img []byte) (map[string]*tableRows, error) {
	db, conn, err := imageConn(img)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	defer conn.Close()
	ctx := context.Background()
	var check string
	if err := conn.QueryRowContext(ctx, `PRAGMA quick_check(1)`).Scan(&check); err != nil {
		return nil, err
	}
	if check != "ok" {
		return nil, errors.New(check)
	}
	out := map[string]*tableRows{}
	for _, t := range projectedTables {
		tr, err := readTable(ctx, conn, t)
		if err != nil {
			if t.name != "sqlite_schema" && strings.Contains(err.Error(), "no such table") {
				continue // reported as a missing table by the sqlite_schema comparison and its rows
			}
			return nil, fmt.Errorf("reading table %s: %w", t.name, err)
		}
		out[t.name] = tr
	}
	return out, nil
}

func readTable(ctx context.Context, conn *sql.Conn, t projectedTable) (*tableRows, error) {
	q := fmt.Sprintf(`SELECT * FROM %s ORDER BY %s`, t.name, strings.Join(t.key, ", "))
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	tr := &tableRows{cols: cols, rows: map[string][]string{}}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		byName := map[string]string{}
		for i, v := range vals {
			row[i] = renderValue(v)
			byName[cols[i]] = row[i]
		}
		var key []string
		for _, k := range t.key {
			key = append(key, k+"="+byName[k])
		}
		k := strings.Join(key, ", ")
		if _, dup := tr.rows[k]; dup {
			k += " (again)"
		}
		tr.keys = append(tr.keys, k)
		tr.rows[k] = row
	}
	return tr, rows.Err()
}

// renderValue renders a column value so that values of different types
// never look alike.
func renderValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return "real " + strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		return strconv.Quote(v)
	case []byte:
		return "x'" + hex.EncodeToString(v) + "'"
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprintf("%T %v", v, v)
}

// diffTable compares a table of the file (got) with the fresh one (want)
// row by row.
func diffTable(t projectedTable, want, got *tableRows) []string {
	switch {
	case want == nil && got == nil:
		return nil
	case got == nil:
		return []string{fmt.Sprintf("table %s is missing", t.name)}
	case want == nil:
		return []string{fmt.Sprintf("table %s is not part of the projection", t.name)}
	}
	if !slices.Equal(want.cols, got.cols) {
		return []string{fmt.Sprintf("table %s has columns %s, the projection has %s", t.name, strings.Join(got.cols, ", "), strings.Join(want.cols, ", "))}
	}
	var out []string
	for _, k := range want.keys {
		g, ok := got.rows[k]
		if !ok {
			out = append(out, fmt.Sprintf("table %s: row %s is missing", t.name, k))
			continue
		}
		w := want.rows[k]
		for i, col := range want.cols {
			if w[i] == g[i] {
				continue
			}
			if contentColumns[col] {
				out = append(out, fmt.Sprintf("table %s: row %s: %s differs from the ledger's", t.name, k, col))
			} else {
				out = append(out, fmt.Sprintf("table %s: row %s: %s is %s, the ledger gives %s", t.name, k, col, cut(g[i]), cut(w[i])))
			}
			break
		}
	}
	for _, k := range got.keys {
		if _, ok := want.rows[k]; !ok {
			out = append(out, fmt.Sprintf("table %s: row %s is not in the ledger", t.name, k))
		}
	}
	return out
}

// cut shortens a rendered value for a message.
func cut(s string) string {
	const max = 100
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}

// oneLineErr renders an error on one line.
func oneLineErr(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// projectionName is how findings name the projection file.
func projectionName(path string) string { return filepath.Base(path) }
