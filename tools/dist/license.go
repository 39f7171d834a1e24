package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// licenseEntry is where a release artifact carries ctxd's LICENSE: a
// .vsix at extension/LICENSE.txt (vsce adds the .txt), an archive at
// LICENSE in its top directory, which is named after the archive.
func licenseEntry(artifact string) (string, error) {
	base := filepath.Base(artifact)
	switch {
	case strings.HasSuffix(base, ".vsix"):
		return "extension/LICENSE.txt", nil
	case strings.HasSuffix(base, ".tar.gz"):
		return strings.TrimSuffix(base, ".tar.gz") + "/LICENSE", nil
	case strings.HasSuffix(base, ".zip"):
		return strings.TrimSuffix(base, ".zip") + "/LICENSE", nil
	}
	return "", fmt.Errorf("%s: not a .vsix, .tar.gz or .zip", artifact)
}

// CheckLicense reports an error unless every artifact carries license
// byte for byte at its licenseEntry. vsce only warns about a missing
// LICENSE when its output is not a terminal, and an archive staged
// without one would be missed by every other step of make dist.
func CheckLicense(license []byte, artifacts []string) error {
	var errs []error
	for _, a := range artifacts {
		name, err := licenseEntry(a)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got, err := readEntry(a, name)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", a, err))
		case !bytes.Equal(got, license):
			errs = append(errs, fmt.Errorf("%s: %s is not the repository's LICENSE", a, name))
		}
	}
	return errors.Join(errs...)
}

// errNoEntry is the failure of readEntry for an archive without the entry.
var errNoEntry = errors.New("no such entry")

// readEntry returns the contents of the regular file name in the zip
// (.vsix, .zip) or gzipped tar archive at path.
func readEntry(path, name string) ([]byte, error) {
	if strings.HasSuffix(path, ".tar.gz") {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		tr := tar.NewReader(gz)
		for {
			hdr, err := tr.Next()
			if err == io.EOF {
				return nil, fmt.Errorf("%s: %w", name, errNoEntry)
			}
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", path, err)
			}
			if hdr.Name == name && hdr.Typeflag == tar.TypeReg {
				return io.ReadAll(tr)
			}
		}
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name == name && f.Mode().IsRegular() {
			rc, err := f.Open()
			if err != nil {
				return nil, fmt.Errorf("reading %s in %s: %w", name, path, err)
			}
			defer rc.Close()
			return io.ReadAll(rc)
		}
	}
	return nil, fmt.Errorf("%s: %w", name, errNoEntry)
}
