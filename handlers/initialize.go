package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"

	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
	"go.lsp.dev/protocol"
)

// initializeParams decodes the parts of InitializeParams ctxd uses, straight
// from the raw params: go.lsp.dev/protocol v0.12.0 predates LSP 3.17 and has
// no general.positionEncodings.
type initializeParams struct {
	ProcessID        *int32   `json:"processId"`
	RootURI          *string  `json:"rootUri"`
	RootPath         *string  `json:"rootPath"`
	WorkspaceFolders []Folder `json:"workspaceFolders"`
	ClientInfo       *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	Capabilities struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
		Workspace struct {
			DidChangeWatchedFiles struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
	} `json:"capabilities"`
}

// Validate names the first missing or invalid field.
func (p *initializeParams) Validate() error {
	for i, f := range p.WorkspaceFolders {
		if f.URI == "" {
			return missing(fmt.Sprintf("workspaceFolders[%d].uri", i))
		}
	}
	return nil
}

// InitializeResult is the initialize result: LSP's capabilities plus the
// 3.17 positionEncoding that go.lsp.dev/protocol lacks.
type InitializeResult struct {
	Capabilities ServerCapabilities   `json:"capabilities"`
	ServerInfo   *protocol.ServerInfo `json:"serverInfo,omitempty"`
}

// ServerCapabilities embeds the library's capabilities and adds
// positionEncoding.
type ServerCapabilities struct {
	protocol.ServerCapabilities
	PositionEncoding position.Encoding `json:"positionEncoding"`
}

// Initialize handles the initialize request: it negotiates the position
// encoding, records the workspace folders and returns the capabilities. The
// server calls it once, before any other handler, and owns the lifecycle
// rules around it.
func Initialize(ctx context.Context, s *Session, raw json.RawMessage) (any, error) {
	var p initializeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	cfg := &ClientConfig{
		Encoding:         position.Negotiate(p.Capabilities.General.PositionEncodings),
		WorkDoneProgress: p.Capabilities.Window.WorkDoneProgress,
		WatchFiles:       p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration,
	}
	if p.ClientInfo != nil {
		cfg.ClientName, cfg.ClientVersion = p.ClientInfo.Name, p.ClientInfo.Version
	}
	s.setConfig(cfg)
	folders := initialFolders(&p)
	s.updateFolders(func([]Folder) []Folder { return folders })
	s.Logger.Info("initialized", "client", cfg.ClientName, "client_version", cfg.ClientVersion,
		"position_encoding", cfg.Encoding, "folders", len(folders))
	return &InitializeResult{
		Capabilities: capabilities(cfg.Encoding),
		ServerInfo:   &protocol.ServerInfo{Name: "ctxd", Version: s.Version},
	}, nil
}

// initialFolders prefers workspaceFolders, then the deprecated rootUri and
// rootPath, as the spec orders them.
func initialFolders(p *initializeParams) []Folder {
	var folders []Folder
	switch {
	case len(p.WorkspaceFolders) > 0:
		for _, f := range p.WorkspaceFolders {
			folders = append(folders, Folder{URI: index.NormalizeURI(f.URI), Name: f.Name})
		}
	case p.RootURI != nil && *p.RootURI != "":
		uri := index.NormalizeURI(*p.RootURI)
		folders = append(folders, Folder{URI: uri, Name: folderName(uri)})
	case p.RootPath != nil && *p.RootPath != "":
		u := url.URL{Scheme: "file", Path: *p.RootPath}
		uri := index.NormalizeURI(u.String())
		folders = append(folders, Folder{URI: uri, Name: folderName(uri)})
	}
	return folders
}

func folderName(uri string) string {
	if u, err := url.Parse(uri); err == nil {
		return path.Base(u.Path)
	}
	return uri
}

// capabilities is what ctxd offers: incremental sync with open/close and
// save notifications, its commands and workspace folders.
func capabilities(enc position.Encoding) ServerCapabilities {
	return ServerCapabilities{
		ServerCapabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      &protocol.SaveOptions{IncludeText: false},
			},
			ExecuteCommandProvider:  &protocol.ExecuteCommandOptions{Commands: workspace.CommandNames()},
			DocumentSymbolProvider:  true,
			WorkspaceSymbolProvider: true,
			Workspace: &protocol.ServerCapabilitiesWorkspace{
				WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{Supported: true, ChangeNotifications: true},
			},
		},
		PositionEncoding: enc,
	}
}
