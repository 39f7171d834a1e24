package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SumsName is the file WriteSums writes into the directory it sums.
const SumsName = "SHA256SUMS"

// Sums returns the lines of a SHA256SUMS file over the regular files of
// dir (not its subdirectories, dot files or an existing SHA256SUMS),
// sorted by name, in the format of `sha256sum`: hex digest, two spaces,
// file name.
func Sums(dir string) ([]string, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var lines []string
	for _, de := range des {
		name := de.Name()
		if !de.Type().IsRegular() || name == SumsName || strings.HasPrefix(name, ".") {
			continue
		}
		sum, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		lines = append(lines, sum+"  "+name)
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][66:] < lines[j][66:] })
	return lines, nil
}

// WriteSums writes dir/SHA256SUMS with the lines of [Sums].
func WriteSums(dir string) error {
	lines, err := Sums(dir)
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		return fmt.Errorf("sums of %s: no files", dir)
	}
	if err := os.WriteFile(filepath.Join(dir, SumsName), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", SumsName, err)
	}
	return nil
}

func fileSHA256(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", name, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
