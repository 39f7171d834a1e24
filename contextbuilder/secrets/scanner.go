package secrets

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctxd/ctxd/internal/strictjson"
	"github.com/gowebpki/jcs"
)

// ErrUndecodable is returned (wrapped with the path) for text that is not
// valid UTF-8 or holds a NUL byte (UTF-16, binary data): such text is
// refused rather than skipped, since it cannot be proven free of secrets.
var ErrUndecodable = errors.New("text cannot be decoded for scanning")

//go:embed rules.json
var builtinJSON []byte

// ruleFile is the format of rules.json.
type ruleFile struct {
	Version string `json:"version"`
	Rules   []Rule `json:"rules"`
}

// Scanner applies a rule set to texts. It is immutable and safe for
// concurrent use; every rule is compiled once, when the Scanner is made.
type Scanner struct {
	version string
	rules   []compiled // sorted by ID
	pf      *prefilter // nil when no rule has keywords
	// kwRules maps a prefilter keyword index to the rules holding it.
	kwRules [][]int32
	// kwStarts maps a prefilter keyword index to the anchored rules (see
	// compiled.starts) that it is a start literal of.
	kwStarts [][]int32
	// always are the rules without keywords: they run on every line.
	always []int32
}

// compiled is a Rule ready to run.
type compiled struct {
	Rule
	re         *regexp.Regexp
	key        *regexp.Regexp // keyed rules: the key's expression
	open       *regexp.Regexp // nil: no unterminated-block check
	prefixed   bool
	pem        bool // has the "pem" validator: a key block
	validators []validator
	// starts, for a Multiline rule whose regex has no literal prefix of
	// its own but whose every match starts with one of a few literals
	// (machine|default), are those literals, in ASCII lower case. The
	// prefilter finds their occurrences, and the regex is tried only
	// there, anchored: anchored at offset 0, anchoredCtx (one rune of
	// left context, for \b and ^) elsewhere. This gives FindAll's matches
	// without running the regex over the whole text.
	starts      []string
	anchored    *regexp.Regexp
	anchoredCtx *regexp.Regexp
}

var (
	builtinOnce sync.Once
	builtin     *Scanner
	builtinErr  error
)

// loadBuiltin parses and compiles the embedded rules.json once.
func loadBuiltin() (*Scanner, error) {
	builtinOnce.Do(func() {
		builtin, builtinErr = parseRuleFile(builtinJSON)
	})
	return builtin, builtinErr
}

// parseRuleFile compiles a rules.json document.
func parseRuleFile(data []byte) (*Scanner, error) {
	var f ruleFile
	if err := strictjson.Decode(data, &f, strictjson.Options{}); err != nil {
		return nil, fmt.Errorf("secrets: rules.json: %w", err)
	}
	if strings.TrimSpace(f.Version) == "" {
		return nil, errors.New("secrets: rules.json: no version")
	}
	rules, err := compileRules(f.Rules, nil)
	if err != nil {
		return nil, fmt.Errorf("secrets: rules.json: %w", err)
	}
	return assemble(f.Version, rules)
}

// Default returns the scanner of the built-in rules (rules.json, embedded
// in the binary), compiled on first use. It panics only if the embedded
// rules are invalid, which a test rules out.
func Default() *Scanner {
	s, err := loadBuiltin()
	if err != nil {
		panic(err)
	}
	return s
}

// New returns a scanner of the built-in rules plus extra (the user's own
// rules, for example from [ParseGitleaksTOML]). Extra rules are additive
// only: an id that a built-in rule (or another extra rule) already has is
// an error, as is a rule that does not compile; errors name the rule. With
// no extra rules, New returns [Default].
func New(extra []Rule) (*Scanner, error) {
	base, err := loadBuiltin()
	if err != nil {
		return nil, err
	}
	if len(extra) == 0 {
		return base, nil
	}
	taken := make(map[string]bool, len(base.rules))
	for _, r := range base.rules {
		taken[r.ID] = true
	}
	add, err := compileRules(extra, taken)
	if err != nil {
		return nil, err
	}
	sum, err := rulesDigest(extra)
	if err != nil {
		return nil, err
	}
	return assemble(base.version+"+user."+sum, append(slices.Clone(base.rules), add...))
}

// rulesDigest is the first 12 hex digits of the sha256 of the RFC 8785
// canonical JSON of rules sorted by id (nil and empty lists are the same).
func rulesDigest(rules []Rule) (string, error) {
	norm := make([]Rule, len(rules))
	for i, r := range rules {
		norm[i] = cloneRule(r)
	}
	slices.SortFunc(norm, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) })
	raw, err := json.Marshal(norm)
	if err != nil {
		return "", err
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(canon)
	return hex.EncodeToString(h[:])[:12], nil
}

// cloneRule deep-copies r, with nil lists made empty.
func cloneRule(r Rule) Rule {
	c := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return slices.Clone(s)
	}
	r.Keywords = c(r.Keywords)
	r.Validators = c(r.Validators)
	r.Samples.TruePositives = c(r.Samples.TruePositives)
	r.Samples.FalsePositives = c(r.Samples.FalsePositives)
	return r
}

// ruleIDRE is the shape of a rule id (it appears in [REDACTED:<id>]).
var ruleIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// defaultPEMOpen is the Open of a Multiline rule with the "pem" validator
// and no Open of its own: the BEGIN line of any private key block (PEM,
// PKCS#8, OpenSSH, PGP, SSH2).
const defaultPEMOpen = `-{3,}\s*BEGIN[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?\s*-{3,}`

// compileRules checks and compiles rules. taken holds ids already in use
// (nil for none).
func compileRules(rules []Rule, taken map[string]bool) ([]compiled, error) {
	seen := make(map[string]bool, len(rules))
	out := make([]compiled, 0, len(rules))
	for i, r := range rules {
		name := fmt.Sprintf("rule %q", r.ID)
		if r.ID == "" {
			name = fmt.Sprintf("rule #%d", i+1)
		}
		fail := func(format string, a ...any) error {
			return fmt.Errorf("%s: %s", name, fmt.Sprintf(format, a...))
		}
		switch {
		case !ruleIDRE.MatchString(r.ID):
			return nil, fail("id must match %s", ruleIDRE)
		case taken[r.ID]:
			return nil, fail("id is a built-in rule's (rules are additive only)")
		case seen[r.ID]:
			return nil, fail("duplicate id")
		case r.Kind != Prefixed && r.Kind != Contextual:
			return nil, fail("kind %q is neither %q nor %q", r.Kind, Prefixed, Contextual)
		case r.Regex == "":
			return nil, fail("no regex")
		case r.Entropy < 0 || r.Entropy > 8:
			return nil, fail("entropy %v outside [0, 8]", r.Entropy)
		}
		seen[r.ID] = true
		for _, k := range r.Keywords {
			switch {
			case k == "":
				return nil, fail("empty keyword")
			case k != asciiLowerString(k):
				return nil, fail("keyword %q is not lower case", k)
			case strings.ContainsAny(k, "\r\n"):
				return nil, fail("keyword %q holds a line break", k)
			}
		}
		re, err := regexp.Compile(r.Regex)
		if err != nil {
			return nil, fail("regex: %v", err)
		}
		if r.SecretGroup < 0 || r.SecretGroup > re.NumSubexp() {
			return nil, fail("secret_group %d but the regex has %d groups", r.SecretGroup, re.NumSubexp())
		}
		c := compiled{Rule: cloneRule(r), re: re, prefixed: r.Kind == Prefixed, pem: r.Multiline && slices.Contains(r.Validators, "pem")}
		if r.Key != "" {
			if r.Multiline {
				return nil, fail("a keyed rule cannot be multiline")
			}
			if c.key, err = regexp.Compile(r.Key); err != nil {
				return nil, fail("key: %v", err)
			}
		}
		for _, v := range r.Validators {
			fn, ok := validators[v]
			if !ok {
				return nil, fail("unknown validator %q (known: %s)", v, validatorNames())
			}
			c.validators = append(c.validators, fn)
		}
		if r.Multiline {
			if err := c.anchor(); err != nil {
				return nil, fail("regex: %v", err)
			}
		}
		open := r.Open
		if open == "" && r.Multiline && slices.Contains(r.Validators, "pem") {
			open = defaultPEMOpen
		}
		if open != "" {
			if c.open, err = regexp.Compile(open); err != nil {
				return nil, fail("open: %v", err)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// anchor sets c.starts and the anchored expressions when every match of
// c's regex starts with one of at most maxPrefixes literals of 2 bytes or
// more and Go's regexp has no literal prefix to skip ahead with.
func (c *compiled) anchor() error {
	if prefix, _ := c.re.LiteralPrefix(); prefix != "" {
		return nil
	}
	re, err := syntax.Parse(c.Regex, syntax.Perl)
	if err != nil {
		return err
	}
	set, _ := literalPrefixes(re.Simplify(), true)
	if len(set) == 0 {
		return nil
	}
	for _, p := range set {
		if len(p) < 2 {
			return nil
		}
	}
	if c.anchored, err = regexp.Compile(`^(?:` + c.Regex + `)`); err != nil {
		return err
	}
	if c.anchoredCtx, err = regexp.Compile(`^(?s:.)(?:` + c.Regex + `)`); err != nil {
		return err
	}
	slices.Sort(set)
	c.starts = slices.Compact(set)
	return nil
}

// assemble builds a Scanner from compiled rules: sorts them and compiles
// the prefilter over all their keywords.
func assemble(version string, rules []compiled) (*Scanner, error) {
	slices.SortFunc(rules, func(a, b compiled) int { return strings.Compare(a.ID, b.ID) })
	s := &Scanner{version: version, rules: rules}
	var keywords []string
	index := map[string]int{}
	keyword := func(k string) int {
		j, ok := index[k]
		if !ok {
			j = len(keywords)
			index[k] = j
			keywords = append(keywords, k)
			s.kwRules = append(s.kwRules, nil)
			s.kwStarts = append(s.kwStarts, nil)
		}
		return j
	}
	for i, r := range rules {
		for _, k := range r.starts {
			j := keyword(k)
			s.kwStarts[j] = append(s.kwStarts[j], int32(i))
		}
		if len(r.Keywords) == 0 {
			s.always = append(s.always, int32(i))
			continue
		}
		for _, k := range r.Keywords {
			j := keyword(k)
			if !slices.Contains(s.kwRules[j], int32(i)) {
				s.kwRules[j] = append(s.kwRules[j], int32(i))
			}
		}
	}
	if len(keywords) > 0 {
		pf, err := newPrefilter(keywords)
		if err != nil {
			return nil, err
		}
		s.pf = pf
	}
	return s, nil
}

// Version names the rule set: rules.json's version, followed with extra
// rules by "+user." and the first 12 hex digits of the sha256 of their
// canonical JSON. It enters config_fingerprint.
func (s *Scanner) Version() string { return s.version }

// Rules returns copies of all rules, sorted by id.
func (s *Scanner) Rules() []Rule {
	out := make([]Rule, len(s.rules))
	for i, r := range s.rules {
		out[i] = cloneRule(r.Rule)
	}
	return out
}

// Validated reports whether f's rule has validators and every one accepts
// the value text[f.Start:f.End] (a GitHub or npm token whose CRC-32 suffix
// is right, a JWT whose header decodes, a PEM block whose body decodes).
// Scan never uses it: a validator can only raise confidence, and a
// prefixed match that fails its validators is still a finding. It is for
// reports and statistics.
func (s *Scanner) Validated(f Finding, text []byte) bool {
	i, ok := slices.BinarySearchFunc(s.rules, f.RuleID, func(r compiled, id string) int { return strings.Compare(r.ID, id) })
	if !ok || len(s.rules[i].validators) == 0 || f.Start < 0 || f.End > len(text) || f.Start > f.End {
		return false
	}
	for _, v := range s.rules[i].validators {
		if !v(text[f.Start:f.End]) {
			return false
		}
	}
	return true
}

// ruleWork is what one rule runs on in one Scan.
type ruleWork struct {
	// lines: the lines holding its keywords, in order, without duplicates.
	lines []span
	// whole: a Multiline rule runs on the whole text.
	whole bool
	// cands: for an anchored rule, the offsets of its start literals.
	cands []int
}

// span is a half-open byte range.
type span struct{ start, end int }

// Scan returns the secrets in text (the content of path, which only names
// it in errors), sorted by Start, longer first at the same Start, then by
// rule id. Text that is not valid UTF-8 or holds a NUL byte gives
// ErrUndecodable (wrapped with the path and the offset). The same text
// always gives the same findings.
//
// One pass of the keyword prefilter finds the lines holding each rule's
// keywords (ASCII case-insensitively); a rule runs only on those lines (a
// Multiline rule on the whole text, when one of its keywords occurs).
// Inline allow comments have no effect.
func (s *Scanner) Scan(path string, text []byte) ([]Finding, error) {
	if err := checkDecodable(text); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	budget := maxDecodedPerText
	return s.scan(text, 0, &budget), nil
}

// scan is Scan of decodable text at a decoding depth (0: the text
// itself), with the budget of decoded bytes left.
func (s *Scanner) scan(text []byte, depth int, budget *int) []Finding {
	if depth > 0 && checkDecodable(text) != nil {
		return nil
	}
	// work[i] is what rule i runs on, allocated at the first keyword hit.
	var work []ruleWork
	if s.pf != nil {
		cur := span{-1, -1} // the line of the previous hit
		s.pf.scan(text, func(k, end int) {
			if work == nil {
				work = make([]ruleWork, len(s.rules))
			}
			for _, ri := range s.kwStarts[k] {
				work[ri].cands = append(work[ri].cands, end-s.pf.lens[k])
			}
			if len(s.kwRules[k]) == 0 {
				return
			}
			at := end - 1
			if at < cur.start || at >= cur.end {
				cur = lineAt(text, at)
			}
			for _, ri := range s.kwRules[k] {
				w := &work[ri]
				if s.rules[ri].Multiline {
					w.whole = true
				} else if len(w.lines) == 0 || w.lines[len(w.lines)-1].start != cur.start {
					w.lines = append(w.lines, cur)
				}
			}
		})
	}
	if len(s.always) > 0 {
		if work == nil {
			work = make([]ruleWork, len(s.rules))
		}
		every := allLines(text)
		for _, ri := range s.always {
			if s.rules[ri].Multiline {
				work[ri].whole = true
			} else {
				work[ri].lines = every
			}
		}
	}

	var out []Finding
	var pairs map[int][]pair // by line start, for keyed rules
	for ri, w := range work {
		r := &s.rules[ri]
		switch {
		case r.key != nil:
			if pairs == nil {
				pairs = map[int][]pair{}
			}
			out = r.runKeyed(text, w.lines, pairs, out)
		case r.Multiline && w.whole:
			out = r.run(text, []span{{0, len(text)}}, w.cands, out)
		case !r.Multiline && len(w.lines) > 0:
			out = r.run(text, w.lines, nil, out)
		}
	}
	out = s.scanDecoded(text, depth, budget, out)
	out = s.settle(text, depth, budget, out)
	if len(out) == 0 {
		return nil
	}
	return finish(text, out, s.block)
}

// block reports whether the rule id matches blocks (Multiline): only a
// block that is the whole text makes a key file (WholeFile). A text that
// is one token is redacted like any other: the span is exact.
func (s *Scanner) block(id string) bool {
	i, ok := slices.BinarySearchFunc(s.rules, id, func(r compiled, id string) int { return strings.Compare(r.ID, id) })
	return ok && s.rules[i].Multiline
}

// run applies r to each region of text and appends its findings. For an
// anchored rule (one region, the whole text), cands are the offsets of its
// start literals.
func (r *compiled) run(text []byte, regions []span, cands []int, out []Finding) []Finding {
	var covered []span // whole-match spans, for the Open check
	for _, reg := range regions {
		for _, m := range r.matches(text, reg, cands) {
			if r.open != nil {
				covered = append(covered, span{m[0], m[1]})
			}
			start, end := m[0], m[1]
			if g := r.SecretGroup; g > 0 && m[2*g] >= 0 {
				start, end = m[2*g], m[2*g+1]
			}
			if r.pem {
				if body, ok := keyBlockBody(text, start, end); ok {
					start, end = body.start, body.end
				}
			}
			if start == end {
				continue
			}
			v := text[start:end]
			if exampleKey(v) {
				continue
			}
			if !r.prefixed && (placeholder(v) || (r.Entropy > 0 && lowEntropy(trimValue(v), r.Entropy))) {
				continue
			}
			out = appendFinding(out, text, Finding{RuleID: r.ID, Start: start, End: end, Confidence: High})
		}
	}
	if r.open != nil {
		out = r.unterminated(text, regions, covered, out)
	}
	return out
}

// runKeyed applies a keyed rule to the key/value pairs of each line
// (lexed once per line and Scan, shared by the keyed rules).
func (r *compiled) runKeyed(text []byte, lines []span, cache map[int][]pair, out []Finding) []Finding {
	for _, ln := range lines {
		ps, ok := cache[ln.start]
		if !ok {
			lexPairs(text, ln.start, ln.end, func(p pair) { ps = append(ps, p) })
			cache[ln.start] = ps
		}
		for _, p := range ps {
			if !r.key.MatchString(p.key) || publicKeyRE.MatchString(p.key) {
				continue
			}
			val := text[p.valStart:p.valEnd]
			if bytes.Contains(val, []byte("://")) {
				continue // a URL: url-credentials judges its userinfo
			}
			m := r.re.FindSubmatchIndex(val)
			if m == nil {
				continue
			}
			start, end := m[0], m[1]
			if g := r.SecretGroup; g > 0 && m[2*g] >= 0 {
				start, end = m[2*g], m[2*g+1]
			}
			if start == end {
				continue
			}
			v := val[start:end]
			if exampleKey(v) {
				continue
			}
			if !r.prefixed && (placeholder(v) || (!p.quoted && codeReference(v)) || (r.Entropy > 0 && lowEntropy(trimValue(v), r.Entropy))) {
				continue
			}
			out = appendFinding(out, text, Finding{RuleID: r.ID, Start: p.valStart + start, End: p.valStart + end, Confidence: High})
		}
	}
	return out
}

// matches returns r's non-overlapping leftmost-first matches in the
// region, as FindAllSubmatchIndex does, with offsets into text. A line
// region is matched without its '\r'.
func (r *compiled) matches(text []byte, reg span, cands []int) [][]int {
	if r.anchored != nil && reg.start == 0 && reg.end == len(text) {
		return r.anchoredMatches(text, cands)
	}
	sub := text[reg.start:reg.end]
	if !r.Multiline {
		sub = bytes.TrimSuffix(sub, []byte("\r"))
	}
	var ms [][]int
	if r.SecretGroup == 0 {
		ms = r.re.FindAllIndex(sub, -1)
	} else {
		ms = r.re.FindAllSubmatchIndex(sub, -1)
	}
	for _, m := range ms {
		shift(m, reg.start)
	}
	return ms
}

// anchoredMatches gives FindAllSubmatchIndex(text)'s matches for a rule
// whose every match starts at one of cands: the leftmost match at or after
// pos starts at the first candidate there that an anchored match succeeds
// at, and is that anchored match (leftmost-first semantics); the next
// search starts at its end. Matches are never empty (they start with a
// literal).
func (r *compiled) anchoredMatches(text []byte, cands []int) [][]int {
	slices.Sort(cands)
	var out [][]int
	pos := 0
	for i, c := range cands {
		if c < pos || (i > 0 && c == cands[i-1]) {
			continue
		}
		var m []int
		if c == 0 {
			m = r.anchored.FindSubmatchIndex(text)
		} else {
			_, n := utf8.DecodeLastRune(text[:c])
			if m = r.anchoredCtx.FindSubmatchIndex(text[c-n:]); m != nil {
				shift(m, c-n)
				m[0] = c
			}
		}
		if m == nil || m[1] == m[0] {
			continue
		}
		out = append(out, m)
		pos = m[1]
	}
	return out
}

// shift adds d to every set offset of a match.
func shift(m []int, d int) {
	for i, x := range m {
		if x >= 0 {
			m[i] = x + d
		}
	}
}

// unterminated appends one Uncertain finding from the first Open match
// that no match of r covers to the end of text. covered is sorted and
// non-overlapping (FindAll order, regions in order).
func (r *compiled) unterminated(text []byte, regions []span, covered []span, out []Finding) []Finding {
	j := 0
	for _, reg := range regions {
		for _, m := range r.open.FindAllIndex(text[reg.start:reg.end], -1) {
			at := reg.start + m[0]
			for j < len(covered) && covered[j].end <= at {
				j++
			}
			if j == len(covered) || at < covered[j].start {
				if body, ok := r.emptyBlock(text, reg.start+m[1]); ok {
					if body.end > body.start {
						out = appendFinding(out, text, Finding{RuleID: r.ID, Start: body.start, End: body.end, Confidence: High})
					}
					continue
				}
				return appendFinding(out, text, Finding{RuleID: r.ID, Start: at, End: len(text), Confidence: Uncertain})
			}
		}
	}
	return out
}

// finish sorts findings, removes exact duplicates and fills Line and
// WholeFile (for findings of block rules, see block).
func finish(text []byte, out []Finding, block func(string) bool) []Finding {
	slices.SortFunc(out, func(a, b Finding) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		if a.End != b.End {
			return b.End - a.End
		}
		if c := strings.Compare(a.RuleID, b.RuleID); c != 0 {
			return c
		}
		return strings.Compare(string(a.Confidence), string(b.Confidence))
	})
	out = slices.CompactFunc(out, func(a, b Finding) bool {
		return a.Start == b.Start && a.End == b.End && a.RuleID == b.RuleID && a.Confidence == b.Confidence
	})
	line, pos := 1, 0
	first, last := contentBounds(text)
	for i := range out {
		line += bytes.Count(text[pos:out[i].Start], []byte("\n"))
		pos = out[i].Start
		out[i].Line = line
		out[i].WholeFile = out[i].Start <= first && out[i].End >= last && block(out[i].RuleID)
	}
	return out
}

// contentBounds returns the span of text without leading and trailing
// whitespace (and a leading byte order mark).
func contentBounds(text []byte) (int, int) {
	t := bytes.TrimPrefix(text, []byte("\uFEFF"))
	lead := len(text) - len(bytes.TrimLeftFunc(t, isSpace))
	trail := len(bytes.TrimRightFunc(text, isSpace))
	if trail < lead {
		return lead, lead
	}
	return lead, trail
}

// checkDecodable refuses text that is not valid UTF-8 or holds NUL.
func checkDecodable(text []byte) error {
	if i := bytes.IndexByte(text, 0); i >= 0 {
		return fmt.Errorf("%w: NUL byte at offset %d (binary or UTF-16 text)", ErrUndecodable, i)
	}
	if utf8.Valid(text) {
		return nil
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRune(text[i:])
		if r == utf8.RuneError && n == 1 {
			return fmt.Errorf("%w: invalid UTF-8 at offset %d", ErrUndecodable, i)
		}
		i += n
	}
	return ErrUndecodable // not reached
}

// lineAt returns the line holding text[at], without its '\n'.
func lineAt(text []byte, at int) span {
	start := bytes.LastIndexByte(text[:at], '\n') + 1
	end := bytes.IndexByte(text[at:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += at
	}
	return span{start, end}
}

// allLines returns every line of text, without '\n'.
func allLines(text []byte) []span {
	var out []span
	for start := 0; start <= len(text); {
		end := bytes.IndexByte(text[start:], '\n')
		if end < 0 {
			out = append(out, span{start, len(text)})
			break
		}
		out = append(out, span{start, start + end})
		start += end + 1
	}
	return out
}
