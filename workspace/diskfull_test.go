package workspace_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/store"
)

// TestDiskFullRefusal: a full disk while writing a build's record is
// refused with its own code, and its message names no absolute path (the
// write error's text holds the temporary file's), in and out of a thread.
func TestDiskFullRefusal(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  func() *contextbuilder.Request
	}{
		{"outside a thread", func() *contextbuilder.Request { return request("Make Add saturate.", "", "", "") }},
		{"in a thread", func() *contextbuilder.Request { return request("Make Add saturate.", "th", "t1", "") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			tmp := filepath.Join(e.records(), "artifacts", "contexts", ".3f2a.tmp")
			restore := workspace.SetPutCanonical(func(*store.Store, store.Kind, []byte) (string, error) {
				return "", &fs.PathError{Op: "write", Path: tmp, Err: syscall.ENOSPC}
			})
			defer restore()
			_, err := e.w.Build(context.Background(), e.x.Snapshot(), tc.req(), e.opts)
			var ref *contextbuilder.Refusal
			if !errors.As(err, &ref) {
				t.Fatalf("err = %v, want a refusal", err)
			}
			if ref.Code != workspace.RefuseRecordDiskFull {
				t.Errorf("code = %s, want %s (message %q)", ref.Code, workspace.RefuseRecordDiskFull, ref.Message)
			}
			for _, s := range []string{ref.Message, ref.Advice} {
				if strings.Contains(s, e.dir) || strings.Contains(s, e.records()) || strings.Contains(s, ".tmp") || strings.Contains(s, "/tmp") {
					t.Errorf("%q names an absolute or temporary path", s)
				}
			}
		})
	}
	// Another write error keeps seed 001's code.
	e := newEnv(t, nil)
	restore := workspace.SetPutCanonical(func(*store.Store, store.Kind, []byte) (string, error) {
		return "", &fs.PathError{Op: "write", Path: "x", Err: syscall.EIO}
	})
	defer restore()
	_, err := e.w.Build(context.Background(), e.x.Snapshot(), request("Make Add saturate.", "", "", ""), e.opts)
	if got := refusalCode(t, err); got != workspace.RefuseSelectionFailed {
		t.Errorf("EIO: code = %s, want %s", got, workspace.RefuseSelectionFailed)
	}
}
