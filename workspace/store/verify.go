package store

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gowebpki/jcs"
)

// Statuses of an [ArtifactCheck].
const (
	StatusOK       = "ok"
	StatusMismatch = "mismatch"
)

// Fields of a mismatched [ArtifactCheck]: what is wrong with the file.
const (
	// FieldSHA256: the content does not hash to the file name.
	FieldSHA256 = "sha256"
	// FieldCanonical: the content hashes to the name but is not the JCS
	// form of a JSON value, so Put would never have written it.
	FieldCanonical = "canonical"
	// FieldName: the file is not named <64 lowercase hex>.json, or is not
	// a regular file.
	FieldName = "name"
)

// ArtifactCheck is the result of checking one file of an artifact
// directory.
type ArtifactCheck struct {
	Kind Kind `json:"kind"`
	// Name is the file name inside .ctxd/artifacts/<kind>.
	Name string `json:"name"`
	// Status is [StatusOK] or [StatusMismatch].
	Status string `json:"status"`
	// Field says what mismatched ([FieldSHA256], [FieldCanonical] or
	// [FieldName]); empty when Status is ok.
	Field string `json:"field,omitempty"`
	// Message explains a mismatch; empty when Status is ok.
	Message string `json:"message,omitempty"`
}

// Verify checks every file of every artifact directory: its name, that
// its content hashes to the name, and that the content is canonical JSON.
// The checks are sorted by kind (in [Kinds] order) then name; the slice
// is empty, not nil, when there is no artifact. Temp files (*.tmp) are
// skipped: they are writes in progress or crash leftovers that Open
// removes, never artifacts. The error is for a directory or file that
// cannot be read.
func (s *Store) Verify() ([]ArtifactCheck, error) {
	checks := []ArtifactCheck{}
	for _, k := range Kinds() {
		dir := filepath.Join(artifactsDir, string(k))
		f, err := s.fsys.Open(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("verifying %s artifacts: %w", k, err)
		}
		ents, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("verifying %s artifacts: %w", k, err)
		}
		slices.SortFunc(ents, func(a, b fs.DirEntry) int { return cmp.Compare(a.Name(), b.Name()) })
		for _, e := range ents {
			if e.Type().IsRegular() && isTemp(e.Name()) {
				continue
			}
			c, err := s.check(k, dir, e)
			if err != nil {
				return nil, fmt.Errorf("verifying %s artifacts: %w", k, err)
			}
			checks = append(checks, c)
		}
	}
	return checks, nil
}

// check checks one directory entry of an artifact directory.
func (s *Store) check(k Kind, dir string, e fs.DirEntry) (ArtifactCheck, error) {
	c := ArtifactCheck{Kind: k, Name: e.Name(), Status: StatusOK}
	mismatch := func(field, format string, args ...any) (ArtifactCheck, error) {
		c.Status, c.Field, c.Message = StatusMismatch, field, fmt.Sprintf(format, args...)
		return c, nil
	}
	if !e.Type().IsRegular() {
		return mismatch(FieldName, "not a regular file (%s)", e.Type())
	}
	sha, ok := strings.CutSuffix(e.Name(), ".json")
	if !ok || !isSHA256(sha) {
		return mismatch(FieldName, "the name is not <64 lowercase hex digits>.json")
	}
	data, err := s.fsys.ReadFile(filepath.Join(dir, e.Name()))
	if err != nil {
		return c, err
	}
	if field, msg := checkContent(sha, data); field != "" {
		return mismatch(field, "%s", msg)
	}
	return c, nil
}

// checkContent checks an artifact's bytes against the hash in its name;
// it returns the mismatched field and why, or "" when they match.
func checkContent(sha string, data []byte) (field, message string) {
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != sha {
		return FieldSHA256, "the content hashes to " + got
	}
	canon, err := jcs.Transform(data)
	if err != nil {
		return FieldCanonical, "the content is not JSON"
	}
	if !bytes.Equal(canon, data) {
		return FieldCanonical, "the content is JSON but not in canonical (RFC 8785) form"
	}
	return "", ""
}
