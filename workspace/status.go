package workspace

import (
	"context"

	"github.com/ctxd/ctxd/index"
)

// ClientInfo is what the front end knows of the editor session that
// ctxd.indexStatus reports.
type ClientInfo struct {
	// PositionEncoding is the negotiated position encoding ("utf-16"
	// unless the client preferred another).
	PositionEncoding string
	// Folders are the session's workspace folders, sorted by URI.
	Folders []Folder
}

// Folder is one workspace folder of the editor.
type Folder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// IndexStatusArgs is ctxd.indexStatus's optional argument.
type IndexStatusArgs struct {
	// Skipped asks for the list of skipped paths with their reasons.
	Skipped bool `json:"skipped"`
}

// IndexStatusResult is the result of ctxd.indexStatus. Field names are
// snake_case like every ctxd output. It never carries file contents.
type IndexStatusResult struct {
	Server           ServerInfo `json:"server"`
	PositionEncoding string     `json:"position_encoding"`
	// WorkspaceFolders is sorted by URI; empty, not null, when there are none.
	WorkspaceFolders []Folder `json:"workspace_folders"`
	// OpenDocuments is sorted by URI; empty, not null, when none are open.
	OpenDocuments []OpenDocument `json:"open_documents"`
	// Index summarizes the workspace index: state, snapshot version and
	// fingerprint, files by language, symbols, skipped paths by reason.
	Index index.Status `json:"index"`
}

// ServerInfo names the server and its version.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// OpenDocument describes one editor buffer by its metadata and fingerprint.
type OpenDocument struct {
	URI        string `json:"uri"`
	LanguageID string `json:"language_id"`
	Version    int32  `json:"version"`
	ByteSize   int    `json:"byte_size"`
	LineCount  int    `json:"line_count"`
	SHA256     string `json:"sha256"`
	Saved      bool   `json:"saved"`
	OutOfSync  bool   `json:"out_of_sync"`
	// Syntax is set when the buffer's newest version could not be parsed
	// in the time requests wait for (a large buffer full of syntax
	// errors), so requests answer without its syntax: "stale", from the
	// syntax of syntax_of_version; "text_only", from its text alone.
	// Absent while requests read the version's own syntax.
	Syntax DocumentSyntax `json:"syntax,omitempty"`
	// SyntaxOf is, with syntax "stale", the version whose syntax requests
	// answer from, its ranges mapped onto the newest text.
	SyntaxOf *int32 `json:"syntax_of_version,omitempty"`
}

// DocumentSyntax says what an open document's requests answer from when
// its newest version's parse is slow.
type DocumentSyntax string

// The values of [OpenDocument.Syntax].
const (
	// SyntaxStale: the syntax of an earlier version (syntax_of_version),
	// the last whose parse completed, mapped onto the newest text.
	SyntaxStale DocumentSyntax = "stale"
	// SyntaxTextOnly: no parse of the buffer completed (it was opened
	// broken, or every parse overran the budget): text-level answers only.
	SyntaxTextOnly DocumentSyntax = "text_only"
)

// IndexStatus is ctxd.indexStatus: the session, its open documents and
// the index, from one snapshot.
func (s *Service) IndexStatus(ctx context.Context, c Caller, a *IndexStatusArgs) (*IndexStatusResult, error) {
	res := &IndexStatusResult{
		Server:           ServerInfo{Name: "ctxd", Version: s.version},
		PositionEncoding: c.Client.PositionEncoding,
		WorkspaceFolders: c.Client.Folders,
		OpenDocuments:    []OpenDocument{},
		Index:            s.index.Status(a.Skipped),
	}
	if res.WorkspaceFolders == nil {
		res.WorkspaceFolders = []Folder{}
	}
	docs := s.index.Snapshot().Documents()
	for _, uri := range docs.URIs() {
		d, _ := docs.Get(uri)
		od := OpenDocument{
			URI: d.URI, LanguageID: d.LanguageID, Version: d.Version,
			ByteSize: d.Text().Len(), LineCount: d.LineCount(), SHA256: d.SHA256(),
			Saved: d.Saved, OutOfSync: d.OutOfSync,
		}
		if st, ok := d.Stale(); ok {
			od.Syntax = SyntaxTextOnly
			if st.Has {
				of := st.Of
				od.Syntax, od.SyntaxOf = SyntaxStale, &of
			}
		}
		res.OpenDocuments = append(res.OpenDocuments, od)
	}
	return res, nil
}
