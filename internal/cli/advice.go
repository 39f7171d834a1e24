package cli

import (
	"fmt"

	"github.com/ctxd/ctxd/contextbuilder"
)

// cliTerms say a refusal's actions with the command line's flags (see
// contextbuilder.Terms): the CLI prints the advice in these words, on
// stderr and in the {"refusal": …} it writes.
var cliTerms = contextbuilder.Terms{
	Region:      "send only the region to change with --target PATH:L1-L2 (1-based lines) instead of the whole file",
	Symbol:      "name the symbol to change with --symbol NAME (Type.Method for a method)",
	Symbols:     "--symbol",
	Budget:      "raise --max-input-tokens for a model with a larger input window",
	FileSizeCap: "raise --max-file-size if the file really must be sent",
	Target:      "name the file to change with --target PATH",
	Folder:      "pass the project folder as --root DIR",
	Inside:      "choose a file inside the project root (--root; target paths are relative to it)",
	FindPath:    "it is relative to --root",
	FindSymbol:  "a qualified name such as Type.Method also works",
	Pick: func(c contextbuilder.Candidate) string {
		return fmt.Sprintf("choose one of the candidates and retry with it added as --select PATH#SYMBOL (e.g. --select %s#%s); naming its file with --target also narrows the name to the definitions there", c.Path, c.Symbol)
	},
}
