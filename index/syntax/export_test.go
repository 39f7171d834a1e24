package syntax

// The two Go extraction paths, for the external tests that hold them to
// the same result.
var (
	ParseTree   = parseTree
	ParseGoFast = parseGoFast
)
