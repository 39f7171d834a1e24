package policy

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/gowebpki/jcs"
)

// Rules is the effective policy of one build: the global policy, or a
// skill's override applied to it. It is immutable (treat the exported
// fields as read-only) and safe for concurrent use. The nil *Rules means
// no policy at all: every path is allowed, nothing is capped.
type Rules struct {
	// Skill is the skill the rules are for; "" for the global policy.
	Skill string
	// Ordering is OrderingLexicographic or OrderingStableManifestOrder.
	Ordering string
	// MaxItems caps the files of a selection; 0 means no cap.
	MaxItems int
	// MaxBytes caps the content bytes of a selection; 0 means no cap.
	MaxBytes int
	// MaxUserMessagesPerThread caps the user messages of a thread, the
	// current one included; 0 means no cap.
	MaxUserMessagesPerThread int
	// Digest is "sha256:" and the hex SHA-256 of the JCS form of the
	// effective rules (schema, skill, namespaces, allowed namespaces, caps,
	// ordering); it enters the builder's config fingerprint.
	Digest string

	// names are the namespace names, sorted; globs[i] are names[i]'s.
	names []string
	globs [][]*glob
	// allowed lists the allowed namespaces, sorted; nil means no
	// restriction. allowedIdx[i] reports whether names[i] is allowed.
	allowed    []string
	allowedIdx []bool
}

// rulesDoc is what Rules.Digest is computed over.
type rulesDoc struct {
	Schema                   string              `json:"schema"`
	Skill                    string              `json:"skill"`
	Namespaces               map[string][]string `json:"namespaces"`
	AllowedContextNamespaces *[]string           `json:"allowed_context_namespaces"`
	MaxItems                 int                 `json:"max_items"`
	MaxBytes                 int                 `json:"max_bytes"`
	MaxUserMessagesPerThread int                 `json:"max_user_messages_per_thread"`
	Ordering                 string              `json:"ordering"`
}

// Rules returns the effective rules for a build naming skill; "" means
// the global policy. It returns nil and no error when the configuration
// has no policy and skill is "" (a nil *Config counts as Default()).
//
// A skill that is not defined, or whose override widens the global policy
// in any way, is an *[Error] with ReasonOverrideInvalid and the Field of
// the offending member ("/policy/skills/<name>/<member>"). Widening means:
// redefining a namespace the global policy does not define, or with a glob
// its global definition lacks (compared as normalized strings); allowing a
// namespace that is not defined, or that the global allowed list (when
// set) does not allow; a cap larger than the global one, or 0 (no cap)
// when the global cap is set. Changing the ordering is not a widening.
func (c *Config) Rules(skill string) (*Rules, error) {
	var p *Policy
	if c != nil {
		p = c.policy
	}
	if skill == "" {
		if p == nil {
			return nil, nil
		}
		return c.build("", p, Override{})
	}
	var skills []string
	if p != nil {
		skills = sortedKeys(p.Skills)
	}
	o, ok := Override{}, false
	if p != nil {
		o, ok = p.Skills[skill]
	}
	if !ok {
		return nil, &Error{
			Reason:  ReasonOverrideInvalid,
			Path:    ConfigPath,
			Field:   "/policy/skills",
			Message: fmt.Sprintf("skill %s is not defined in %s /policy/skills; defined: %s", quote(skill), ConfigPath, namesText(skills)),
			Advice:  fmt.Sprintf("Name one of the defined skills, or define %s under /policy/skills in %s.", quote(skill), ConfigPath),
		}
	}
	if err := c.checkOverride(skill, p, o); err != nil {
		return nil, err
	}
	return c.build(skill, p, o)
}

// checkOverride returns the first widening of o over p, nil when o only
// narrows. Members are checked in the order Override declares them.
func (c *Config) checkOverride(skill string, p *Policy, o Override) *Error {
	base := "/policy/skills/" + escapePointer(skill) + "/"
	widen := func(member, format string, args ...any) *Error {
		field := base + member
		return &Error{
			Reason:  ReasonOverrideInvalid,
			Path:    ConfigPath,
			Field:   field,
			Message: fmt.Sprintf("%s: %s: %s", ConfigPath, field, fmt.Sprintf(format, args...)),
			Advice:  fmt.Sprintf("A skill may only narrow the global policy: change %s, or widen the global policy itself if that is intended.", field),
		}
	}
	for _, name := range sortedKeys(o.Namespaces) {
		global, ok := p.Namespaces[name]
		if !ok {
			return widen("namespaces", "defines the namespace %s, which /policy/namespaces does not define (defined: %s); a skill may only narrow existing namespaces",
				quote(name), namesText(sortedKeys(p.Namespaces)))
		}
		for _, g := range o.Namespaces[name] {
			if _, found := slices.BinarySearch(global, g); !found {
				return widen("namespaces", "redefines the namespace %s with the glob %s, which its global definition %s lacks",
					quote(name), quote(g), listText(global))
			}
		}
	}
	if o.AllowedContextNamespaces != nil {
		for _, name := range *o.AllowedContextNamespaces {
			if _, ok := p.Namespaces[name]; !ok {
				return widen("allowed_context_namespaces", "names the namespace %s, which /policy/namespaces does not define; defined: %s",
					quote(name), namesText(sortedKeys(p.Namespaces)))
			}
			if p.AllowedContextNamespaces != nil {
				if _, found := slices.BinarySearch(*p.AllowedContextNamespaces, name); !found {
					return widen("allowed_context_namespaces", "allows the namespace %s, which /policy/allowed_context_namespaces does not allow (allowed: %s)",
						quote(name), namesText(*p.AllowedContextNamespaces))
				}
			}
		}
	}
	caps := []struct{ global, local int }{
		{p.MaxItems, o.MaxItems},
		{p.MaxBytes, o.MaxBytes},
		{p.MaxUserMessagesPerThread, o.MaxUserMessagesPerThread},
	}
	zero := c.zeroCaps[skill]
	for i, m := range capMembers {
		g, l := caps[i].global, caps[i].local
		switch {
		case g != 0 && slices.Contains(zero, m):
			return widen(m, "is 0, which would remove the global cap of %d (/policy/%s); omit it to inherit the cap, or set a smaller one", g, m)
		case g != 0 && l > g:
			return widen(m, "is %d, larger than the global cap of %d (/policy/%s)", l, g, m)
		}
	}
	return nil
}

// build makes the Rules of skill from the valid p narrowed by o.
func (c *Config) build(skill string, p *Policy, o Override) (*Rules, error) {
	ns := cloneNamespaces(p.Namespaces)
	if ns == nil {
		ns = map[string][]string{}
	}
	for name, globs := range o.Namespaces {
		ns[name] = slices.Clone(globs)
	}
	allowed := cloneAllowed(p.AllowedContextNamespaces)
	if o.AllowedContextNamespaces != nil {
		allowed = cloneAllowed(o.AllowedContextNamespaces)
	}
	pick := func(global, local int) int {
		if local != 0 {
			return local
		}
		return global
	}
	r := &Rules{
		Skill:                    skill,
		Ordering:                 p.Ordering,
		MaxItems:                 pick(p.MaxItems, o.MaxItems),
		MaxBytes:                 pick(p.MaxBytes, o.MaxBytes),
		MaxUserMessagesPerThread: pick(p.MaxUserMessagesPerThread, o.MaxUserMessagesPerThread),
		names:                    sortedKeys(ns),
	}
	if o.Ordering != "" {
		r.Ordering = o.Ordering
	}
	r.globs = make([][]*glob, len(r.names))
	for i, name := range r.names {
		for _, s := range ns[name] {
			r.globs[i] = append(r.globs[i], c.globs[s])
		}
	}
	if allowed != nil {
		r.allowed = *allowed
		r.allowedIdx = make([]bool, len(r.names))
		for i, name := range r.names {
			_, r.allowedIdx[i] = slices.BinarySearch(r.allowed, name)
		}
	}
	raw, err := json.Marshal(rulesDoc{
		Schema:                   PolicySchema,
		Skill:                    skill,
		Namespaces:               ns,
		AllowedContextNamespaces: allowed,
		MaxItems:                 r.MaxItems,
		MaxBytes:                 r.MaxBytes,
		MaxUserMessagesPerThread: r.MaxUserMessagesPerThread,
		Ordering:                 r.Ordering,
	})
	if err == nil {
		raw, err = jcs.Transform(raw)
	}
	if err != nil {
		return nil, &Error{
			Reason:  ReasonInvalid,
			Path:    ConfigPath,
			Message: fmt.Sprintf("%s: the effective policy cannot be serialized: %v", ConfigPath, err),
			Advice:  "This is a ctxd bug. Report it with the ctxd version.",
			cause:   err,
		}
	}
	r.Digest = digest(raw)
	return r, nil
}

// Allowed reports whether path, workspace-relative and '/'-separated, may
// enter a bundle: always with nil Rules or no allowed list; otherwise only
// when it matches a glob of an allowed namespace. A path that is not clean
// (see the package comment) is never allowed once an allowed list exists.
func (r *Rules) Allowed(path string) bool {
	if r == nil || r.allowed == nil {
		return true
	}
	if !cleanPath(path) {
		return false
	}
	for i := range r.names {
		if r.allowedIdx[i] && anyMatch(r.globs[i], path) {
			return true
		}
	}
	return false
}

// Namespaces returns the names of the namespaces whose globs match path,
// sorted; nil when none does, when path is not clean, or for nil Rules.
func (r *Rules) Namespaces(path string) []string {
	if r == nil || !cleanPath(path) {
		return nil
	}
	var out []string
	for i, name := range r.names {
		if anyMatch(r.globs[i], path) {
			out = append(out, name)
		}
	}
	return out
}

// AllowedNamespaces returns the allowed namespace names, sorted and
// deduplicated: nil means unrestricted (also for nil Rules), an empty
// non-nil slice means nothing is allowed. The slice is the caller's.
func (r *Rules) AllowedNamespaces() []string {
	if r == nil || r.allowed == nil {
		return nil
	}
	return append([]string{}, r.allowed...)
}

func anyMatch(globs []*glob, path string) bool {
	for _, g := range globs {
		if g.match(path) {
			return true
		}
	}
	return false
}
