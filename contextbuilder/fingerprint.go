package contextbuilder

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
	"github.com/gowebpki/jcs"
)

// canonical returns the RFC 8785 (JCS) form of v's JSON encoding: sorted
// keys, no insignificant whitespace, canonical numbers and strings. It is
// the input of every fingerprint.
func canonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding for canonical form: %w", err)
	}
	c, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("canonical form: %w", err)
	}
	return c, nil
}

// fingerprint is the hex sha256 of v's canonical form.
func fingerprint(v any) (string, error) {
	c, err := canonical(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}

// uuid8 makes an RFC 9562 version 8 UUID from the first 16 bytes of a
// sha256: deterministic ids that still look like ids to every client.
func uuid8(sum [sha256.Size]byte) string {
	var u [16]byte
	copy(u[:], sum[:16])
	u[6] = u[6]&0x0f | 0x80 // version 8
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// uuidFromHex is uuid8 of a hex sha256 string.
func uuidFromHex(hexSum string) string {
	var sum [sha256.Size]byte
	b, _ := hex.DecodeString(hexSum)
	copy(sum[:], b)
	return uuid8(sum)
}

// uuidOf is uuid8 of sha256 over the given parts, separated by NUL so
// that ("ab","c") and ("a","bc") differ.
func uuidOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	return uuid8(sum)
}

// BundleFingerprint recomputes a bundle's bundle_fingerprint from its
// content: sha256 of the JCS form of the bundle without bundle_id and
// created_at. Replay uses it to check a stored bundle.
func BundleFingerprint(b *Bundle) (string, error) {
	if b == nil {
		return "", errors.New("bundle fingerprint: no bundle")
	}
	h := newBundleHash(false, 0)
	for i := range b.Blocks {
		h.block(&b.Blocks[i])
	}
	fp, _ := h.sum(b.BundleVersion, b.Purpose, b.CorrelationID, b.Model)
	return fp, nil
}

// RequestIdentity returns what a build of req is known by: its
// correlation_id (the client's, or the one [Build] derives, a UUIDv8) and
// the hex sha256 of the request's canonical form with its URIs made
// relative to root, which does not depend on where the workspace lives.
// The ledger records both in INTENT events. root is the folder [Root]
// chose in snap.
func RequestIdentity(snap *index.Snapshot, root *index.RootSnapshot, req *Request) (correlationID, fingerprint string, err error) {
	if req == nil || root == nil || snap == nil {
		return "", "", errors.New("request identity: no request or root")
	}
	c, err := canonical(portableRequest(snap, root, req))
	if err != nil {
		return "", "", err
	}
	sum := sha256.Sum256(c)
	correlationID = req.CorrelationID
	if correlationID == "" {
		correlationID = derivedCorrelation(c)
	}
	return correlationID, hex.EncodeToString(sum[:]), nil
}

// derivedCorrelation is the correlation id of a request without one.
func derivedCorrelation(canonicalRequest []byte) string {
	return uuidOf("ctxd.correlation", string(canonicalRequest))
}

// configFingerprint is sha256 of the JCS form of the effective config with
// the contract, estimator and rule-set versions (docs/contract.md).
func configFingerprint(c Config, est *tokens.Estimator, r Redactor, pol *Policy) (string, error) {
	return fingerprint(struct {
		Contract  string `json:"contract_version"`
		Config    Config `json:"config"`
		Estimator string `json:"estimator"`
		Redactor  string `json:"redactor"`
		Policy    string `json:"policy,omitempty"`
	}{ContractVersion, c.withDefaults(), est.Note(), r.Version(), pol.digest()})
}

// bundleHash computes bundle_fingerprint — sha256 of the JCS (RFC 8785)
// form of the bundle without bundle_id and created_at — writing that form
// straight into the hash, one block at a time. It replaces encoding the
// bundle with encoding/json and canonicalizing the result, which built
// the whole bundle's text twice over; a manifest preview never holds the
// blocks at all. The JCS form of this fixed shape is simple: members in
// key order (every key is ASCII, so UTF-16 order is byte order), no
// whitespace, integers in decimal, strings as AppendJCSString writes
// them. TestBundleHashIsJCS checks it against the library.
//
// A build also keeps the canonical "blocks" array it hashed (keep): the
// recorded artifact and the reply reuse those bytes, so that the blocks,
// which are nearly all of a bundle, are written once per build.
type bundleHash struct {
	h    hash.Hash
	keep bool
	// buf holds canonical bytes not yet hashed; with keep, the whole
	// blocks array from its "[" on.
	buf []byte
	n   int
}

// flushAt is how many bytes a bundleHash without keep gathers before
// hashing them: large enough to amortize the calls, small enough that a
// manifest preview holds no bundle.
const flushAt = 32 << 10

// newBundleHash starts the JCS form: "blocks" is the first key. With
// keep, size is the expected length of the blocks' form, so that the kept
// buffer is allocated once rather than grown by doubling.
func newBundleHash(keep bool, size int) *bundleHash {
	b := &bundleHash{h: sha256.New(), keep: keep}
	b.h.Write([]byte(`{"blocks":`))
	if !keep {
		size = flushAt + 1024
	}
	b.buf = make([]byte, 0, size)
	b.buf = append(b.buf, '[')
	return b
}

// block adds the next block. A block without an id has no block_id
// member: the form hashed before ids exist (see jcsBundle in the tests).
func (b *bundleHash) block(x *Block) {
	if b.n > 0 {
		b.buf = append(b.buf, ',')
	}
	b.n++
	if b.keep || len(x.Content) < flushAt {
		b.buf = appendBlock(b.buf, x, true)
	} else {
		// A large content in a hash that keeps nothing is written in
		// pieces, so that the buffer stays at flushAt.
		b.buf = appendBlockHead(b.buf, x, true)
		b.buf = append(b.buf, '"')
		for s := x.Content; s != ""; {
			n := jcsCut(s, flushAt)
			b.buf = appendJCSChars(b.buf, s[:n])
			s = s[n:]
			b.h.Write(b.buf)
			b.buf = b.buf[:0]
		}
		b.buf = append(b.buf, '"')
		b.buf = appendBlockTail(b.buf, x)
	}
	if !b.keep && len(b.buf) >= flushAt {
		b.h.Write(b.buf)
		b.buf = b.buf[:0]
	}
}

// jcsCut returns where to cut s at or after n bytes so that both pieces
// escape as the whole does: before an ASCII byte, which never belongs to
// a multi-byte character (or to an invalid sequence encoding/json
// replaces). Source text finds one within a few bytes; text without any
// is not cut.
func jcsCut(s string, n int) int {
	for n < len(s) && s[n] >= utf8.RuneSelf {
		n++
	}
	return min(n, len(s))
}

// sum ends the JCS form with the members after "blocks" and returns the
// hex sha256. With keep, blocks is the canonical array, "[" to "]".
func (b *bundleHash) sum(version int, purpose Purpose, correlationID string, m Model) (fingerprint string, blocks []byte) {
	b.buf = append(b.buf, ']')
	b.h.Write(b.buf)
	var tail []byte
	tail = append(tail, `,"bundle_version":`...)
	tail = AppendJCSInt(tail, int64(version))
	tail = append(tail, `,"correlation_id":`...)
	tail = AppendJCSString(tail, correlationID)
	tail = append(tail, `,"model":`...)
	tail = appendModel(tail, &m)
	tail = append(tail, `,"purpose":`...)
	tail = AppendJCSString(tail, string(purpose))
	tail = append(tail, '}')
	b.h.Write(tail)
	if b.keep {
		blocks = b.buf
	}
	return hex.EncodeToString(b.h.Sum(nil)), blocks
}

// The canonical (RFC 8785) forms of the outputs. Each appends the JCS form
// of what encoding/json makes of the value — nil slices and pointers as
// null, every field present (none has omitempty) — with members in key
// order. TestCanonicalIsJCS checks each against the jcs module on values
// with every field filled at random, so a field added to a type without
// being added here fails it.

// canonBlocks is the canonical blocks array a build hashed, kept with its
// bundle. It is trusted only for the slice it was made from: a bundle
// whose Blocks were replaced, cut or extended since is written afresh.
type canonBlocks struct {
	data  []byte
	first *Block
	n     int
}

func (c *canonBlocks) valid(blocks []Block) bool {
	return c != nil && blocks != nil && len(blocks) == c.n && (c.n == 0 || &blocks[0] == c.first)
}

// AppendCanonical appends the RFC 8785 (JCS) form of the bundle's JSON
// encoding ("null" for a nil bundle). A bundle from [Build] reuses the
// canonical blocks its bundle_fingerprint hashed instead of writing them
// again; a caller that edits a block in place afterwards must not rely on
// this form.
func (b *Bundle) AppendCanonical(dst []byte) []byte {
	if b == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"blocks":`...)
	switch {
	case b.canon.valid(b.Blocks):
		dst = append(dst, b.canon.data...)
	case b.Blocks == nil:
		dst = append(dst, "null"...)
	default:
		dst = append(dst, '[')
		for i := range b.Blocks {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendBlock(dst, &b.Blocks[i], false)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"bundle_id":`...)
	dst = AppendJCSString(dst, b.BundleID)
	dst = append(dst, `,"bundle_version":`...)
	dst = AppendJCSInt(dst, int64(b.BundleVersion))
	dst = append(dst, `,"correlation_id":`...)
	dst = AppendJCSString(dst, b.CorrelationID)
	dst = append(dst, `,"created_at":`...)
	dst = AppendJCSString(dst, b.CreatedAt)
	dst = append(dst, `,"model":`...)
	dst = appendModel(dst, &b.Model)
	dst = append(dst, `,"purpose":`...)
	dst = AppendJCSString(dst, string(b.Purpose))
	return append(dst, '}')
}

// appendBlock appends a block; omitEmptyID leaves out an empty block_id,
// as the id-less form hashed for block ids does.
func appendBlock(dst []byte, x *Block, omitEmptyID bool) []byte {
	dst = appendBlockHead(dst, x, omitEmptyID)
	dst = AppendJCSString(dst, x.Content)
	return appendBlockTail(dst, x)
}

// appendBlockHead appends a block up to its content's value.
func appendBlockHead(dst []byte, x *Block, omitEmptyID bool) []byte {
	if x.BlockID != "" || !omitEmptyID {
		dst = append(dst, `{"block_id":`...)
		dst = AppendJCSString(dst, x.BlockID)
		dst = append(dst, `,"block_type":`...)
	} else {
		dst = append(dst, `{"block_type":`...)
	}
	dst = AppendJCSString(dst, string(x.BlockType))
	return append(dst, `,"content":`...)
}

// appendBlockTail appends a block after its content's value.
func appendBlockTail(dst []byte, x *Block) []byte {
	dst = append(dst, `,"meta":{"byte_size":`...)
	m := &x.Meta
	dst = AppendJCSInt(dst, m.ByteSize)
	dst = append(dst, `,"encoding":`...)
	dst = AppendJCSString(dst, m.Encoding)
	dst = append(dst, `,"hash":`...)
	dst = appendStringPtr(dst, m.Hash)
	dst = append(dst, `,"line_count":`...)
	dst = AppendJCSInt(dst, int64(m.LineCount))
	dst = append(dst, `,"path":`...)
	dst = appendStringPtr(dst, m.Path)
	dst = append(dst, `,"source":`...)
	dst = AppendJCSString(dst, string(m.Source))
	dst = append(dst, `,"symbol":`...)
	dst = appendStringPtr(dst, m.Symbol)
	dst = append(dst, `},"priority":`...)
	dst = AppendJCSString(dst, string(x.Priority))
	dst = append(dst, `,"title":`...)
	dst = AppendJCSString(dst, x.Title)
	return append(dst, '}')
}

func appendModel(dst []byte, m *Model) []byte {
	dst = append(dst, `{"max_input_tokens":`...)
	dst = AppendJCSInt(dst, int64(m.MaxInputTokens))
	dst = append(dst, `,"max_output_tokens":`...)
	dst = AppendJCSInt(dst, int64(m.MaxOutputTokens))
	dst = append(dst, `,"model":`...)
	dst = AppendJCSString(dst, m.Model)
	dst = append(dst, `,"provider":`...)
	dst = AppendJCSString(dst, m.Provider)
	dst = append(dst, `,"response_token_reserve":`...)
	dst = AppendJCSInt(dst, int64(m.ResponseTokenReserve))
	dst = append(dst, `,"soft_limit_threshold_pct":`...)
	dst = AppendJCSInt(dst, int64(m.SoftLimitThresholdPct))
	return append(dst, '}')
}

// AppendCanonical appends the RFC 8785 (JCS) form of the manifest's JSON
// encoding ("null" for a nil manifest).
func (m *Manifest) AppendCanonical(dst []byte) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"bundle_id":`...)
	dst = AppendJCSString(dst, m.BundleID)
	dst = append(dst, `,"correlation_id":`...)
	dst = AppendJCSString(dst, m.CorrelationID)
	f := &m.Fingerprints
	dst = append(dst, `,"fingerprints":{"bundle_fingerprint":`...)
	dst = AppendJCSString(dst, f.BundleFingerprint)
	dst = append(dst, `,"config_fingerprint":`...)
	dst = AppendJCSString(dst, f.ConfigFingerprint)
	dst = append(dst, `,"project_index_fingerprint":`...)
	dst = AppendJCSString(dst, f.ProjectIndexFingerprint)
	dst = append(dst, `},"purpose":`...)
	dst = AppendJCSString(dst, string(m.Purpose))
	s := &m.Selection
	dst = append(dst, `,"selection":{"excluded_candidates":`...)
	dst = appendArray(dst, s.ExcludedCandidates, func(dst []byte, e *Excluded) []byte {
		dst = append(dst, `{"path":`...)
		dst = AppendJCSString(dst, e.Path)
		dst = append(dst, `,"reason":`...)
		dst = AppendJCSString(dst, string(e.Reason))
		return append(dst, '}')
	})
	dst = append(dst, `,"included_files":`...)
	dst = appendArray(dst, s.IncludedFiles, func(dst []byte, f *IncludedFile) []byte {
		dst = append(dst, `{"byte_size":`...)
		dst = AppendJCSInt(dst, f.ByteSize)
		dst = append(dst, `,"encoding":`...)
		dst = AppendJCSString(dst, f.Encoding)
		dst = append(dst, `,"hash":`...)
		dst = AppendJCSString(dst, f.Hash)
		dst = append(dst, `,"path":`...)
		dst = AppendJCSString(dst, f.Path)
		dst = append(dst, `,"reason":`...)
		dst = AppendJCSString(dst, string(f.Reason))
		return append(dst, '}')
	})
	dst = append(dst, `,"target_files":`...)
	dst = appendStrings(dst, s.TargetFiles)
	dst = append(dst, `,"target_symbols":`...)
	dst = appendStrings(dst, s.TargetSymbols)
	return append(dst, "}}"...)
}

// AppendCanonical appends the RFC 8785 (JCS) form of the report's JSON
// encoding ("null" for a nil report).
func (r *RedactionReport) AppendCanonical(dst []byte) []byte {
	if r == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"bundle_id":`...)
	dst = AppendJCSString(dst, r.BundleID)
	dst = append(dst, `,"redactions":`...)
	dst = appendArray(dst, r.Redactions, func(dst []byte, x *Redaction) []byte {
		dst = append(dst, `{"details":`...)
		dst = AppendJCSString(dst, x.Details)
		dst = append(dst, `,"reason":`...)
		dst = AppendJCSString(dst, string(x.Reason))
		dst = append(dst, `,"target":`...)
		dst = AppendJCSString(dst, x.Target)
		dst = append(dst, `,"type":`...)
		dst = AppendJCSString(dst, string(x.Type))
		return append(dst, '}')
	})
	return append(dst, '}')
}

// AppendCanonical appends the RFC 8785 (JCS) form of the report's JSON
// encoding ("null" for a nil report).
func (r *BudgetReport) AppendCanonical(dst []byte) []byte {
	if r == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"bundle_id":`...)
	dst = AppendJCSString(dst, r.BundleID)
	dst = append(dst, `,"decision":`...)
	dst = AppendJCSString(dst, string(r.Decision))
	dst = append(dst, `,"estimated_input_tokens":`...)
	dst = AppendJCSInt(dst, int64(r.EstimatedInputTokens))
	dst = append(dst, `,"hard_limit_tokens":`...)
	dst = AppendJCSInt(dst, int64(r.HardLimitTokens))
	dst = append(dst, `,"max_input_tokens":`...)
	dst = AppendJCSInt(dst, int64(r.MaxInputTokens))
	dst = append(dst, `,"notes":`...)
	dst = appendStrings(dst, r.Notes)
	dst = append(dst, `,"reserve_output_tokens":`...)
	dst = AppendJCSInt(dst, int64(r.ReserveOutputTokens))
	dst = append(dst, `,"soft_limit_tokens":`...)
	dst = AppendJCSInt(dst, int64(r.SoftLimitTokens))
	return append(dst, '}')
}

// AppendCanonical appends the RFC 8785 (JCS) form of the result's JSON
// encoding ("null" for a nil result): the bytes a client receives as
// ctxd.buildContext's result, and the parts of the recorded artifact.
func (r *Result) AppendCanonical(dst []byte) []byte {
	if r == nil {
		return append(dst, "null"...)
	}
	if r.Bundle != nil && r.Bundle.canon != nil {
		// The blocks are nearly all of it: grow once.
		dst = slices.Grow(dst, len(r.Bundle.canon.data)+16<<10)
	}
	dst = append(dst, `{"budget_report":`...)
	dst = r.BudgetReport.AppendCanonical(dst)
	dst = append(dst, `,"bundle":`...)
	dst = r.Bundle.AppendCanonical(dst)
	dst = append(dst, `,"manifest":`...)
	dst = r.Manifest.AppendCanonical(dst)
	dst = append(dst, `,"redaction_report":`...)
	dst = r.RedactionReport.AppendCanonical(dst)
	return append(dst, '}')
}

// appendArray appends a JSON array of xs, each written by f; a nil slice
// is null, as encoding/json writes it.
func appendArray[T any](dst []byte, xs []T, f func([]byte, *T) []byte) []byte {
	if xs == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = f(dst, &xs[i])
	}
	return append(dst, ']')
}

func appendStrings(dst []byte, xs []string) []byte {
	return appendArray(dst, xs, func(dst []byte, s *string) []byte { return AppendJCSString(dst, *s) })
}

func appendStringPtr(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return AppendJCSString(dst, *s)
}

// AppendJCSInt appends an integer as JCS writes a JSON number: the
// shortest form of the IEEE 754 double nearest to it, which is its
// decimal digits up to 2^53.
func AppendJCSInt(dst []byte, v int64) []byte {
	if v >= -1<<53 && v <= 1<<53 {
		return strconv.AppendInt(dst, v, 10)
	}
	s, _ := jcs.NumberToJSON(float64(v)) // an int64 is always a finite number
	return append(dst, s...)
}

// AppendJCSString appends s as the JCS form of its encoding/json string:
// invalid UTF-8 becomes U+FFFD (as encoding/json makes it), '"' and '\\'
// and the control characters are escaped (\b \f \n \r \t, else \u00xx),
// and everything else — '<', U+2028, any non-ASCII character — is
// written as it is.
func AppendJCSString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendJCSChars(dst, s)
	return append(dst, '"')
}

// appendJCSChars appends the characters of AppendJCSString's form of s,
// without the quotes.
func appendJCSChars(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, "\uFFFD"...)
				start = i + 1
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	return append(dst, s[start:]...)
}
