package ignore

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzGitConfig parses random git config text. Nothing may panic, parsing
// is deterministic, sections and keys come out lower-case in git's
// alphabet, and whatever parses writes back (every value quoted and
// escaped) to text that parses to the same entries.
func FuzzGitConfig(f *testing.F) {
	f.Add([]byte("[core]\n\texcludesFile = ~/.gitignore_global\n"))
	f.Add([]byte("\xEF\xBB\xBF; c\n[CORE \"Sub \\\" x\"] key = \"a ; b\" # c\r\n[core.Legacy]\nbare\n"))
	f.Add([]byte("[include]\npath = a\\\n  b\\tc\\n\\\\ \\\"\n[x]k=  v  w  \n"))
	f.Add([]byte("[a]\nk = \"unterminated\n"))
	f.Add([]byte("k = outside\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parse := func(b []byte) ([]configEntry, error) {
			var out []configEntry
			err := parseGitConfig(b, func(e configEntry) error {
				out = append(out, e)
				return nil
			})
			return out, err
		}
		first, err := parse(data)
		again, err2 := parse(data)
		if (err == nil) != (err2 == nil) || !cmp.Equal(first, again, cmp.AllowUnexported(configEntry{})) {
			t.Fatalf("not deterministic: %v / %v", err, err2)
		}
		if err != nil {
			return
		}
		var b strings.Builder
		for _, e := range first {
			for _, s := range []string{e.section, e.key} {
				if s == "" || strings.ToLower(s) != s || strings.ContainsFunc(s, func(r rune) bool {
					return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' || r == '.')
				}) {
					t.Fatalf("section or key %q outside git's alphabet", s)
				}
			}
			b.WriteString("[" + e.section)
			if e.subsection != "" {
				b.WriteString(` "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(e.subsection) + `"`)
			}
			b.WriteString("]\n" + e.key)
			if e.hasValue {
				b.WriteString(` = "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\b", `\b`).Replace(e.value) + `"`)
			}
			b.WriteString("\n")
		}
		back, err := parse([]byte(b.String()))
		if err != nil {
			t.Fatalf("written back %q does not parse: %v", b.String(), err)
		}
		if diff := cmp.Diff(first, back, cmp.AllowUnexported(configEntry{})); diff != "" {
			t.Fatalf("round trip of %q (-parsed +written back):\n%s", b.String(), diff)
		}
	})
}
