package contextbuilder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/randfill"

	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"
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

// TestBundleHashLongContent: contents longer than the buffer of a hash
// that keeps nothing are written in pieces; cut next to multi-byte
// characters, invalid UTF-8 and escapes, they still hash as the JCS form,
// and as a kept form does.
func TestBundleHashLongContent(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 40 {
		var sb strings.Builder
		for sb.Len() < flushAt*(1+i%3)+r.IntN(flushAt) {
			if r.IntN(3) == 0 {
				sb.WriteString(trickyPieces[r.IntN(len(trickyPieces))])
			} else {
				sb.WriteString(strings.Repeat("é日\xff"[r.IntN(3):], r.IntN(8)))
				sb.WriteString(strings.Repeat("x", r.IntN(64)))
			}
		}
		if i == 0 {
			sb.Reset()
			sb.WriteString(strings.Repeat("日本", flushAt)) // no ASCII byte to cut at
		}
		b := &Bundle{BundleVersion: 1, Purpose: PurposeDiff, Blocks: []Block{
			{BlockID: "a", BlockType: BlockFile, Priority: P0, Title: "t", Content: sb.String()},
			{BlockID: "b", BlockType: BlockFile, Priority: P0, Title: "u", Content: sb.String()[r.IntN(64):]},
		}}
		want, err := fingerprint(jcsBundle(b))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := BundleFingerprint(b); got != want {
			t.Fatalf("content %d (%d bytes): streamed fingerprint %s, JCS %s", i, sb.Len(), got, want)
		}
		h := newBundleHash(true, 0)
		for k := range b.Blocks {
			h.block(&b.Blocks[k])
		}
		if got, _ := h.sum(b.BundleVersion, b.Purpose, b.CorrelationID, b.Model); got != want {
			t.Fatalf("content %d: kept fingerprint %s, JCS %s", i, got, want)
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

// fillRandom fills v with strings from randomText (randfill.Fill).
func fillRandom(r *rand.Rand, v reflect.Value) { randfill.Fill(r, v, randomText) }

// jcsOf is the jcs module's canonical form of v's encoding/json form.
func jcsOf(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	c, err := jcs.Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCanonicalIsJCS: each output's AppendCanonical writes exactly the
// jcs module's canonical form of its JSON encoding, for values with every
// field filled at random (nil slices and pointers included) and for nil.
func TestCanonicalIsJCS(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	check := func(name string, v any, got []byte) {
		t.Helper()
		if want := jcsOf(t, v); !bytes.Equal(got, want) {
			t.Fatalf("%s: AppendCanonical differs from the jcs module (-want +got):\n%s", name, cmp.Diff(string(want), string(got)))
		}
	}
	for range 500 {
		var b Bundle
		fillRandom(r, reflect.ValueOf(&b).Elem())
		check("Bundle", &b, b.AppendCanonical(nil))
		var m Manifest
		fillRandom(r, reflect.ValueOf(&m).Elem())
		check("Manifest", &m, m.AppendCanonical(nil))
		var rr RedactionReport
		fillRandom(r, reflect.ValueOf(&rr).Elem())
		check("RedactionReport", &rr, rr.AppendCanonical(nil))
		var br BudgetReport
		fillRandom(r, reflect.ValueOf(&br).Elem())
		check("BudgetReport", &br, br.AppendCanonical(nil))
		var res Result
		fillRandom(r, reflect.ValueOf(&res).Elem())
		check("Result", &res, res.AppendCanonical(nil))
	}
	check("nil Result", (*Result)(nil), (*Result)(nil).AppendCanonical(nil))
	check("nil Bundle", (*Bundle)(nil), (*Bundle)(nil).AppendCanonical(nil))
}

// TestCanonicalBlocksReused: a bundle keeps the canonical blocks its
// fingerprint hashed, uses them while its Blocks are the slice they were
// made from, and writes the blocks afresh once Blocks is replaced or cut.
func TestCanonicalBlocksReused(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	b := randomBundle(r)
	for len(b.Blocks) < 2 {
		b = randomBundle(r)
	}
	for i := range b.Blocks {
		b.Blocks[i].BlockID = fmt.Sprint("id-", i)
	}
	h := newBundleHash(true, 0)
	for i := range b.Blocks {
		h.block(&b.Blocks[i])
	}
	fp, kept := h.sum(b.BundleVersion, b.Purpose, b.CorrelationID, b.Model)
	if want, _ := BundleFingerprint(b); fp != want {
		t.Fatalf("keeping the blocks changed the fingerprint: %s, want %s", fp, want)
	}
	b.canon = &canonBlocks{data: []byte(`["kept"]`), first: &b.Blocks[0], n: len(b.Blocks)}
	if got := string(b.AppendCanonical(nil)); !strings.HasPrefix(got, `{"blocks":["kept"],`) {
		t.Errorf("the kept blocks are not used: %.60s", got)
	}
	b.canon.data = kept
	if got, want := b.AppendCanonical(nil), jcsOf(t, b); !bytes.Equal(got, want) {
		t.Errorf("with the kept blocks (-want +got):\n%s", cmp.Diff(string(want), string(got)))
	}
	b.Blocks = b.Blocks[:1]
	if got, want := b.AppendCanonical(nil), jcsOf(t, b); !bytes.Equal(got, want) {
		t.Errorf("after cutting Blocks, the kept form is still used (-want +got):\n%s", cmp.Diff(string(want), string(got)))
	}
	b.Blocks = slices.Clone(b.Blocks)
	if got, want := b.AppendCanonical(nil), jcsOf(t, b); !bytes.Equal(got, want) {
		t.Errorf("after replacing Blocks, the kept form is still used (-want +got):\n%s", cmp.Diff(string(want), string(got)))
	}
}
