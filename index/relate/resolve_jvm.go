package relate

import "strings"

// javaRequest: "a.b.C" names class C of package a.b: a file of that package
// named C.java or declaring a top-level type C. Because nested classes
// ("a.b.Outer.Inner") and static imports ("a.b.C.member") look the same,
// each split point is tried from the right, the first one that finds a file
// winning. "a.b.*" names every file of package a.b, else (a static
// wildcard import, "a.b.C.*") class C of package a.b.
func javaRequest(spec string) request {
	spec = strings.TrimSuffix(strings.TrimSpace(spec), ";")
	spec = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(spec), "static "))
	segs := strings.Split(spec, ".")
	if spec == "" || len(segs) < 2 {
		return request{}
	}
	r := request{kind: reqJava}
	if segs[len(segs)-1] == "*" {
		segs = segs[:len(segs)-1]
		r.alts = append(r.alts, strings.Join(segs, "."))
		r.names = append(r.names, "")
	}
	for k := len(segs) - 1; k >= 1; k-- {
		r.alts = append(r.alts, strings.Join(segs[:k], "."))
		r.names = append(r.names, segs[k])
	}
	return r
}

// nsRequest: a C# using (or C++ using-directive) names every file that
// declares the namespace. "using static A.B.C" and "using X = A.B.C" name a
// type: when no file declares namespace A.B.C, the files of namespace A.B
// declaring a type C. C++ writes namespaces with "::", but the extraction
// lists every namespace dotted ("a.b"), so the path is dotted too.
func nsRequest(spec string) request {
	spec = strings.TrimSpace(spec)
	if _, rhs, ok := strings.Cut(spec, "="); ok {
		spec = strings.TrimSpace(rhs)
	}
	for _, p := range []string{"global ", "static ", "global::", "namespace ", "::"} {
		spec = strings.TrimSpace(strings.TrimPrefix(spec, p))
	}
	spec = strings.TrimSuffix(spec, ";")
	if i := strings.IndexByte(spec, '<'); i >= 0 {
		spec = spec[:i]
	}
	spec = strings.ReplaceAll(spec, "::", ".")
	if spec == "" {
		return request{}
	}
	r := request{kind: reqNS, alts: []string{spec}, names: []string{""}}
	if i := strings.LastIndexByte(spec, '.'); i > 0 {
		r.alts = append(r.alts, spec[:i])
		r.names = append(r.names, spec[i+1:])
	}
	return r
}
