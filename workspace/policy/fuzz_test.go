package policy

import (
	"errors"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	f.Add([]byte(fullConfig))
	f.Add([]byte(`{"schema_version": "1"}`))
	f.Add([]byte(``))
	f.Add([]byte(`{"schema_version": "1", "context": {"max_refs": 1e3}}`))
	f.Add([]byte(strings.Replace(globalPolicy, "%s", `{"max_items": 0, "namespaces": {"src": ["src/**"]}}`, 1)))
	for _, tt := range invalidCases {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Reason != ReasonInvalid || e.Path != ConfigPath || e.Message == "" {
				t.Fatalf("Parse error %#v is not a complete ReasonInvalid *Error", err)
			}
			return
		}
		again, err := Parse(c.Canonical)
		if err != nil {
			t.Fatalf("Parse(Canonical) = %v\ncanonical: %s", err, c.Canonical)
		}
		if again.Digest != c.Digest {
			t.Fatalf("digest %s after re-parsing Canonical, want %s", again.Digest, c.Digest)
		}
		// Every skill either yields rules or an override error; neither
		// may panic.
		if c.File.Policy != nil {
			for _, s := range append(sortedKeys(c.File.Policy.Skills), "") {
				r, err := c.Rules(s)
				if err != nil {
					var e *Error
					if !errors.As(err, &e) || e.Reason != ReasonOverrideInvalid {
						t.Fatalf("Rules(%q) = %v", s, err)
					}
					continue
				}
				r.Allowed("src/a.go")
				r.Namespaces("docs/x.md")
			}
		}
	})
}
