package contextbuilder

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

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
	return fingerprint(fpBundle(b))
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
	p := &pipeline{req: req, root: root, snap: snap}
	c, err := canonical(p.portableRequest())
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
