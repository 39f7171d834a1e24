package handlers

import (
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
)

// A refusal's advice reaches an editor user, who acts with the editor's
// selection, commands and settings, not with the request's fields or the
// CLI's flags. The session knows the editor from initialize's clientInfo
// and says the refusal's actions in its words (contextbuilder.Terms); a
// client it does not know gets the request's words
// (contextbuilder.RequestTerms), which every LSP client sends.

// vscodeTerms are VS Code's: its commands, its selection and the settings
// of editors/vscode/package.json.
var vscodeTerms = contextbuilder.Terms{
	Region:      "select the lines to change and run \"ctxd: Build Context for Selection\" instead of sending the whole file",
	Symbol:      "run \"ctxd: Build Context for Symbol…\" with the symbol to change",
	Symbols:     "the symbols given to \"ctxd: Build Context for Symbol…\"",
	Budget:      "raise the ctxd.model.maxInputTokens setting for a model with a larger input window",
	FileSizeCap: "add \"--max-file-size\" and a size in bytes to the ctxd.server.extraArgs setting, then run \"ctxd: Restart Server\", if the file really must be sent",
	Target:      "open the file to change (or select the lines to change in it) and build from its editor",
	Folder:      "open the project's folder (File > Open Folder) or add it to the workspace",
	Inside:      "build from a file inside the workspace folders, or add its folder to the workspace",
	Pick: func(c contextbuilder.Candidate) string {
		return fmt.Sprintf("choose one of the candidates in the list ctxd shows (e.g. %s in %s) and the build is retried with it", c.Symbol, c.Path)
	},
}

// nvimTerms are Neovim's: the plugin's commands, a visual selection and
// the options of vim.g.ctxd (editors/nvim/lua/ctxd/config.lua).
var nvimTerms = contextbuilder.Terms{
	Region:      "select the lines to change (visual mode or a range) and run :'<,'>CtxdBuild instead of sending the whole file",
	Symbol:      "name the symbol to change: :CtxdBuild diff NAME",
	Symbols:     "the symbols given to :CtxdBuild",
	Budget:      "raise model.max_input_tokens in vim.g.ctxd (vim.g.ctxd = { model = { max_input_tokens = N } }) for a model with a larger input window",
	FileSizeCap: "add \"--max-file-size\" and a size in bytes to cmd in vim.g.ctxd (after \"serve\", \"--stdio\") and restart Neovim, if the file really must be sent",
	Target:      "run the command from the buffer of the file to change (or on a visual selection of it)",
	Folder:      "edit a file inside the project: its root is the nearest directory holding one of root_markers (vim.g.ctxd)",
	Inside:      "build from a buffer of a file inside the project root (root_markers in vim.g.ctxd decide it)",
	Pick: func(c contextbuilder.Candidate) string {
		return fmt.Sprintf("choose one of the candidates in the list :CtxdBuild shows (e.g. %s in %s) and the build is retried with it", c.Symbol, c.Path)
	},
}

// termsFor are the words for the client that named itself name in
// clientInfo: Neovim sends "Neovim"; VS Code's language client sends the
// application's name ("Visual Studio Code", "code-server", "VSCodium",
// "Code - OSS" and the like).
func termsFor(name string) contextbuilder.Terms {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "neovim") || n == "nvim":
		return nvimTerms
	case strings.Contains(n, "code") || strings.Contains(n, "vscodium"):
		return vscodeTerms
	}
	return contextbuilder.RequestTerms
}
