package secrets

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
)

// gitleaksConfig is the part of a gitleaks v8 configuration that ctxd
// reads. Everything else ([extend], [allowlist], [[allowlists]], per-rule
// allowlists, tags, required rules, …) is decoded into ignored fields or
// skipped.
type gitleaksConfig struct {
	Rules []gitleaksRule `toml:"rules"`
}

type gitleaksRule struct {
	ID          string   `toml:"id"`
	Description string   `toml:"description"`
	Regex       string   `toml:"regex"`
	SecretGroup int      `toml:"secretGroup"`
	Entropy     float64  `toml:"entropy"`
	Keywords    []string `toml:"keywords"`
	Path        string   `toml:"path"`
}

// ParseGitleaksTOML reads the [[rules]] of a gitleaks v8 configuration as
// extra rules for [New]. ctxd's user rules are additive only, so every
// part of the format that removes or narrows findings is ignored:
// [allowlist], [[allowlists]], [rules.allowlist], [[rules.allowlists]],
// stopwords, [extend] (its disabledRules included), skipReport and
// [[rules.required]] (a composite rule reports its primary match alone).
// A rule's path is ignored too (the rule applies to every file); a rule
// with a path and no regex cannot be applied to text and is an error.
//
// Conversion:
//   - id is lower-cased, and characters outside [a-z0-9._-] become '-';
//   - keywords are lower-cased, as gitleaks does;
//   - secretGroup is kept; when it is 0 and the regex has exactly one
//     capture group, that group is the secret (gitleaks takes the first
//     non-empty group; with several groups ctxd takes the whole match, a
//     superset);
//   - gitleaks matches a regex against the whole text, so a rule whose
//     regex can match a line break is Multiline;
//   - the kind is Prefixed when every literal prefix the secret (its
//     group, or the whole match) can start with begins with one of the
//     keywords (ghp_…, AKIA…, xoxb-…), else Contextual (allowlists of
//     placeholders then apply);
//   - entropy is kept (ctxd keeps a value whose entropy equals the floor,
//     gitleaks drops it).
//
// The result has no samples. Errors name the rule.
func ParseGitleaksTOML(data []byte) ([]Rule, error) {
	var cfg gitleaksConfig
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return nil, fmt.Errorf("gitleaks config: %w", err)
	}
	out := make([]Rule, 0, len(cfg.Rules))
	for i, g := range cfg.Rules {
		name := fmt.Sprintf("gitleaks rule %q", g.ID)
		if g.ID == "" {
			name = fmt.Sprintf("gitleaks rule #%d", i+1)
			return nil, fmt.Errorf("%s: no id", name)
		}
		if g.Regex == "" {
			if g.Path != "" {
				return nil, fmt.Errorf("%s: path-only rules are not supported (ctxd scans text)", name)
			}
			return nil, fmt.Errorf("%s: no regex", name)
		}
		re, err := syntax.Parse(g.Regex, syntax.Perl)
		if err != nil {
			return nil, fmt.Errorf("%s: regex: %w", name, err)
		}
		r := Rule{
			ID:          gitleaksID(g.ID),
			Description: g.Description,
			Kind:        Contextual,
			Regex:       g.Regex,
			SecretGroup: g.SecretGroup,
			Entropy:     g.Entropy,
			Multiline:   canMatchNewline(re),
		}
		if r.Description == "" {
			r.Description = "gitleaks rule " + g.ID
		}
		for _, k := range g.Keywords {
			if k = asciiLowerString(k); k != "" && !strings.ContainsAny(k, "\r\n") {
				r.Keywords = append(r.Keywords, k)
			}
		}
		if r.SecretGroup == 0 {
			if c, err := regexp.Compile(g.Regex); err == nil && c.NumSubexp() == 1 {
				r.SecretGroup = 1
			}
		}
		secret := re
		if r.SecretGroup > 0 {
			secret = findCapture(re, r.SecretGroup)
		}
		if secret != nil && prefixedBy(secret, r.Keywords) {
			r.Kind = Prefixed
		}
		out = append(out, r)
	}
	return out, nil
}

// gitleaksID maps a gitleaks id to a ctxd rule id.
func gitleaksID(id string) string {
	b := []byte(asciiLowerString(id))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	if len(b) > 0 && (b[0] == '.' || b[0] == '_' || b[0] == '-') {
		b = append([]byte("x"), b...)
	}
	return string(b)
}

// prefixedBy reports whether every literal prefix re can start with begins
// with one of keywords.
func prefixedBy(re *syntax.Regexp, keywords []string) bool {
	if len(keywords) == 0 {
		return false
	}
	set, _ := literalPrefixes(re.Simplify(), false)
	if len(set) == 0 {
		return false
	}
	for _, p := range set {
		ok := false
		for _, k := range keywords {
			if strings.HasPrefix(p, k) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// findCapture returns the capture group n of re, or nil.
func findCapture(re *syntax.Regexp, n int) *syntax.Regexp {
	if re.Op == syntax.OpCapture && re.Cap == n {
		return re
	}
	for _, sub := range re.Sub {
		if c := findCapture(sub, n); c != nil {
			return c
		}
	}
	return nil
}

// maxPrefixes bounds the expansion of literal prefixes.
const maxPrefixes = 64

// literalPrefixes returns the lower-cased literal strings re can start
// with and whether they are exact (re matches exactly those strings, so a
// following expression extends them). An empty string in the set means re
// can start with something that is not a literal. With strict, the set is
// also exact for the prefilter's ASCII-only case folding: a
// case-insensitive literal with a non-ASCII fold (k: K, s: ſ, é: É) is
// not a literal.
func literalPrefixes(re *syntax.Regexp, strict bool) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if strict && re.Flags&syntax.FoldCase != 0 {
			for _, r := range re.Rune {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					if f > unicode.MaxASCII {
						return []string{""}, false
					}
				}
			}
		}
		return []string{asciiLowerString(string(re.Rune))}, true
	case syntax.OpCharClass:
		var set []string
		seen := map[string]bool{}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] > maxPrefixes {
				return []string{""}, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				s := asciiLowerString(string(r))
				if !seen[s] {
					seen[s] = true
					set = append(set, s)
				}
			}
		}
		if len(set) == 0 || len(set) > maxPrefixes {
			return []string{""}, false
		}
		return set, true
	case syntax.OpCapture:
		return literalPrefixes(re.Sub[0], strict)
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpConcat:
		set := []string{""}
		for _, sub := range re.Sub {
			s, exact := literalPrefixes(sub, strict)
			if len(set)*len(s) > maxPrefixes {
				return set, false
			}
			var next []string
			for _, a := range set {
				for _, b := range s {
					next = append(next, a+b)
				}
			}
			set = next
			if !exact {
				return set, false
			}
		}
		return set, true
	case syntax.OpAlternate:
		var set []string
		exact := true
		for _, sub := range re.Sub {
			s, e := literalPrefixes(sub, strict)
			set = append(set, s...)
			exact = exact && e
			if len(set) > maxPrefixes {
				return []string{""}, false
			}
		}
		return set, exact
	case syntax.OpPlus:
		s, _ := literalPrefixes(re.Sub[0], strict)
		return s, false
	case syntax.OpRepeat:
		if re.Min >= 1 {
			s, _ := literalPrefixes(re.Sub[0], strict)
			return s, false
		}
	}
	return []string{""}, false
}

// canMatchNewline reports whether re can match a '\n'.
func canMatchNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return strings.ContainsRune(string(re.Rune), '\n')
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
		return false
	case syntax.OpAnyChar:
		return true
	}
	for _, sub := range re.Sub {
		if canMatchNewline(sub) {
			return true
		}
	}
	return false
}
