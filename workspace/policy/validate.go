package policy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/ignore"
)

// checkFile checks what the schema cannot say, on the decoded but not yet
// normalized f (so that list indexes are those of the file), and returns
// every violation.
func checkFile(f *File, doc *document) []fieldError {
	var errs []fieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, fieldError{offset: doc.offset(field), field: field, msg: fmt.Sprintf(format, args...)})
	}

	if _, ok := doc.lookup("/normalization/rules"); ok {
		var missing []string
		for _, r := range defaultRules {
			if !slices.Contains(f.Normalization.Rules, r) {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			add("/normalization/rules",
				"must name all of %s, got %s: ctxd always applies all three, and a record without %s would misdescribe what was applied",
				strings.Join(defaultRules, ", "), listText(f.Normalization.Rules), strings.Join(missing, " and "))
		}
	}

	for i, r := range f.DenyRules {
		field := fmt.Sprintf("/deny_rules/%d", i)
		switch {
		case strings.HasPrefix(r, "!"):
			add(field, "%s is a negation: deny rules can only exclude more; remove the rule, or write \"\\!\" for a name starting with \"!\"", quote(r))
		case ignore.NewRules("", "deny_rules", []byte(r)).Len() == 0:
			add(field, "%s can never match a path (a comment, a blank pattern or an unterminated \"[\" class); write \"\\#\" for a name starting with \"#\"", quote(r))
		}
	}

	if m := f.Model; m.ResponseTokenReserve != 0 && m.MaxInputTokens != 0 && m.ResponseTokenReserve >= m.MaxInputTokens {
		add("/model/response_token_reserve",
			"must be less than /model/max_input_tokens (%d), got %d: nothing would be left for the context",
			m.MaxInputTokens, m.ResponseTokenReserve)
	}

	p := f.Policy
	if p == nil {
		return errs
	}
	checkGlobs := func(base string, ns map[string][]string) {
		for _, name := range sortedKeys(ns) {
			for i, s := range ns[name] {
				if _, err := compileGlob(s); err != nil {
					add(fmt.Sprintf("%s/%s/%d", base, escapePointer(name), i), "glob %s is invalid: %v", quote(s), err)
				}
			}
		}
	}
	checkGlobs("/policy/namespaces", p.Namespaces)
	if p.AllowedContextNamespaces != nil {
		for i, name := range *p.AllowedContextNamespaces {
			if _, ok := p.Namespaces[name]; !ok {
				add(fmt.Sprintf("/policy/allowed_context_namespaces/%d", i),
					"names the namespace %s, which /policy/namespaces does not define; defined: %s",
					quote(name), namesText(sortedKeys(p.Namespaces)))
			}
		}
	}
	for _, skill := range sortedKeys(p.Skills) {
		checkGlobs("/policy/skills/"+escapePointer(skill)+"/namespaces", p.Skills[skill].Namespaces)
	}
	return errs
}

// capMembers are the cap members of an Override, in the order their
// widenings are reported.
var capMembers = []string{"max_items", "max_bytes", "max_user_messages_per_thread"}

// explicitZeroCaps returns, per skill, the cap members written as 0 (doc
// is valid, so every number is a plain integer).
func explicitZeroCaps(doc *document) map[string][]string {
	v, ok := doc.lookup("/policy/skills")
	if !ok {
		return nil
	}
	skills, _ := v.(map[string]any)
	var out map[string][]string
	for _, name := range sortedKeys(skills) {
		o, _ := skills[name].(map[string]any)
		for _, m := range capMembers {
			if n, ok := o[m].(json.Number); ok && (n == "0" || n == "-0") {
				if out == nil {
					out = map[string][]string{}
				}
				out[name] = append(out[name], m)
			}
		}
	}
	return out
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// namesText lists names for a message, comma-separated, or "none". The
// names are namespace or skill names, which the schema restricts to
// letters, digits, '.', '_' and '-'.
func namesText(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// listText renders a list of strings for a message, each quoted.
func listText(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
