package workspace

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ctxd/ctxd/internal/randfill"

	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"
)

// randomStrings are the strings where encoding/json, JCS and a
// hand-written encoder could disagree.
var randomStrings = []string{"", "a", "line\n", `"q"`, `b\s`, "<&>", "\u2028", "\x00\x1f\x7f", "é😀", "\xff", "\ufffd"}

// fill sets every exported field reachable from v to a random value
// (randfill.Fill, strings from pairs of randomStrings), so that a field
// added to the artifact (or to a builder output inside it) without being
// added to its canonical writer fails the test.
func fill(r *rand.Rand, v reflect.Value) {
	randfill.Fill(r, v, func(r *rand.Rand) string {
		return randomStrings[r.IntN(len(randomStrings))] + randomStrings[r.IntN(len(randomStrings))]
	})
}

// TestContextArtifactIsJCS: the bytes the store writes for a contexts
// artifact are exactly the jcs module's canonical form of its JSON
// encoding, for artifacts with every field filled at random.
func TestContextArtifactIsJCS(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 500 {
		var a contextArtifact
		fill(r, reflect.ValueOf(&a).Elem())
		if i%3 == 0 {
			a.ThreadID = "" // omitted
		}
		raw, err := json.Marshal(&a)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jcs.Transform(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.canonical(); !bytes.Equal(got, want) {
			t.Fatalf("artifact %d: canonical differs from the jcs module (-want +got):\n%s", i, cmp.Diff(string(want), string(got)))
		}
		// The bytes a build writes, in a buffer an earlier artifact of
		// another size used.
		err = a.withCanonical(func(got []byte) error {
			if !bytes.Equal(got, want) {
				t.Fatalf("artifact %d: withCanonical differs from the jcs module (-want +got):\n%s", i, cmp.Diff(string(want), string(got)))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
