package framing

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// DefaultMaxContentLength is the body size limit used when
// [Options.MaxContentLength] is zero. It is far above any realistic LSP
// message (a didOpen of a very large source file) while still bounding what
// a single announced length can make the server hold in memory.
const DefaultMaxContentLength = 64 << 20

const (
	// maxHeaderLine bounds one header line, terminator included. Real LSP
	// headers are a few dozen bytes; the bound stops a peer that never sends
	// a newline from growing the buffer.
	maxHeaderLine = 8 << 10

	// maxHeaderLines bounds the lines in one header block. LSP defines
	// only two headers, so a long run of header-like lines is garbage to
	// report and skip, not a frame to keep waiting on.
	maxHeaderLines = 32

	// readBufferSize must exceed maxHeaderLine so that a whole capped line
	// can be inspected in place with Peek before any of it is consumed.
	readBufferSize = 2 * maxHeaderLine

	// initialBodyAlloc caps the up-front allocation for a body. Larger
	// bodies grow as their bytes actually arrive, so a peer that announces a
	// large (but permitted) length and then sends nothing costs little.
	initialBodyAlloc = 1 << 20
)

// contentLengthNeedle is what resynchronisation looks for. It is lower
// case because the search folds ASCII case.
var (
	contentLengthNeedle = []byte("content-length:")
	contentLengthName   = contentLengthNeedle[:len(contentLengthNeedle)-1]
)

// Options tune a [Stream]. The zero value is valid.
type Options struct {
	// MaxContentLength is the largest body accepted, in bytes. A frame
	// announcing more is answered with an InvalidRequest error and its body
	// is skipped without being stored. Zero or negative means
	// [DefaultMaxContentLength].
	MaxContentLength int64

	// Logger receives a record for every frame or message the stream
	// rejects or drops. Nil means slog.Default(). Records carry sizes,
	// methods, ids and the kind of problem, never body bytes, because
	// bodies carry the user's file contents.
	Logger *slog.Logger
}

// Stream is the [jsonrpc2.Stream] returned by [NewStream]. Read must not be
// called concurrently with itself (jsonrpc2.Conn never does); Write may be
// called from any goroutine, including concurrently with Read.
type Stream struct {
	rwc    io.ReadWriteCloser
	in     *bufio.Reader
	maxLen int64
	log    *slog.Logger

	// writeMu serialises whole frames. jsonrpc2.Conn already serialises its
	// own Writes, but Read writes error replies from another goroutine and
	// those must not land inside a frame the Conn is writing.
	writeMu sync.Mutex

	// consumed counts bytes taken out of in, so Read can report how much
	// input a message (and any garbage skipped before it) used up. Only the
	// reading goroutine touches it.
	consumed int64
}

var _ jsonrpc2.Stream = (*Stream)(nil)

// NewStream returns a jsonrpc2.Stream that reads and writes LSP base-protocol
// frames on rwc. Its dynamic type is *[Stream].
func NewStream(rwc io.ReadWriteCloser, opts Options) jsonrpc2.Stream {
	maxLen := opts.MaxContentLength
	if maxLen <= 0 {
		maxLen = DefaultMaxContentLength
	}
	// A body is held in one slice, so the limit cannot exceed what an int
	// can index (only relevant on 32-bit platforms).
	maxLen = min(maxLen, int64(math.MaxInt))
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return &Stream{
		rwc:    rwc,
		in:     bufio.NewReaderSize(rwc, readBufferSize),
		maxLen: maxLen,
		log:    logger,
	}
}

// Read returns the next valid message. Malformed frames and invalid
// messages are answered (when they are requests or unidentifiable) or
// logged and dropped (notifications and responses), and reading continues,
// because jsonrpc2.Conn closes the connection on any error from Read. The
// only errors returned are those of the underlying reader and of ctx; a
// reader that reaches EOF, even in the middle of a frame, yields an error
// satisfying errors.Is(err, io.EOF). The count is the number of input bytes
// consumed, including skipped ones.
//
// Error replies are written from inside Read, so a peer that never reads
// its input can block Read, as it would block any other write.
func (s *Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	start := s.consumed
	for {
		if err := ctx.Err(); err != nil {
			return nil, s.consumed - start, err
		}
		body, err := s.readFrame(ctx)
		if err != nil {
			return nil, s.consumed - start, err
		}
		if body == nil {
			continue
		}
		if msg := s.decode(ctx, body); msg != nil {
			return msg, s.consumed - start, nil
		}
	}
}

// Write sends msg as one frame. Frames from Write and the error replies
// sent by Read never interleave.
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if msg == nil {
		return 0, errors.New("writing message: nil message")
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshaling %T: %w", msg, err)
	}
	n, err := s.writeFrame(body)
	if err != nil {
		return int64(n), fmt.Errorf("writing %d-byte message: %w", len(body), err)
	}
	return int64(n), nil
}

// Close closes the underlying connection, which unblocks a pending Read or
// Write. It deliberately does not take the write lock, since a Write
// blocked on a peer that stopped reading holds it.
func (s *Stream) Close() error {
	return s.rwc.Close()
}

// writeFrame writes header and body with a single Write so that even a
// writer without its own locking sees each frame as one unit.
func (s *Stream) writeFrame(body []byte) (int, error) {
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)

	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.rwc.Write(frame)
}

// readFrame reads one frame. It returns the body of a well-framed message,
// or nil and a nil error when the frame was bad and has already been
// answered and skipped, or an error from the underlying reader.
func (s *Stream) readFrame(ctx context.Context) ([]byte, error) {
	length, problem, err := s.readHeader()
	if err != nil {
		return nil, err
	}
	if problem != "" {
		s.rejectFrame(ctx, jsonrpc2.ParseError, problem, 0)
		if err := s.resync(); err != nil {
			return nil, err
		}
		return nil, nil
	}
	if length > s.maxLen {
		// The framing is intact, so the body can be skipped exactly rather
		// than resynchronised. The reply goes out before the skip, so that a
		// client that announced a huge length and never sends it still
		// learns why nothing happens. (A peer that writes the whole body
		// before reading anything could block on a synchronous pipe; LSP
		// clients read on a loop of their own, and OS pipes buffer.)
		s.rejectFrame(ctx, jsonrpc2.InvalidRequest,
			fmt.Sprintf("message body of %d bytes exceeds the limit of %d bytes", length, s.maxLen), length)
		n, err := io.CopyN(io.Discard, s.in, length)
		s.consumed += n
		if err != nil {
			return nil, fmt.Errorf("skipping %d-byte body over the %d-byte limit after %d bytes: %w", length, s.maxLen, n, err)
		}
		return nil, nil
	}
	return s.readBody(length)
}

// readHeader parses one header block. On success it returns the announced
// body length. On a framing problem it returns a description for the peer,
// having consumed at least one byte (so resynchronisation always makes
// progress) but nothing past a Content-Length header that resynchronisation
// should find. err is only set when the underlying reader fails.
func (s *Stream) readHeader() (length int64, problem string, err error) {
	length = -1
	lines := 0
	for {
		line, tooLong, err := s.peekLine()
		if err != nil {
			s.discard(len(line))
			if errors.Is(err, io.EOF) && (lines > 0 || len(line) > 0) {
				return 0, "", fmt.Errorf("reading message header: input ended inside a header: %w", err)
			}
			return 0, "", fmt.Errorf("reading message header: %w", err)
		}

		// A Content-Length header glued to the end of other bytes is where
		// the sender's next real frame most likely starts (for example
		// after a body that was longer than its announced length), so
		// report the garbage and resume right at the header.
		if len(line) > 1 {
			if i := indexFold(line[1:], contentLengthNeedle); i >= 0 {
				s.discard(i + 1)
				return 0, "unexpected data before a Content-Length header", nil
			}
		}
		if tooLong {
			s.discard(1)
			return 0, fmt.Sprintf("header line longer than %d bytes", maxHeaderLine), nil
		}
		s.discard(len(line))

		text := trimEOL(line)
		if len(text) == 0 {
			if lines == 0 {
				// Tolerate stray line breaks between frames, which some
				// clients emit after a body.
				continue
			}
			if length < 0 {
				return 0, "missing Content-Length header", nil
			}
			return length, "", nil
		}
		lines++
		if lines > maxHeaderLines {
			return 0, fmt.Sprintf("more than %d header lines", maxHeaderLines), nil
		}

		name, value, ok := bytes.Cut(text, []byte(":"))
		if !ok || !isToken(name) {
			return 0, "malformed header line", nil
		}
		if !bytes.EqualFold(name, contentLengthName) {
			continue // Content-Type and anything else carry nothing we use.
		}
		n, problem := parseContentLength(value)
		if problem != "" {
			return 0, problem, nil
		}
		if length >= 0 && n != length {
			return 0, "conflicting Content-Length headers", nil
		}
		length = n
	}
}

// peekLine returns the next header line, terminator included, without
// consuming it, so that the caller can choose to resume inside it. When no
// newline occurs within maxHeaderLine bytes it returns that prefix with
// tooLong set. On a read error it returns whatever partial line is
// buffered.
func (s *Stream) peekLine() (line []byte, tooLong bool, err error) {
	// scanned avoids rescanning the prefix each time more bytes arrive,
	// which would be quadratic for a peer that trickles a long line.
	scanned := 0
	for {
		buf, _ := s.in.Peek(s.in.Buffered())
		window := buf[:min(len(buf), maxHeaderLine)]
		if i := bytes.IndexByte(window[scanned:], '\n'); i >= 0 {
			return window[:scanned+i+1], false, nil
		}
		scanned = len(window)
		if len(buf) >= maxHeaderLine {
			return window, true, nil
		}
		if _, err := s.in.Peek(len(buf) + 1); err != nil {
			buf, _ = s.in.Peek(s.in.Buffered())
			return buf, false, err
		}
	}
}

// resync discards input up to the next Content-Length header (matched
// without regard to case and anywhere in a line), leaving the reader at
// the header so the next readHeader starts a fresh frame with it. It is
// the only recovery possible once a frame's length is unknown.
func (s *Stream) resync() error {
	for {
		n := max(s.in.Buffered(), len(contentLengthNeedle))
		buf, err := s.in.Peek(n)
		if i := indexFold(buf, contentLengthNeedle); i >= 0 {
			s.discard(i)
			return nil
		}
		if err != nil {
			s.discard(len(buf))
			return fmt.Errorf("skipping to the next Content-Length header: %w", err)
		}
		// Keep a tail that may be the start of a header split across reads.
		s.discard(len(buf) - (len(contentLengthNeedle) - 1))
	}
}

// readBody reads an n-byte body, n being positive and within the limit.
func (s *Stream) readBody(n int64) ([]byte, error) {
	body := make([]byte, 0, min(n, initialBodyAlloc))
	for int64(len(body)) < n {
		if len(body) == cap(body) {
			// Double, but never past n: growth tracks bytes received, not
			// bytes promised.
			want := min(n, 2*int64(cap(body)))
			body = slices.Grow(body, int(want)-len(body))
		}
		end := int(min(int64(cap(body)), n))
		m, err := s.in.Read(body[len(body):end])
		body = body[:len(body)+m]
		s.consumed += int64(m)
		if err != nil {
			if int64(len(body)) == n && errors.Is(err, io.EOF) {
				break // The body is complete; EOF will surface on the next Read.
			}
			return nil, fmt.Errorf("reading %d-byte message body: stopped after %d bytes: %w", n, len(body), err)
		}
	}
	return body, nil
}

func (s *Stream) discard(n int) {
	d, _ := s.in.Discard(n)
	s.consumed += int64(d)
}

// parseContentLength validates a Content-Length value. The problem strings
// go back to the peer, so they say what was wrong without quoting the raw
// value, which may be arbitrary bytes.
func parseContentLength(value []byte) (int64, string) {
	v := bytes.TrimSpace(value)
	if len(v) == 0 {
		return 0, "Content-Length header has no value"
	}
	negative := v[0] == '-'
	digits := v
	if negative {
		digits = v[1:]
	}
	if len(digits) == 0 || !allDigits(digits) {
		return 0, "Content-Length header value is not a decimal number"
	}
	n, err := strconv.ParseInt(string(digits), 10, 64)
	if err != nil {
		// No sender means a length beyond int64; treating it as garbage and
		// resynchronising beats swallowing the rest of the stream.
		return 0, "Content-Length header value is out of range"
	}
	if negative && n != 0 {
		return 0, fmt.Sprintf("Content-Length header value -%d is negative", n)
	}
	if n == 0 {
		return 0, "Content-Length header value is zero, but a message body cannot be empty"
	}
	return n, ""
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isToken reports whether b is an RFC 9110 token, the only form a header
// name may take. Anything else means the line is not a header at all.
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// trimEOL strips the line terminator, accepting a bare "\n" as well as the
// "\r\n" the protocol requires.
func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// indexFold returns the index of the first occurrence of lower in s,
// folding ASCII case in s, or -1. lower must be lower-case ASCII.
func indexFold(s, lower []byte) int {
	for i := 0; i+len(lower) <= len(s); i++ {
		if asciiLower(s[i]) != lower[0] {
			continue
		}
		j := 1
		for j < len(lower) && asciiLower(s[i+j]) == lower[j] {
			j++
		}
		if j == len(lower) {
			return i
		}
	}
	return -1
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}
