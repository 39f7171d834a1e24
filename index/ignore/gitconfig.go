package ignore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// This file reads what git's configuration says about core.excludesFile,
// without running git: a small reader of git-config(1) files that knows
// the syntax (sections, subsections, quoting, escapes, comments, line
// continuations) and [include] path, and nothing of the values but that
// one key.

// globalSource names the global excludes file in decisions
// ("core.excludesFile:3: *.log"): its real path is the user's home, no
// business of whoever reads a manifest.
const globalSource = "core.excludesFile"

// maxIncludeDepth is git's limit on nested [include]s; deeper is an error,
// as in git.
const maxIncludeDepth = 10

// errConfig is wrapped by every syntax error of a git config file.
var errConfig = errors.New("bad git config")

// configEntry is one "name = value" line of a config file: section and key
// lower-cased, subsection as written; hasValue is false for a bare "name"
// (git's implicit true).
type configEntry struct {
	section, subsection, key string
	value                    string
	hasValue                 bool
}

// parseGitConfig parses the text of a git config file and calls fn for
// every entry, in order. It follows git's config.c: a UTF-8 byte order
// mark is skipped; "#" and ";" start comments (outside quotes);
// "[section]", "[section \"sub\"]" (with \\ and \" escapes) and the
// legacy "[section.sub]" (all lower-cased) open sections; key names are
// letters, digits and "-", starting with a letter, case-insensitive; a
// value loses leading and trailing blanks, every other run of blanks
// outside quotes is kept with each blank made a space, quotes are removed,
// \\, \", \n, \t and \b are escapes and a backslash at the end of a line
// continues the value. "\r\n" ends a line like "\n".
func parseGitConfig(data []byte, fn func(configEntry) error) error {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	p := &configParser{data: data, line: 1}
	var section, sub string
	inSection := false
	for {
		c, ok := p.next()
		if !ok {
			return nil
		}
		switch {
		case c == '\n':
			continue
		case c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r':
			continue
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			s, ss, err := p.sectionHeader()
			if err != nil {
				return err
			}
			section, sub, inSection = s, ss, true
		case isASCIIAlpha(c):
			if !inSection {
				return p.errorf("a key outside of any section")
			}
			e, err := p.entry(c)
			if err != nil {
				return err
			}
			e.section, e.subsection = section, sub
			if err := fn(e); err != nil {
				return err
			}
		default:
			return p.errorf("unexpected character %q", c)
		}
	}
}

type configParser struct {
	data []byte
	pos  int
	line int
}

// next returns the next character, "\r\n" as "\n"; ok is false at the end.
func (p *configParser) next() (byte, bool) {
	if p.pos >= len(p.data) {
		return 0, false
	}
	c := p.data[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.data) && p.data[p.pos] == '\n' {
		c = '\n'
		p.pos++
	}
	if c == '\n' {
		p.line++
	}
	return c, true
}

func (p *configParser) skipLine() {
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return
		}
	}
}

func (p *configParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", errConfig, p.line, fmt.Sprintf(format, args...))
}

// sectionHeader reads the rest of "[section]" or "[section \"sub\"]".
func (p *configParser) sectionHeader() (section, sub string, err error) {
	var name strings.Builder
	for {
		c, ok := p.next()
		switch {
		case !ok || c == '\n':
			return "", "", p.errorf("an unterminated section header")
		case c == ']':
			if name.Len() == 0 {
				return "", "", p.errorf("an empty section name")
			}
			return name.String(), "", nil
		case c == ' ' || c == '\t':
			if name.Len() == 0 {
				// git reads `[ "x"]` as a section without a name; no
				// key of one matters here, and ctxd refuses the oddity.
				return "", "", p.errorf("an empty section name")
			}
			sub, err := p.subsection()
			if err != nil {
				return "", "", err
			}
			return name.String(), sub, nil
		case isASCIIAlpha(c) || '0' <= c && c <= '9' || c == '-' || c == '.':
			name.WriteByte(lowerASCII(c))
		default:
			return "", "", p.errorf("an invalid section name")
		}
	}
}

// subsection reads ` "sub"]` after a section name and a blank.
func (p *configParser) subsection() (string, error) {
	c, ok := p.next()
	for ok && (c == ' ' || c == '\t') {
		c, ok = p.next()
	}
	if !ok || c != '"' {
		return "", p.errorf("a section header with a blank but no quoted subsection")
	}
	var sub strings.Builder
	for {
		c, ok := p.next()
		switch {
		case !ok || c == '\n':
			return "", p.errorf("an unterminated subsection")
		case c == '"':
			if c, ok := p.next(); !ok || c != ']' {
				return "", p.errorf("a subsection not followed by \"]\"")
			}
			return sub.String(), nil
		case c == '\\':
			c, ok = p.next()
			if !ok || c == '\n' {
				return "", p.errorf("an unterminated subsection")
			}
			sub.WriteByte(c)
		default:
			sub.WriteByte(c)
		}
	}
}

// entry reads a "name [= value]" line whose first character is first.
func (p *configParser) entry(first byte) (configEntry, error) {
	var key strings.Builder
	key.WriteByte(lowerASCII(first))
	c, ok := p.next()
	for ok && (isASCIIAlpha(c) || '0' <= c && c <= '9' || c == '-') {
		key.WriteByte(lowerASCII(c))
		c, ok = p.next()
	}
	for ok && (c == ' ' || c == '\t') {
		c, ok = p.next()
	}
	e := configEntry{key: key.String()}
	switch {
	case !ok || c == '\n':
		return e, nil
	case c == '#' || c == ';':
		p.skipLine()
		return e, nil
	case c != '=':
		return e, p.errorf("an invalid key name")
	}
	v, err := p.value()
	if err != nil {
		return e, err
	}
	e.value, e.hasValue = v, true
	return e, nil
}

// value reads a value up to the end of its line.
func (p *configParser) value() (string, error) {
	var v strings.Builder
	quote, comment := false, false
	spaces := 0
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			if quote {
				return "", p.errorf("an unterminated quote")
			}
			return v.String(), nil
		}
		if comment {
			continue
		}
		if isConfigSpace(c) && !quote {
			if v.Len() > 0 {
				spaces++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			v.WriteByte(' ')
		}
		switch c {
		case '\\':
			c, ok = p.next()
			switch {
			case !ok:
				return "", p.errorf("a backslash at the end of the file")
			case c == '\n':
				continue
			case c == 't':
				c = '\t'
			case c == 'b':
				c = '\b'
			case c == 'n':
				c = '\n'
			case c == '\\' || c == '"':
			default:
				return "", p.errorf("an invalid escape sequence")
			}
			v.WriteByte(c)
		case '"':
			quote = !quote
		default:
			v.WriteByte(c)
		}
	}
}

// isConfigSpace is C's isspace in the C locale, without the newline the
// caller handles.
func isConfigSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'
}

func isASCIIAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// envLookup is the environment the global excludes file is found with:
// os.LookupEnv, or a test's.
type envLookup func(key string) (string, bool)

// get returns the variable's value, "" when unset.
func (e envLookup) get(key string) string {
	v, _ := e(key)
	return v
}

// excludesConfig is what git's configuration says about the global
// excludes file, read file after file as git reads them.
type excludesConfig struct {
	getenv envLookup
	set    bool   // core.excludesFile was set (possibly to "")
	value  string // its last value, as written
	origin string // the file that set it, for messages
}

// readConfigFile applies one config file: label names it in messages
// (never the machine's paths); a missing file is no error, as in git.
func (x *excludesConfig) readConfigFile(path, label string, depth int) error {
	if depth > maxIncludeDepth {
		return fmt.Errorf("%s: more than %d nested includes", label, maxIncludeDepth)
	}
	data, err := readSmallFile(path, true)
	if err != nil {
		if absent(err) {
			return nil
		}
		return fmt.Errorf("%s: %w", label, errWithoutPath(err))
	}
	return parseGitConfig(data, func(e configEntry) error {
		switch {
		case e.section == "core" && e.subsection == "" && e.key == "excludesfile":
			if !e.hasValue {
				return fmt.Errorf("%s: core.excludesFile has no value", label)
			}
			x.set, x.value, x.origin = true, e.value, label
		case e.section == "include" && e.subsection == "" && e.key == "path":
			if !e.hasValue {
				return fmt.Errorf("%s: include.path has no value", label)
			}
			if e.value == "" {
				return nil
			}
			inc, err := x.expand(e.value)
			if err != nil {
				return fmt.Errorf("%s: include.path: %w", label, err)
			}
			if !filepath.IsAbs(inc) {
				inc = filepath.Join(filepath.Dir(path), inc)
			}
			return x.readConfigFile(inc, "a file included by "+label, depth+1)
		}
		return nil
	})
}

// expand interpolates a path value as git does for "~/" and "~"; "~user"
// and "%(prefix)/" are not supported (resolving a user would mean asking
// the system's user database) and are errors.
func (x *excludesConfig) expand(v string) (string, error) {
	switch {
	case v == "~" || strings.HasPrefix(v, "~/"):
		home := x.getenv.get("HOME")
		if home == "" {
			return "", errors.New(`"~" in a path, but HOME is not set`)
		}
		return filepath.Join(home, filepath.FromSlash(strings.TrimPrefix(v, "~"))), nil
	case strings.HasPrefix(v, "~"):
		return "", errors.New(`"~user" paths are not supported`)
	case strings.HasPrefix(v, "%(prefix)/"):
		return "", errors.New(`"%(prefix)/" paths are not supported`)
	}
	return filepath.FromSlash(v), nil
}

// xdgConfigHome returns $XDG_CONFIG_HOME/git/<name>, else
// $HOME/.config/git/<name>, else "" (git's xdg_config_home).
func xdgConfigHome(getenv envLookup, name string) string {
	if x := getenv.get("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", name)
	}
	if h := getenv.get("HOME"); h != "" {
		return filepath.Join(h, ".config", "git", name)
	}
	return ""
}

// globalExcludesFile returns the path of the excludes file git would use
// for the repository whose common git directory is gitDir ("" for none):
// core.excludesFile from the global configuration (GIT_CONFIG_GLOBAL when
// set, else $XDG_CONFIG_HOME/git/config or ~/.config/git/config, then
// ~/.gitconfig) and from gitDir/config, the last value winning; when it is
// not set, git's default $XDG_CONFIG_HOME/git/ignore (or
// ~/.config/git/ignore). "" means none. A relative value is relative to
// root (git runs at the top of the work tree). The system configuration
// is not read.
func globalExcludesFile(getenv envLookup, root, gitDir string) (string, error) {
	x := &excludesConfig{getenv: getenv}
	type file struct{ path, label string }
	var files []file
	if g, ok := getenv("GIT_CONFIG_GLOBAL"); ok {
		if g != "" {
			files = append(files, file{g, "GIT_CONFIG_GLOBAL"})
		}
	} else {
		if p := xdgConfigHome(getenv, "config"); p != "" {
			files = append(files, file{p, "the XDG git config"})
		}
		if h := getenv.get("HOME"); h != "" {
			files = append(files, file{filepath.Join(h, ".gitconfig"), "~/.gitconfig"})
		}
	}
	if gitDir != "" {
		files = append(files, file{filepath.Join(gitDir, "config"), ".git/config"})
	}
	for _, f := range files {
		if err := x.readConfigFile(f.path, f.label, 0); err != nil {
			return "", err
		}
	}
	if !x.set {
		return xdgConfigHome(getenv, "ignore"), nil
	}
	if x.value == "" {
		return "", nil
	}
	p, err := x.expand(x.value)
	if err != nil {
		return "", fmt.Errorf("%s: core.excludesFile: %w", x.origin, err)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	return p, nil
}

// errWithoutPath drops the path of a *fs.PathError: messages never name
// the user's files by their location.
func errWithoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
