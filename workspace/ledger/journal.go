package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gowebpki/jcs"
)

// genesisDigest is the prev_digest of the line with event_index 0.
const genesisDigest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// Members every journal line carries; a body given to seal must not set them.
const (
	memberIndex  = "event_index"
	memberPrev   = "prev_digest"
	memberDigest = "event_digest"
)

// maxTornNames bounds the search for a free name for a moved-aside tail, so
// that a directory full of stale tails cannot keep recovery looping.
const maxTornNames = 1000

// record is one complete, verified line of a journal.
type record struct {
	index  int
	prev   string
	digest string
	line   []byte // canonical JSON, without the trailing newline
}

// journal is an append-only JSONL file of hash-chained JSON objects. Every
// method takes the in-process semaphore and then an flock on <path>.lock,
// so goroutines and processes see one order of lines. The cache (recs,
// offset, info) holds the verified complete lines read so far; refresh
// extends it with what others appended.
type journal struct {
	path string
	now  func() time.Time
	sem  chan struct{} // capacity 1; a channel rather than a Mutex so that waiting can be cancelled

	recs   []record
	offset int64       // bytes of the file covered by recs
	info   os.FileInfo // identity of the file recs were read from; nil before the first read

	// appended, when set, is called after every append with the whole
	// journal's bytes, still under the exclusive lock (see
	// Ledger.KeepProjection). It must not take the journal's lock.
	appended func(data []byte)
}

func newJournal(path string, now func() time.Time) *journal {
	if now == nil {
		now = time.Now
	}
	return &journal{path: path, now: now, sem: make(chan struct{}, 1)}
}

// recoverOnOpen moves a torn tail aside when the journal already exists,
// and warms the cache. A missing journal (or directory) is not an error: it
// is created by the first append. Corruption is not reported here: it makes
// every append and read fail until it is dealt with, while verification
// still works.
func (j *journal) recoverOnOpen() error {
	if _, err := os.Stat(j.path); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("checking journal %s: %w", j.path, err)
	}
	release, err := j.lock(context.Background(), lockExclusive)
	if err != nil {
		return err
	}
	defer release()
	if err := j.refresh(true); err != nil && !errors.Is(err, ErrCorrupt) {
		return err
	}
	return nil
}

// lock takes the semaphore and the file lock (exclusive or shared), creating
// the lock file when needed. The returned func releases both.
func (j *journal) lock(ctx context.Context, how lockMode) (func(), error) {
	select {
	case j.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	f, err := flockFile(ctx, j.path+".lock", how)
	if err != nil {
		<-j.sem
		return nil, err
	}
	return func() {
		f.Close() // closing the descriptor releases the flock
		<-j.sem
	}, nil
}

// flockFile opens (creating it, mode 0o600) the lock file and takes an
// flock on it. Waiting for another holder is abandoned when ctx ends; the
// abandoned waiter releases the lock as soon as it gets it.
func flockFile(ctx context.Context, path string, how lockMode) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening lock file %s: %w", path, err)
	}
	ok, err := tryLock(f, how)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if ok {
		return f, nil
	}
	done := make(chan error, 1)
	go func() { done <- waitLock(f, how) }()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		return f, nil
	case <-ctx.Done():
		go func() {
			<-done
			f.Close()
		}()
		return nil, ctx.Err()
	}
}

// read refreshes the cache under a shared lock and calls fn with the
// verified records while still holding it. A torn tail is left out, not
// moved: readers never write. A missing directory is an empty journal.
func (j *journal) read(fn func(recs []record) error) error {
	j.sem <- struct{}{}
	defer func() { <-j.sem }()
	if _, err := os.Stat(filepath.Dir(j.path)); errors.Is(err, fs.ErrNotExist) {
		j.reset()
		return fn(nil)
	}
	f, err := flockFile(context.Background(), j.path+".lock", lockShared)
	if err != nil {
		return err
	}
	defer f.Close() // releases the flock
	if err := j.refresh(false); err != nil {
		return err
	}
	return fn(j.recs[:len(j.recs):len(j.recs)])
}

// update runs one read-tail → compute → append critical section under the
// exclusive lock: it refreshes the cache (moving a torn tail aside), calls fn
// with every verified record, and appends the records fn returns with one
// write(2) followed by fsync. fn's records must continue the chain (use
// sealAll). An error of fn is returned unchanged and nothing is written.
func (j *journal) update(ctx context.Context, fn func(recs []record) ([]record, error)) ([]record, error) {
	if err := os.MkdirAll(filepath.Dir(j.path), 0o700); err != nil {
		return nil, fmt.Errorf("creating journal directory: %w", err)
	}
	release, err := j.lock(ctx, lockExclusive)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := j.refresh(true); err != nil {
		return nil, err
	}
	recs := j.recs[:len(j.recs):len(j.recs)]
	add, err := fn(recs)
	if err != nil {
		return nil, err
	}
	if len(add) == 0 {
		return nil, nil
	}
	prev := genesisDigest
	if len(recs) > 0 {
		prev = recs[len(recs)-1].digest
	}
	var buf bytes.Buffer
	for k, r := range add {
		if r.index != len(recs)+k || r.prev != prev {
			return nil, fmt.Errorf("appending to journal %s: record %d does not continue the chain", j.path, k)
		}
		prev = r.digest
		buf.Write(r.line)
		buf.WriteByte('\n')
	}
	if err := j.write(buf.Bytes()); err != nil {
		return nil, err
	}
	j.recs = append(j.recs, add...)
	j.offset += int64(buf.Len())
	if j.appended != nil {
		var all bytes.Buffer
		for _, r := range j.recs {
			all.Write(r.line)
			all.WriteByte('\n')
		}
		j.appended(all.Bytes())
	}
	return add, nil
}

// write appends b with a single write(2) on a descriptor opened O_APPEND and
// syncs it. When the write creates the file, the directory is synced too so
// that the new name survives a crash.
func (j *journal) write(b []byte) error {
	_, statErr := os.Stat(j.path)
	created := errors.Is(statErr, fs.ErrNotExist)
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening journal %s: %w", j.path, err)
	}
	n, err := f.Write(b)
	if err == nil && n != len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		f.Close()
		// A partial line may now end the file; the next append moves it aside.
		return fmt.Errorf("appending to journal %s: %w", j.path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("syncing journal %s: %w", j.path, err)
	}
	info, err := f.Stat()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("closing journal %s: %w", j.path, err)
	}
	j.info = info
	if created {
		return syncDir(filepath.Dir(j.path))
	}
	return nil
}

// refresh brings the cache up to date with the file and verifies every line
// it had not verified yet. With recoverTail set (the caller holds LOCK_EX) a
// torn tail is moved aside; otherwise it is only left out.
//
// When the file is exactly as this journal last left it (same inode, size
// and modification time) nothing is read. Otherwise the whole file is read
// and the cached lines are compared byte for byte with it, so that a file
// that was replaced, shortened or edited in place is verified again from
// its first line rather than trusted.
func (j *journal) refresh(recoverTail bool) error {
	f, err := os.Open(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		j.reset()
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening journal %s: %w", j.path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading journal %s: %w", j.path, err)
	}
	if j.info != nil && os.SameFile(j.info, info) && info.Size() == j.offset && info.ModTime().Equal(j.info.ModTime()) {
		return nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("reading journal %s: %w", j.path, err)
	}
	if !j.cacheMatches(data) {
		j.reset()
	}
	rest := data[j.offset:]
	lines, torn := splitTorn(rest)
	if recoverTail && len(torn) > 0 {
		if err := j.cutTail(torn, j.offset+int64(len(rest)-len(torn))); err != nil {
			return err
		}
	}
	if info, err = f.Stat(); err != nil {
		return fmt.Errorf("reading journal %s: %w", j.path, err)
	}
	j.info = info
	prev := nextPrev(j.recs)
	for _, line := range lines {
		i := len(j.recs)
		v := verifyLine(line, i, prev, true)
		if v.field != "" {
			return fmt.Errorf("%w: %s line %d (event_index %d): %s: %s; run `ctxd verify` to see every finding",
				ErrCorrupt, j.path, i+1, i, v.field, v.message)
		}
		j.recs = append(j.recs, v.rec)
		j.offset += int64(len(line)) + 1
		prev = v.rec.digest
	}
	return nil
}

// cacheMatches reports whether data starts with the cached lines, byte for
// byte.
func (j *journal) cacheMatches(data []byte) bool {
	if int64(len(data)) < j.offset {
		return false
	}
	pos := 0
	for _, r := range j.recs {
		end := pos + len(r.line)
		if !bytes.Equal(data[pos:end], r.line) || data[end] != '\n' {
			return false
		}
		pos = end + 1
	}
	return true
}

func (j *journal) reset() {
	j.recs, j.offset, j.info = nil, 0, nil
}

// cutTail moves a torn tail (see splitTorn) off the journal: its bytes go
// to <path>.torn-<unix nanos of the injected clock>[-n] next to the journal,
// synced, before the journal is truncated to keep bytes, its last good line.
// The caller holds LOCK_EX.
func (j *journal) cutTail(torn []byte, keep int64) error {
	name, err := j.writeTorn(torn)
	if err != nil {
		return err
	}
	if err := os.Truncate(j.path, keep); err != nil {
		return fmt.Errorf("truncating journal %s after moving its torn tail to %s: %w", j.path, name, err)
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("syncing journal %s: %w", j.path, err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("syncing journal %s: %w", j.path, err)
	}
	return nil
}

// writeTorn stores a torn tail in a new file and returns its name. The name
// comes from the injected clock, with a counter when it is taken (a fixed
// test clock), so nothing random reaches the disk.
func (j *journal) writeTorn(torn []byte) (string, error) {
	base := j.path + ".torn-" + strconv.FormatInt(j.now().UnixNano(), 10)
	for n := 0; n < maxTornNames; n++ {
		name := base
		if n > 0 {
			name = base + "-" + strconv.Itoa(n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("saving torn tail of %s: %w", j.path, err)
		}
		_, err = f.Write(torn)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", fmt.Errorf("saving torn tail of %s to %s: %w", j.path, name, err)
		}
		return name, syncDir(filepath.Dir(j.path))
	}
	return "", fmt.Errorf("saving torn tail of %s: no free name after %s", j.path, base)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}

// splitLines splits journal bytes into complete lines (without their
// newlines) and the bytes after the last newline.
func splitLines(data []byte) (lines [][]byte, tail []byte) {
	end := bytes.LastIndexByte(data, '\n') + 1
	tail = data[end:]
	body := data[:end]
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\n')
		lines = append(lines, body[:i])
		body = body[i+1:]
	}
	return lines, tail
}

// splitTorn is splitLines for appending: the torn tail is the bytes after the
// last newline, plus the last complete line when it is not valid JSON (a
// write cut short can leave either). Only the end of the file can be torn;
// an invalid line before it is corruption.
func splitTorn(data []byte) (lines [][]byte, torn []byte) {
	lines, tail := splitLines(data)
	if n := len(lines); n > 0 && !json.Valid(lines[n-1]) {
		start := len(data) - len(tail) - len(lines[n-1]) - 1
		return lines[:n-1], data[start:]
	}
	return lines, tail
}

// lineCheck is the outcome of verifyLine: field is "" when the line is
// sound. digest is the line's stored event_digest when it could be read,
// even when the line fails, so that the next line's prev_digest is compared
// with what is actually written.
type lineCheck struct {
	rec      record
	field    string
	message  string
	digestOK bool // rec.digest holds the stored event_digest
}

// verifyLine checks one line: valid JSON object, byte-identical to its JCS
// form, event_index == wantIndex, prev_digest == wantPrev (when prevKnown),
// and event_digest == the digest of the object without event_digest.
func verifyLine(line []byte, wantIndex int, wantPrev string, prevKnown bool) lineCheck {
	c := lineCheck{rec: record{index: wantIndex, line: line}}
	fail := func(field, format string, args ...any) lineCheck {
		c.field, c.message = field, fmt.Sprintf(format, args...)
		return c
	}
	if !json.Valid(line) {
		return fail("line", "not valid JSON")
	}
	canon, err := jcs.Transform(line)
	if err != nil {
		return fail("line", "not canonical JSON: invalid UTF-8, a duplicate member or an unsupported value")
	}
	if !bytes.Equal(canon, line) {
		return fail("line", "not in canonical (RFC 8785) form")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return fail("line", "not a JSON object")
	}
	if raw, ok := m[memberDigest]; ok {
		if err := json.Unmarshal(raw, &c.rec.digest); err == nil {
			c.digestOK = true
		}
	}
	var index int
	if raw, ok := m[memberIndex]; !ok {
		return fail(memberIndex, "missing")
	} else if err := json.Unmarshal(raw, &index); err != nil {
		return fail(memberIndex, "not an integer")
	} else if index != wantIndex {
		return fail(memberIndex, "is %d, want %d (lines must be numbered 0, 1, 2, … without gaps)", index, wantIndex)
	}
	if raw, ok := m[memberPrev]; !ok {
		return fail(memberPrev, "missing")
	} else if err := json.Unmarshal(raw, &c.rec.prev); err != nil {
		return fail(memberPrev, "not a string")
	}
	if !prevKnown {
		return fail(memberPrev, "the previous line is unreadable, so the chain cannot be confirmed")
	}
	if c.rec.prev != wantPrev {
		return fail(memberPrev, "is %s, but the previous line's event_digest is %s", c.rec.prev, wantPrev)
	}
	if !c.digestOK {
		return fail(memberDigest, "missing or not a string")
	}
	rest, ok := cutTopMember(line, memberDigest)
	if !ok {
		return fail(memberDigest, "missing")
	}
	// rest is the JCS form of the object without event_digest: the line is
	// canonical, and removing one member of a canonical object leaves the
	// others sorted and serialized as JCS would.
	if want := sha256Digest(rest); c.rec.digest != want {
		return fail(memberDigest, "is %s, but the line hashes to %s", c.rec.digest, want)
	}
	return c
}

// cutTopMember returns a canonical JSON object without its top-level member
// key (which must need no escaping), and whether the member was there. It
// scans the text, skipping strings and nested values, rather than decoding
// and re-encoding: verification does this for every line.
func cutTopMember(obj []byte, key string) ([]byte, bool) {
	needle := []byte(`"` + key + `":`)
	depth, inString, escaped := 0, false, false
	start := -1 // where the member to cut begins
	for i := 0; i < len(obj); i++ {
		c := obj[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			if depth == 1 && start < 0 && (obj[i-1] == '{' || obj[i-1] == ',') && bytes.HasPrefix(obj[i:], needle) {
				start = i
			}
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 && start >= 0 {
				// The last member: drop it with the comma before it, if any.
				if obj[start-1] == ',' {
					start--
				}
				return append(append([]byte(nil), obj[:start]...), obj[i:]...), true
			}
		case ',':
			if depth == 1 && start >= 0 {
				// Drop the member with the comma after it.
				return append(append([]byte(nil), obj[:start]...), obj[i+1:]...), true
			}
		}
	}
	return nil, false
}

// digestObject is "sha256:" + hex(sha256(JCS(m))).
func digestObject(m map[string]json.RawMessage) (string, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return "", err
	}
	return sha256Digest(canon), nil
}

// sha256Digest is the seed-000 spelling of a digest: "sha256:" + lowercase hex.
func sha256Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// seal turns a body (any value marshaling to a JSON object without the chain
// members) into the journal line with the given index and prev digest.
func seal(body any, index int, prev string) (record, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return record{}, fmt.Errorf("encoding journal line: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return record{}, fmt.Errorf("encoding journal line: the body is not a JSON object")
	}
	for _, k := range []string{memberIndex, memberPrev, memberDigest} {
		if _, ok := m[k]; ok {
			return record{}, fmt.Errorf("encoding journal line: the body sets the reserved member %q", k)
		}
	}
	m[memberIndex] = json.RawMessage(strconv.Itoa(index))
	m[memberPrev], _ = json.Marshal(prev)
	digest, err := digestObject(m)
	if err != nil {
		return record{}, fmt.Errorf("encoding journal line: %w", err)
	}
	m[memberDigest], _ = json.Marshal(digest)
	raw, err = json.Marshal(m)
	if err != nil {
		return record{}, fmt.Errorf("encoding journal line: %w", err)
	}
	line, err := jcs.Transform(raw)
	if err != nil {
		return record{}, fmt.Errorf("encoding journal line: %w", err)
	}
	return record{index: index, prev: prev, digest: digest, line: line}, nil
}

// nextPrev is the prev_digest of the line after recs.
func nextPrev(recs []record) string {
	if len(recs) == 0 {
		return genesisDigest
	}
	return recs[len(recs)-1].digest
}

// readShared reads a whole journal file under a shared lock when its lock
// file exists (it never creates one: verification writes nothing). exists
// is false when the file is missing.
func readShared(path string) (data []byte, exists bool, err error) {
	if lf, err := os.Open(path + ".lock"); err == nil {
		defer lf.Close()
		if err := waitLock(lf, lockShared); err != nil {
			return nil, false, fmt.Errorf("locking %s.lock: %w", path, err)
		}
	}
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading journal %s: %w", path, err)
	}
	return data, true, nil
}
