package contextbuilder

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
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
	h := newBundleHash()
	for i := range b.Blocks {
		h.block(&b.Blocks[i])
	}
	return h.sum(b.BundleVersion, b.Purpose, b.CorrelationID, b.Model), nil
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
// whitespace, integers in decimal, strings as canonicalString writes
// them. TestBundleHashIsJCS checks it against the library.
type bundleHash struct {
	h hash.Hash
	w *bufio.Writer
	n int
}

// newBundleHash starts the JCS form: "blocks" is the first key.
func newBundleHash() *bundleHash {
	h := sha256.New()
	b := &bundleHash{h: h, w: bufio.NewWriterSize(h, 4096)}
	b.w.WriteString(`{"blocks":[`)
	return b
}

// block adds the next block. A block without an id has no block_id
// member (omitempty, as in the JSON form).
func (b *bundleHash) block(x *Block) {
	if b.n > 0 {
		b.w.WriteByte(',')
	}
	b.n++
	if x.BlockID != "" {
		b.key("block_id", true)
		b.str(x.BlockID)
	}
	b.key("block_type", x.BlockID == "")
	b.str(string(x.BlockType))
	b.key("content", false)
	b.str(x.Content)
	b.key("meta", false)
	b.meta(&x.Meta)
	b.key("priority", false)
	b.str(string(x.Priority))
	b.key("title", false)
	b.str(x.Title)
	b.w.WriteByte('}')
}

func (b *bundleHash) meta(m *BlockMeta) {
	b.key("byte_size", true)
	b.int(m.ByteSize)
	b.key("encoding", false)
	b.str(m.Encoding)
	b.key("hash", false)
	b.strPtr(m.Hash)
	b.key("line_count", false)
	b.int(int64(m.LineCount))
	b.key("path", false)
	b.strPtr(m.Path)
	b.key("source", false)
	b.str(string(m.Source))
	b.key("symbol", false)
	b.strPtr(m.Symbol)
	b.w.WriteByte('}')
}

// sum ends the JCS form with the members after "blocks" and returns the
// hex sha256.
func (b *bundleHash) sum(version int, purpose Purpose, correlationID string, m Model) string {
	b.w.WriteString(`],"bundle_version":`)
	b.int(int64(version))
	b.w.WriteString(`,"correlation_id":`)
	b.str(correlationID)
	b.w.WriteString(`,"model":`)
	b.key("max_input_tokens", true)
	b.int(int64(m.MaxInputTokens))
	b.key("max_output_tokens", false)
	b.int(int64(m.MaxOutputTokens))
	b.key("model", false)
	b.str(m.Model)
	b.key("provider", false)
	b.str(m.Provider)
	b.key("response_token_reserve", false)
	b.int(int64(m.ResponseTokenReserve))
	b.key("soft_limit_threshold_pct", false)
	b.int(int64(m.SoftLimitThresholdPct))
	b.w.WriteString(`},"purpose":`)
	b.str(string(purpose))
	b.w.WriteByte('}')
	b.w.Flush()
	return hex.EncodeToString(b.h.Sum(nil))
}

// key writes an object member's name; first opens the object instead of
// separating the member from the previous one.
func (b *bundleHash) key(name string, first bool) {
	if first {
		b.w.WriteByte('{')
	} else {
		b.w.WriteByte(',')
	}
	b.w.WriteByte('"')
	b.w.WriteString(name)
	b.w.WriteString(`":`)
}

func (b *bundleHash) strPtr(s *string) {
	if s == nil {
		b.w.WriteString("null")
		return
	}
	b.str(*s)
}

func (b *bundleHash) str(s string) { canonicalString(b.w, s) }

// int writes an integer as JCS does: as the shortest form of the IEEE 754
// double nearest to it, which is its decimal digits up to 2^53.
func (b *bundleHash) int(v int64) {
	if v >= -1<<53 && v <= 1<<53 {
		var buf [20]byte
		b.w.Write(strconv.AppendInt(buf[:0], v, 10))
		return
	}
	s, _ := jcs.NumberToJSON(float64(v)) // an int64 is always a finite number
	b.w.WriteString(s)
}

// canonicalString writes s as a JCS string of its encoding/json form:
// invalid UTF-8 becomes U+FFFD (as encoding/json makes it), '"' and '\\'
// and the control characters are escaped (\b \f \n \r \t, else \u00xx),
// and everything else — '<', U+2028, any non-ASCII character — is written
// as it is.
func canonicalString(w *bufio.Writer, s string) {
	const hexDigits = "0123456789abcdef"
	w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				w.WriteString(s[start:i])
				w.WriteString("\uFFFD")
				start = i + 1
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		w.WriteString(s[start:i])
		switch c {
		case '"', '\\':
			w.WriteByte('\\')
			w.WriteByte(c)
		case '\b':
			w.WriteString(`\b`)
		case '\f':
			w.WriteString(`\f`)
		case '\n':
			w.WriteString(`\n`)
		case '\r':
			w.WriteString(`\r`)
		case '\t':
			w.WriteString(`\t`)
		default:
			w.WriteString(`\u00`)
			w.WriteByte(hexDigits[c>>4])
			w.WriteByte(hexDigits[c&0xf])
		}
		i++
		start = i
	}
	w.WriteString(s[start:])
	w.WriteByte('"')
}
