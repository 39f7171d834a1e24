package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/classify"
)

// ReadFileArgs is read_file's argument.
type ReadFileArgs struct {
	// Path is the file, relative to the workspace folder (a file URI or
	// an absolute path inside it also works); required.
	Path string `json:"path"`
	// StartLine and EndLine are the 1-based, inclusive lines to read: 0
	// or absent means from the first line and to the last one. An
	// end_line past the end reads to the last line.
	StartLine int `json:"start_line,omitempty"`
	EndLine   int `json:"end_line,omitempty"`
	// WorkspaceFolder names the folder the path is in; optional with a
	// single folder.
	WorkspaceFolder string `json:"workspace_folder,omitempty"`
}

// Validate checks the path and the line range's shape; the range is
// checked against the file when it is read.
func (a *ReadFileArgs) Validate() error {
	switch {
	case a.Path == "":
		return errors.New("field \"path\": required, a file path relative to the workspace folder")
	case a.StartLine < 0:
		return fmt.Errorf("field \"start_line\": must be 1 or more (0 or absent: from the first line), got %d", a.StartLine)
	case a.EndLine < 0:
		return fmt.Errorf("field \"end_line\": must be 1 or more (0 or absent: to the last line), got %d", a.EndLine)
	case a.EndLine > 0 && a.EndLine < max(a.StartLine, 1):
		return fmt.Errorf("field \"end_line\": %d is before start_line %d", a.EndLine, max(a.StartLine, 1))
	}
	return nil
}

// ReadFileResult is read_file's answer: a file's lines as a bundle block
// would carry them, secrets redacted.
type ReadFileResult struct {
	// Path is relative to the workspace folder, '/'-separated.
	Path string `json:"path"`
	// StartLine and EndLine are the 1-based, inclusive lines Content
	// holds; TotalLines counts the file's lines (a final line break
	// starts no line).
	StartLine  int `json:"start_line"`
	EndLine    int `json:"end_line"`
	TotalLines int `json:"total_lines"`
	// SHA256 is the hex sha256 of the file's bytes on disk (of the
	// editor's buffer for an open document), the hash a bundle's
	// manifest records for the file (included_files[].hash), so an agent
	// can tell whether a bundle showed the same version.
	SHA256 string `json:"sha256"`
	// Content is the lines after redaction: each secret replaced by
	// [REDACTED:<rule>], hidden characters removed. It ends with a line
	// break only when the lines reach the end of a file that ends with
	// one (the builder's slices of a file do the same).
	Content string `json:"content"`
	// Redactions are what was taken out of Content (pattern_redacted:
	// the rule and the file line, never the value); empty when nothing.
	Redactions []contextbuilder.Redaction `json:"redactions"`
}

// ReadFile is the read_file tool: lines of a workspace file, redacted
// exactly as a bundle's file block is (the whole file scanned, the
// findings carried into the lines shown, so a secret cut by the range is
// still removed). It reads what a build would: the editor's buffer for an
// open document, else the disk through the sandbox, as the index decided
// the path (ignore files, never-send rules, binary and encoding checks);
// it needs the folder listed, not parsed. A file the index has not seen
// yet, or that changed since, is re-read into the index first (what a
// watcher's event does). Every path a read tool may not show is a refusal
// naming the rule: REFUSE_OUTSIDE_SANDBOX out of the sandbox,
// REFUSE_UNSUPPORTED_TARGET for a never-send, ignored, binary or
// undecodable file, context_namespace_denied outside the policy's
// namespaces, REFUSE_TARGET_NOT_FOUND for a missing one,
// REFUSE_CONTEXT_TOO_LARGE past the size caps and REFUSE_SECRET_RISK for
// a secret that cannot be redacted safely.
func (s *Service) ReadFile(ctx context.Context, c Caller, a *ReadFileArgs) (*ReadFileResult, error) {
	const command = "read_file"
	start := time.Now()
	if err := a.Validate(); err != nil {
		return nil, s.failed(command, invalidArgs(err), start)
	}
	if s.redactorErr != nil {
		return nil, s.failed(command, s.rulesRefusal("the text it returns holds no secret"), start)
	}
	f, err := s.agentFolder(ctx, c, a.WorkspaceFolder, a.Path, false)
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	if a.Path == "." || a.Path == "./" {
		return nil, s.failed(command, invalidArgs(errors.New("field \"path\": names the workspace folder itself; give a file in it (list_files lists them)")), start)
	}
	rel, err := f.root.Rel(a.Path)
	if err != nil {
		return nil, s.failed(command, outsideRefusal("path", a.Path, err), start)
	}
	res, err := s.readFile(ctx, f, rel, a)
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	s.log.Info(command, "path", res.Path, "start_line", res.StartLine, "end_line", res.EndLine, "total_lines", res.TotalLines,
		"bytes", len(res.Content), "redactions", len(res.Redactions), "duration", time.Since(start))
	return res, nil
}

// readFile reads rel, a path the sandbox accepted, as the index decides
// it, re-reading it into the index when the index has not seen it or saw
// another version.
func (s *Service) readFile(ctx context.Context, f *agentFolder, rel string, a *ReadFileArgs) (*ReadFileResult, error) {
	if reason, rule, hidden := f.gate.check(rel, false); hidden {
		return nil, hiddenRefusal(rel, reason, rule)
	}
	if d, ok := f.snap.Document(f.root.URIOf(rel)); ok && d.OutOfSync {
		return nil, &outOfSync{uri: d.URI}
	}
	for attempt := 0; ; attempt++ {
		retry := func() bool { return attempt < refreshAttempts && s.refresh(ctx, f, []string{rel}) != nil }
		if file, ok := f.root.File(rel); ok {
			if err := f.checkLink(rel); err != nil {
				return nil, err
			}
			text, err := f.root.ReadText(rel)
			switch {
			case err == nil:
				return s.redactRead(rel, file.SHA256(), text, a)
			case isStaleRead(err) && retry():
				continue
			case errors.Is(err, index.ErrStale):
				return nil, changingRefusal([]string{rel})
			}
			return nil, readRefusal(rel, err)
		}
		if sk, ok := f.root.Skip(rel); ok {
			if sk.Reason != index.SkipTooLarge {
				return nil, skipRefusal(rel, sk)
			}
			// The index decided from its last look at the path: decide
			// it again (a link may lead elsewhere now) before reading
			// past the index's cap.
			if attempt == 0 && retry() {
				continue
			}
			return s.readLarge(f, rel, sk, a)
		}
		if _, ok := f.root.Skip(rel + "/"); ok || isDir(f.root, rel) {
			return nil, invalidArgs(fmt.Errorf("field \"path\": %s is a directory; list_files lists its files", rel))
		}
		if attempt == 0 && retry() {
			continue
		}
		return nil, notFound(rel, "check the argument \"path\" (relative to the workspace folder; case matters); list_files lists the files")
	}
}

// checkLink refuses a file that is a symbolic link to a path the read
// tools may not show. The index already refuses a link to a never-send
// path of the contract; the workspace's deny_rules and policy are the
// gate's, matched here against where the link leads.
func (f *agentFolder) checkLink(rel string) error {
	reason, rule, real, hidden := f.checkFile(rel)
	if !hidden {
		return nil
	}
	if real == "" {
		return hiddenRefusal(rel, reason, rule)
	}
	r := hiddenRefusal(real, reason, rule)
	r.Message = fmt.Sprintf("%s is a symbolic link to %s, and %s", rel, real, r.Message)
	return r
}

// redactRead cuts and redacts the lines a call asked for from text, the
// decoded text of the file at rel whose bytes hash to sha.
func (s *Service) redactRead(rel, sha string, text []byte, a *ReadFileArgs) (*ReadFileResult, error) {
	total := contextbuilder.TextLines(text)
	if a.StartLine > total {
		return nil, invalidArgs(fmt.Errorf("field \"start_line\": %d is past the end of %s (%d lines)", a.StartLine, rel, total))
	}
	red, err := contextbuilder.RedactLines(s.redactor, s.scans, rel, sha, text, a.StartLine, a.EndLine)
	if err != nil {
		return nil, err
	}
	if len(red.Content) > MaxReadContent {
		return nil, &contextbuilder.Refusal{
			Code: contextbuilder.RefuseContextTooLarge,
			Message: fmt.Sprintf("lines %d-%d of %s are %d bytes, more than the %d KiB one read returns",
				red.StartLine, red.EndLine, rel, len(red.Content), MaxReadContent>>10),
			Advice: fmt.Sprintf("read fewer lines at a time with start_line and end_line (the file has %d lines)", red.TotalLines),
		}
	}
	return &ReadFileResult{Path: rel, StartLine: red.StartLine, EndLine: red.EndLine, TotalLines: red.TotalLines,
		SHA256: sha, Content: red.Content, Redactions: red.Redactions}, nil
}

// readLarge reads a file the index skipped as larger than its cap: only a
// line range, and only when it is a text file of at most MaxReadFile
// bytes. The whole file is read and scanned, whatever part is shown.
func (s *Service) readLarge(f *agentFolder, rel string, sk index.Skipped, a *ReadFileArgs) (*ReadFileResult, error) {
	if a.StartLine == 0 && a.EndLine == 0 {
		return nil, &contextbuilder.Refusal{
			Code:    contextbuilder.RefuseContextTooLarge,
			Message: fmt.Sprintf("%s is larger than the index's size cap (%s), so ctxd reads it only in parts", rel, sk.Detail),
			Advice:  fmt.Sprintf("give start_line and end_line to read a range of its lines (at most %d KiB of text per call)", MaxReadContent>>10),
		}
	}
	if err := f.checkLink(rel); err != nil {
		return nil, err
	}
	data, _, err := index.ReadInRoot(f.root.RealDir(), rel, MaxReadFile, f.w.allowHardLinks())
	switch {
	case errors.Is(err, index.ErrTooLarge):
		return nil, &contextbuilder.Refusal{
			Code:    contextbuilder.RefuseContextTooLarge,
			Message: fmt.Sprintf("%s is larger than the %d MiB ctxd reads at all", rel, MaxReadFile>>20),
			Advice:  "read another file; ctxd does not read parts of a file it cannot scan whole for secrets",
		}
	case err != nil:
		return nil, readRefusal(rel, err)
	}
	cls := classify.Detect(data)
	switch {
	case cls.Binary:
		return nil, skipRefusal(rel, index.Skipped{Path: rel, Reason: index.SkipBinary, Detail: cls.Reason})
	case cls.Encoding == classify.Unknown:
		return nil, skipRefusal(rel, index.Skipped{Path: rel, Reason: index.SkipEncoding, Detail: cls.Reason})
	}
	text, err := classify.Decode(data, cls.Encoding)
	if err != nil {
		return nil, skipRefusal(rel, index.Skipped{Path: rel, Reason: index.SkipEncoding, Detail: "it does not decode as " + string(cls.Encoding)})
	}
	sum := sha256.Sum256(data)
	return s.redactRead(rel, hex.EncodeToString(sum[:]), text, a)
}

// isDir reports whether rel is a directory holding indexed files.
func isDir(root *index.RootSnapshot, rel string) bool {
	paths := root.Paths()
	i, _ := slices.BinarySearch(paths, rel+"/")
	return i < len(paths) && strings.HasPrefix(paths[i], rel+"/")
}

// skipRefusal refuses a path the index skipped, with the reason and the
// rule or finding it recorded. The advice speaks of the tools' arguments:
// an agent reads it.
func skipRefusal(rel string, sk index.Skipped) *contextbuilder.Refusal {
	detail := sk.Detail
	if detail == "" {
		detail = string(sk.Reason)
	}
	unsupported := func(msg, advice string) *contextbuilder.Refusal {
		return &contextbuilder.Refusal{Code: contextbuilder.RefuseUnsupportedTarget, Message: msg, Advice: advice}
	}
	switch sk.Reason {
	case index.SkipDenyRule:
		if target, rule, ok := linkDetail(detail); ok {
			r := neverSendRefusal(target, rule)
			r.Message = fmt.Sprintf("%s is a symbolic link to %s, and %s", rel, target, r.Message)
			return r
		}
		return neverSendRefusal(rel, detail)
	case index.SkipGitignore:
		return unsupported(fmt.Sprintf("%s is ignored (%s), so ctxd does not index or send it", rel, detail),
			"read a file that is not ignored; list_files names the ignored paths and their rules")
	case index.SkipBinary:
		return unsupported(fmt.Sprintf("%s is binary (%s)", rel, detail), "read a text file")
	case index.SkipEncoding:
		return unsupported(fmt.Sprintf("%s is in an unsupported or unknown text encoding (%s)", rel, detail),
			"read a text file in UTF-8 (or UTF-16 with a byte order mark, or windows-1252)")
	case index.SkipOutsideSandbox:
		if index.IsHardLinkSkip(sk) {
			return &contextbuilder.Refusal{Code: contextbuilder.RefuseOutsideSandbox,
				Message: fmt.Sprintf("%s is %s, so ctxd does not read it", rel, index.HardLinkReason), Advice: index.HardLinkAdvice}
		}
		return &contextbuilder.Refusal{Code: contextbuilder.RefuseOutsideSandbox,
			Message: fmt.Sprintf("%s is a symbolic link to a path outside the workspace folder; ctxd never reads outside the project root", rel),
			Advice:  "read files inside the workspace folder"}
	case index.SkipDuplicate:
		return unsupported(fmt.Sprintf("%s is a symbolic link to a directory (%s)", rel, detail),
			"list the directory with list_files and read its files where they are")
	}
	return unsupported(fmt.Sprintf("%s cannot be read (%s: %s)", rel, sk.Reason, detail),
		"check that it is a readable regular file, then retry")
}

// readRefusal refuses a read that failed, described without the absolute
// path the operating system puts in its errors.
func readRefusal(rel string, err error) *contextbuilder.Refusal {
	switch {
	case errors.Is(err, index.ErrOutsideRoot):
		var se *index.SandboxError
		if errors.As(err, &se) && se.Reason == index.HardLinkReason {
			return &contextbuilder.Refusal{Code: contextbuilder.RefuseOutsideSandbox,
				Message: fmt.Sprintf("%s is %s, so ctxd does not read it", rel, index.HardLinkReason), Advice: index.HardLinkAdvice}
		}
		return outsideRefusal("path", rel, err)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, index.ErrNotIndexed):
		return notFound(rel, "check the argument \"path\" (relative to the workspace folder; case matters); list_files lists the files")
	case errors.Is(err, index.ErrChanged):
		// A writer was at it during every read: no version to show.
		return changingRefusal([]string{rel})
	}
	why := "a read error"
	switch {
	case errors.Is(err, fs.ErrPermission):
		why = "permission denied"
	case errors.Is(err, index.ErrNotRegular):
		// A FIFO, a socket or a device, refused without being opened
		// for a read that could block.
		why = "not a regular file"
	}
	return &contextbuilder.Refusal{Code: contextbuilder.RefuseUnsupportedTarget,
		Message: fmt.Sprintf("%s cannot be read: %s", rel, why), Advice: "check that it is a readable regular file, then retry"}
}
