package policy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"
)

// MaxFileSize is the largest configuration file Load reads; a larger one is
// not something a team wrote by hand, and reading it could cost unbounded
// memory.
const MaxFileSize = 1 << 20

// Load reads and parses <root>/.ctxd/config.json, root being the workspace
// root in the operating system's form. An absent file (or .ctxd directory)
// gives [Default]. A file that exists but cannot be read is an *[Error]
// with ReasonReadFailed: permissions, not a regular file (a directory, a
// FIFO), more than MaxFileSize bytes, not valid UTF-8, a dangling symbolic
// link, or a symbolic link leading out of root (the file is opened through
// an os.Root, which refuses to leave it). An invalid file is a
// ReasonInvalid *Error as from [Parse].
func Load(root string) (*Config, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, readFailed(fmt.Sprintf("the workspace root cannot be opened: %v", err), err)
	}
	defer r.Close()
	f, err := r.OpenFile(ConfigPath, openFlags, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// Absent, or a symbolic link to nothing: only the first means
			// "no configuration"; a link that points nowhere was meant to
			// point somewhere.
			if _, lerr := r.Lstat(ConfigPath); errors.Is(lerr, fs.ErrNotExist) {
				return Default(), nil
			}
			return nil, readFailed("it is a symbolic link to a file that does not exist", err)
		}
		return nil, readFailed(fmt.Sprintf("it cannot be opened (a symbolic link must stay inside the workspace): %v", err), err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, readFailed(fmt.Sprintf("it cannot be examined: %v", err), err)
	}
	if !info.Mode().IsRegular() {
		return nil, readFailed(fmt.Sprintf("it is not a regular file (%s)", fileKind(info.Mode())), nil)
	}
	if info.Size() > MaxFileSize {
		return nil, readFailed(fmt.Sprintf("it is %d bytes, more than the %d bytes ctxd reads", info.Size(), MaxFileSize), nil)
	}
	// The size may change between Stat and reading: read one byte more
	// than allowed to notice.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, readFailed(fmt.Sprintf("it cannot be read: %v", err), err)
	}
	if len(data) > MaxFileSize {
		return nil, readFailed(fmt.Sprintf("it is more than the %d bytes ctxd reads", MaxFileSize), nil)
	}
	if !utf8.Valid(data) {
		line, col := position(data, firstInvalidUTF8(data))
		return nil, readFailed(fmt.Sprintf("it is not valid UTF-8 (line %d, column %d)", line, col), nil)
	}
	return Parse(data)
}

// readFailed makes a ReasonReadFailed error; why completes "<path>: ".
func readFailed(why string, cause error) *Error {
	return &Error{
		Reason:  ReasonReadFailed,
		Path:    ConfigPath,
		Message: ConfigPath + ": " + why,
		Advice: fmt.Sprintf("Make %s a readable regular UTF-8 file of at most %d bytes inside the workspace.",
			ConfigPath, MaxFileSize),
		cause: cause,
	}
}

// fileKind names a non-regular file mode for a message.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// AllowsHardLinks reports the sandbox.allow_hard_links of the workspace at
// root, read with the same strict loader as the builds. A configuration
// that cannot be loaded allows nothing: fail closed. It is the index's
// Options.HardLinks.
func AllowsHardLinks(root string) bool {
	c, err := Load(root)
	return err == nil && c.File.Sandbox.AllowHardLinks
}
