// Command dist is the deterministic part of `make dist`: it writes release
// archives whose bytes depend only on their files' contents and executable
// bits, the SHA256SUMS of a directory, and the license notices of the Go
// modules a binary links.
//
// Usage:
//
//	go run ./tools/dist archive -o OUT.tar.gz|OUT.zip -mtime UNIX DIR
//	go run ./tools/dist sums DIR
//	go run ./tools/dist notices -goos GOOS -goarch GOARCH -o FILE
//	go run ./tools/dist readme -template FILE -o FILE -version V -commit C -platform P [-exe .exe] [-crlf]
//	go run ./tools/dist license -license FILE ARTIFACT...
//
// archive stores DIR's files and directories sorted by name under DIR's
// base name, every entry with modification time UNIX (SOURCE_DATE_EPOCH),
// mode 0755 (directories, executables) or 0644, owner 0 and no owner names.
// sums writes DIR/SHA256SUMS over DIR's files, as `sha256sum -c` checks it.
// notices writes the license files of the modules `go list -deps .`
// reports for that platform. readme fills the README.txt template of an
// archive and aligns its tables (see [RenderReadme]). license checks that
// every .vsix, .tar.gz and .zip given carries the LICENSE file (see
// [CheckLicense]).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: dist archive|sums|notices|readme|license ...")
	}
	switch args[0] {
	case "archive":
		fs := flag.NewFlagSet("archive", flag.ContinueOnError)
		out := fs.String("o", "", "archive to write (.tar.gz or .zip)")
		mtime := fs.Int64("mtime", -1, "modification time of every entry, in seconds since 1970 (SOURCE_DATE_EPOCH)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *out == "" || *mtime < 0 || fs.NArg() != 1 {
			return fmt.Errorf("usage: dist archive -o OUT -mtime UNIX DIR")
		}
		return WriteArchive(*out, fs.Arg(0), time.Unix(*mtime, 0))
	case "sums":
		if len(args) != 2 {
			return fmt.Errorf("usage: dist sums DIR")
		}
		return WriteSums(args[1])
	case "notices":
		fs := flag.NewFlagSet("notices", flag.ContinueOnError)
		goos := fs.String("goos", "", "GOOS of the binary")
		goarch := fs.String("goarch", "", "GOARCH of the binary")
		out := fs.String("o", "", "file to write")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *goos == "" || *goarch == "" || *out == "" {
			return fmt.Errorf("usage: dist notices -goos GOOS -goarch GOARCH -o FILE")
		}
		mods, err := LinkedModules(".", ".", *goos, *goarch)
		if err != nil {
			return err
		}
		std, err := goStd()
		if err != nil {
			return err
		}
		text, err := Notices(append([]Module{std}, mods...))
		if err != nil {
			return err
		}
		if err := os.WriteFile(*out, []byte(text), 0o644); err != nil {
			return fmt.Errorf("write notices: %w", err)
		}
		return nil
	case "readme":
		fs := flag.NewFlagSet("readme", flag.ContinueOnError)
		tmpl := fs.String("template", "", "the README.txt template (tools/dist/README.txt.in)")
		out := fs.String("o", "", "file to write")
		version := fs.String("version", "", "the release version (@VERSION@)")
		commit := fs.String("commit", "", "the commit (@COMMIT@)")
		platform := fs.String("platform", "", "the archive's platform, e.g. linux-x64 (@PLATFORM@)")
		exe := fs.String("exe", "", "the executable suffix, .exe on Windows (@EXE@)")
		crlf := fs.Bool("crlf", false, "end lines with CR LF (the Windows archive)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *tmpl == "" || *out == "" || *version == "" || *commit == "" || *platform == "" || fs.NArg() != 0 {
			return fmt.Errorf("usage: dist readme -template FILE -o FILE -version V -commit C -platform P [-exe .exe] [-crlf]")
		}
		vars := map[string]string{"VERSION": *version, "COMMIT": *commit, "PLATFORM": *platform, "EXE": *exe}
		return writeReadme(*tmpl, *out, vars, *crlf)
	case "license":
		fs := flag.NewFlagSet("license", flag.ContinueOnError)
		lic := fs.String("license", "", "the repository's LICENSE")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *lic == "" || fs.NArg() == 0 {
			return fmt.Errorf("usage: dist license -license FILE ARTIFACT...")
		}
		text, err := os.ReadFile(*lic)
		if err != nil {
			return fmt.Errorf("read license: %w", err)
		}
		return CheckLicense(text, fs.Args())
	default:
		return fmt.Errorf("unknown command %q: want archive, sums, notices, readme or license", args[0])
	}
}

// goStd is the Go distribution whose standard library the binary links.
func goStd() (Module, error) {
	out, err := exec.Command("go", "env", "GOVERSION", "GOROOT").Output()
	if err != nil {
		return Module{}, fmt.Errorf("go env: %w", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return Module{}, fmt.Errorf("go env: unexpected output %q", out)
	}
	return Module{Path: "Go standard library", Version: f[0], Dir: f[1]}, nil
}
