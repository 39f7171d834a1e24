package syntax

import (
	"cmp"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

func init() { registerUses(cUses, C, CPP) }

// cUses records the uses of a C or C++ file (see the C and C++ section of
// docs/relations.md): every identifier of the code (comments, string
// literals and #include lines excluded; macro definitions and conditions
// are code) that is not a keyword nor the name of one of the file's own
// declarations, where declared. A name after `.` or `->` is a member use
// whose Recv is the type the file declares the variable with (`T x`,
// `struct T *p`), or empty; `A::B::m` is a member use of m with Recv
// "A::B" (a class or namespace), plus a use of its qualifier.
func cUses(_ *sitter.Node, src []byte, f *File) {
	sp := cLex
	if f.Language == CPP {
		sp = cppLex
	}
	s := lxScan{src: src, toks: lxTokens(sp, src)}
	// An identifier spelling a declaration's name inside that
	// declaration's signature declares it.
	toks := s.toks
	excl := make([]bool, len(toks))
	for _, sym := range f.Symbols {
		k, _ := slices.BinarySearchFunc(toks, sym.Signature.StartByte, func(t lxTok, off uint32) int { return cmp.Compare(t.start, off) })
		for ; k < len(toks) && toks[k].end <= sym.Signature.EndByte; k++ {
			if toks[k].kind == lxIdent && int(toks[k].end-toks[k].start) == len(sym.Name) && string(src[toks[k].start:toks[k].end]) == sym.Name {
				excl[k] = true
			}
		}
	}
	vars := map[string]string{}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != lxIdent || sp.keywords.has(src[t.start:t.end]) {
			continue
		}
		w := s.text(i)
		// A declaration `T x`, `T *x`, `struct T &x` gives x the type T.
		if j := cDeclared(&s, sp, i); j > 0 {
			vars[s.text(j)] = w
		}
		if excl[i] {
			continue
		}
		if s.isOp(i-1, '.') || s.isOp(i-1, lxArrow) {
			recv := ""
			if s.isIdent(i-2) && !s.isOp(i-3, '.') && !s.isOp(i-3, lxArrow) {
				recv = vars[s.text(i-2)]
			}
			f.Uses = append(f.Uses, Use{Name: w, Member: true, Recv: recv, Start: t.start, End: t.end})
			continue
		}
		if s.isOp(i-1, lxPath) && s.isIdent(i-2) {
			continue // read with its qualifier
		}
		if !s.isOp(i+1, lxPath) || !s.isIdent(i+2) {
			f.Uses = append(f.Uses, Use{Name: w, Start: t.start, End: t.end})
			continue
		}
		// A qualified name A::B::m.
		idx := []int{i}
		for s.isOp(idx[len(idx)-1]+1, lxPath) && s.isIdent(idx[len(idx)-1]+2) {
			idx = append(idx, idx[len(idx)-1]+2)
		}
		segs := make([]string, len(idx))
		for k, x := range idx {
			segs[k] = s.text(x)
		}
		for k := 1; k < len(idx); k++ {
			lt := toks[idx[k]]
			if excl[idx[k]] {
				continue
			}
			f.Uses = append(f.Uses, Use{Name: segs[k], Member: true, Recv: strings.Join(segs[:k], "::"), Start: lt.start, End: lt.end})
		}
		f.Uses = append(f.Uses, Use{Name: w, Start: t.start, End: t.end})
		i = idx[len(idx)-1]
		if j := cDeclared(&s, sp, i); j > 0 {
			vars[s.text(j)] = strings.Join(segs, "::")
		}
	}
}

// cDeclared reports whether identifier i is the type of a variable
// declaration `T x`, `T *x`, `T &x` (followed by ; = , ) [ or {) and
// returns the index of the variable, or 0.
func cDeclared(s *lxScan, sp *lexSpec, i int) int {
	j := i + 1
	for s.isOp(j, '*') || s.isOp(j, '&') {
		j++
	}
	if !s.isIdent(j) || sp.keywords.has(s.src[s.toks[j].start:s.toks[j].end]) {
		return 0
	}
	switch {
	case s.isOp(j+1, ';'), s.isOp(j+1, '='), s.isOp(j+1, ','), s.isOp(j+1, ')'), s.isOp(j+1, '['), s.isOp(j+1, '{'):
		return j
	}
	return 0
}
