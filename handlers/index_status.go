package handlers

import "github.com/ctxd/ctxd/workspace"

// openDocuments describes the open documents for ctxd.indexStatus, sorted
// by URI, by their metadata and fingerprint, never their text.
func (s *Session) openDocuments() []workspace.OpenDocument {
	overlays := s.Overlays()
	var out []workspace.OpenDocument
	for _, uri := range overlays.URIs() {
		d, _ := overlays.Get(uri)
		out = append(out, workspace.OpenDocument{
			URI: d.URI, LanguageID: d.LanguageID, Version: d.Version,
			ByteSize: len(d.Content), LineCount: d.LineCount(), SHA256: d.SHA256(),
			Saved: d.Saved, OutOfSync: d.OutOfSync,
		})
	}
	return out
}
