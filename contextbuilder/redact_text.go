package contextbuilder

// This file lets the workspace layer's read tools show a file's lines
// exactly as a bundle's file block would: the same slicing, the same
// secret redaction and the same removal of hidden characters, through
// the builder's own code rather than a copy of it.

// RedactedLines is a run of a file's lines as a bundle block shows them.
type RedactedLines struct {
	// Content is the lines after redaction, without the line break that
	// ends the last of them unless it is the file's last line.
	Content string
	// StartLine and EndLine are the 1-based, inclusive lines shown.
	StartLine, EndLine int
	// TotalLines is the number of lines of the text (see [TextLines]).
	TotalLines int
	// Redactions are what was taken out of Content: pattern_redacted
	// entries naming the rule and the file line, never the value.
	Redactions []Redaction
}

// TextLines is the number of lines of a text as the builder counts them
// for line ranges (plan_step target_files' PATH:L1-L2): a line ends at a
// "\n", a final "\n" starts no new line, and an empty text has one line.
// A caller validating a line range against a text uses it so that its
// bounds agree with [RedactLines].
func TextLines(text []byte) int { return newLineIndex(text).lines() }

// RedactLines returns lines from..to (1-based, inclusive; from 0 means 1,
// to 0 or past the end means the last line) of text, the decoded UTF-8
// text of the file at path, redacted as the builder redacts a file block:
// red scans the whole text (through scans, keyed by the rule set, path and
// sha, the content sha256 of the file; the nil *ScanCache and an empty sha
// scan afresh), and each finding is carried into the lines it overlaps,
// so a secret that starts before from or ends after to (a private key
// cut by the range) is still removed from the part shown. Hidden
// characters (bidirectional controls, Unicode tags) are removed and the
// result scanned again, as in a bundle.
//
// A finding that cannot be redacted safely (uncertain, or the whole file
// is the credential) or a text that cannot be scanned gives the refusal a
// build gives for a required block: a *Refusal with code
// REFUSE_SECRET_RISK. from past the end of the text is the caller's to
// reject; here it shows the last line.
func RedactLines(red Redactor, scans *ScanCache, path, sha string, text []byte, from, to int) (*RedactedLines, error) {
	if text == nil {
		text = []byte{}
	}
	li := newLineIndex(text)
	total := li.lines()
	from = max(1, min(from, total))
	if to <= 0 || to > total {
		to = total
	}
	to = max(from, to)
	it := &item{typ: BlockFile, priority: P0, path: path, text: text, li: li}
	e := &env{redactor: red, mem: newMemo(), opts: Options{Scans: scans}}
	r := &rendering{title: path}
	var maps []contentMap
	if from == 1 && to == total {
		r.content, maps = segmentsText(li, []segment{{span: span{0, len(text)}, line: 1}}, LevelFull)
	} else {
		r.content, maps = segmentsText(li, []segment{{span: li.lineSpan(from, to), line: from}}, LevelRegion)
	}
	// The whole file's findings, shared with builds through scans; the
	// memo is where redact looks for them.
	whole, err := scans.scan(e.redactor, path, sha, text)
	if err != nil {
		r.risk = riskUnscannable
	} else {
		e.mem.findings[path] = whole
		hidden := hiddenLines(it, r.content, maps)
		e.redact(it, r, maps)
		if len(hidden) > 0 && r.risk == "" {
			e.stripHidden(it, r, hidden)
		}
	}
	if r.risk != "" {
		return nil, secretRefusal(it, r, &trail{redacts: r.redactions})
	}
	reds := r.redactions
	if reds == nil {
		reds = []Redaction{}
	}
	return &RedactedLines{Content: r.content, StartLine: from, EndLine: to, TotalLines: total, Redactions: reds}, nil
}

// QuoteRequestPath renders a path a client sent for a message, as the
// builder's refusals do: as sent when it is short printable UTF-8, else
// Go-quoted and cut to 256 bytes. A message never shows more of a path
// than the client wrote (never the root, never where a link leads).
func QuoteRequestPath(s string) string { return quoteRequestPath(s) }
