package syntax

// ParseTree is Parse through tree-sitter whatever the language, for the
// external tests that hold the two Go extraction paths to the same result.
var ParseTree = parseTree

// ParseGoFast is Parse's first choice for Go: the extraction from
// go/parser's AST; ok is false when go/parser reports an error.
func ParseGoFast(src []byte) (f *File, ok bool) {
	af, ok := goParse(src)
	if !ok {
		return nil, false
	}
	return goFromAST(af, src), true
}

// GoldenSamples returns the sources of lang's golden workspace.
var GoldenSamples = goldenSamples
