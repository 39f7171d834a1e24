package contextbuilder

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// jcsBundle is the bundle without bundle_id and created_at as the JSON
// value whose JCS form bundle_fingerprint hashes: the reference that
// bundleHash must agree with.
func jcsBundle(b *Bundle) any {
	type block struct {
		BlockID   string    `json:"block_id,omitempty"`
		BlockType BlockType `json:"block_type"`
		Priority  Priority  `json:"priority"`
		Title     string    `json:"title"`
		Content   string    `json:"content"`
		Meta      BlockMeta `json:"meta"`
	}
	type bundle struct {
		BundleVersion int     `json:"bundle_version"`
		Purpose       Purpose `json:"purpose"`
		CorrelationID string  `json:"correlation_id"`
		Model         Model   `json:"model"`
		Blocks        []block `json:"blocks"`
	}
	out := bundle{BundleVersion: b.BundleVersion, Purpose: b.Purpose, CorrelationID: b.CorrelationID, Model: b.Model, Blocks: []block{}}
	for _, x := range b.Blocks {
		out.Blocks = append(out.Blocks, block(x))
	}
	return out
}

// trickyPieces are the strings where encoding/json, JCS and a hand-written
// encoder could disagree.
var trickyPieces = []string{
	"", "a", "package main\n", "\"quoted\"", `back\slash`, "<html>&amp;", "\u2028\u2029",
	"\x00\x01\x1f\x7f", "\b\f\n\r\t", "é", "日本語", "😀", "\xff", "\xed\xa0\x80", "a\xc3", "\ufffd",
	"[REDACTED:generic-api-key]", "\u202e", "\U000E0041",
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(trickyPieces[r.IntN(len(trickyPieces))])
	}
	return b.String()
}

func randomBundle(r *rand.Rand) *Bundle {
	opt := func() *string {
		if r.IntN(3) == 0 {
			return nil
		}
		return ptr(randomText(r))
	}
	b := &Bundle{
		BundleVersion: r.IntN(3),
		Purpose:       Purpose(randomText(r)),
		CorrelationID: randomText(r),
		Model:         Model{Provider: randomText(r), Model: randomText(r), MaxInputTokens: r.IntN(1 << 20), MaxOutputTokens: r.IntN(1000), ResponseTokenReserve: r.IntN(10), SoftLimitThresholdPct: r.IntN(101)},
	}
	for range r.IntN(5) {
		blk := Block{BlockType: BlockType(randomText(r)), Priority: Priority(randomText(r)), Title: randomText(r), Content: randomText(r),
			Meta: BlockMeta{Path: opt(), Symbol: opt(), Hash: opt(), Encoding: randomText(r), ByteSize: r.Int64N(1 << 40), LineCount: r.IntN(1 << 16), Source: Source(randomText(r))}}
		if r.IntN(4) > 0 {
			blk.BlockID = randomText(r)
		}
		b.Blocks = append(b.Blocks, blk)
	}
	return b
}

// TestBundleHashIsJCS: the streamed bundle_fingerprint equals sha256 of
// the JCS library's canonical form of the bundle's JSON encoding.
func TestBundleHashIsJCS(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		b := randomBundle(r)
		if i == 0 {
			b.Model.MaxInputTokens = 1<<53 + 1 // past exact doubles
			b.Blocks = append(b.Blocks, Block{Meta: BlockMeta{ByteSize: -(1<<62 + 3)}})
		}
		want, err := fingerprint(jcsBundle(b))
		if err != nil {
			t.Fatal(err)
		}
		got, err := BundleFingerprint(b)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			c, _ := canonical(jcsBundle(b))
			t.Fatalf("bundle %d: streamed fingerprint %s, JCS %s; JCS form:\n%s", i, got, want, c)
		}
	}
}

// FuzzBundleHash: for any title and content, the streamed fingerprint is
// the JCS one.
func FuzzBundleHash(f *testing.F) {
	for _, s := range trickyPieces {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, title, content string) {
		b := &Bundle{BundleVersion: 1, Purpose: PurposeDiff, Blocks: []Block{{BlockID: "x", BlockType: BlockFile, Priority: P0, Title: title, Content: content, Meta: BlockMeta{Path: ptr(title)}}}}
		want, err := fingerprint(jcsBundle(b))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := BundleFingerprint(b); got != want {
			t.Fatalf("streamed fingerprint %s, JCS %s", got, want)
		}
	})
}
