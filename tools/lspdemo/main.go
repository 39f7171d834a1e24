// Command lspdemo drives a real ctxd binary through one editor session on a
// workspace and prints what happened: it is what `make run` shows until the
// context builder lands. It speaks LSP exactly as an editor does: initialize
// with the workspace folder, open a file, edit it incrementally, ask for the
// status, shut down.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxd/ctxd/handlers"
	"github.com/ctxd/ctxd/server/lsptest"
)

func main() {
	binary := flag.String("binary", "bin/ctxd", "ctxd binary to run")
	root := flag.String("root", "testdata/example", "workspace folder")
	file := flag.String("file", "internal/store/store.go", "file to open and edit, relative to --root")
	flag.Parse()
	if err := run(*binary, *root, *file); err != nil {
		fmt.Fprintln(os.Stderr, "lspdemo:", err)
		os.Exit(1)
	}
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

func run(binary, root, file string) error {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	text, err := os.ReadFile(filepath.Join(absRoot, file))
	if err != nil {
		return fmt.Errorf("reading the file to open: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "serve", "--log-level", "warn")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", binary, err)
	}
	c := lsptest.New(stdout, stdin)
	fmt.Printf("LSP session: %s serve, workspace %s\n", binary, root)

	m, err := c.Call(ctx, 1, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": fileURI(absRoot),
		"capabilities": map[string]any{"general": map[string]any{"positionEncodings": []string{"utf-16"}}},
		"clientInfo":   map[string]any{"name": "lspdemo"},
	})
	if err := check(m, err); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var init struct {
		Capabilities struct {
			PositionEncoding       string
			ExecuteCommandProvider struct{ Commands []string }
		}
		ServerInfo struct{ Name, Version string }
	}
	_ = json.Unmarshal(m.Result, &init)
	fmt.Printf("  %-18s %s %s, position encoding %s, commands %v\n", "initialize", init.ServerInfo.Name, init.ServerInfo.Version,
		init.Capabilities.PositionEncoding, init.Capabilities.ExecuteCommandProvider.Commands)
	_ = c.Notify("initialized", map[string]any{})

	uri := fileURI(filepath.Join(absRoot, file))
	_ = c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": string(text)}})
	fmt.Printf("  %-18s %s (version 1, %d bytes)\n", "didOpen", file, len(text))

	insert := "// Edited by lspdemo.\n"
	_ = c.Notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}},
			"text":  insert,
		}},
	})
	fmt.Printf("  %-18s insert %d bytes at 0:0 (version 2)\n", "didChange", len(insert))

	m, err = c.Call(ctx, 2, "workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus"})
	if err := check(m, err); err != nil {
		return fmt.Errorf("ctxd.indexStatus: %w", err)
	}
	var st handlers.IndexStatusResult
	if err := json.Unmarshal(m.Result, &st); err != nil {
		return err
	}
	fmt.Printf("  %-18s %d workspace folder(s), %d open document(s)\n", "ctxd.indexStatus", len(st.WorkspaceFolders), len(st.OpenDocuments))
	want := fmt.Sprintf("%x", sha256.Sum256(append([]byte(insert), text...)))
	for _, d := range st.OpenDocuments {
		agree := "matches"
		if d.SHA256 != want {
			agree = "DIFFERS from"
		}
		fmt.Printf("  %-18s version %d, %d bytes, %d lines, sha256 %.12s… %s the edit applied locally\n", "", d.Version, d.ByteSize, d.LineCount, d.SHA256, agree)
		if d.SHA256 != want {
			return fmt.Errorf("server content differs from the expected edit")
		}
	}

	m, err = c.Call(ctx, 4, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}})
	if err := check(m, err); err != nil {
		return fmt.Errorf("documentSymbol: %w", err)
	}
	var syms []struct {
		Name     string
		Children []struct{ Name string }
	}
	if err := json.Unmarshal(m.Result, &syms); err != nil {
		return err
	}
	var outline []string
	for _, s := range syms {
		outline = append(outline, fmt.Sprintf("%s(%d)", s.Name, len(s.Children)))
	}
	fmt.Printf("  %-18s %d top-level symbols: %s\n", "documentSymbol", len(syms), strings.Join(outline, " "))

	m, err = c.Call(ctx, 5, "workspace/symbol", map[string]any{"query": "Store"})
	if err := check(m, err); err != nil {
		return fmt.Errorf("workspace/symbol: %w", err)
	}
	var found []struct {
		Name     string
		Location struct{ URI string }
	}
	if err := json.Unmarshal(m.Result, &found); err != nil {
		return err
	}
	for _, f := range found {
		fmt.Printf("  %-18s %s in %s\n", "workspace/symbol", f.Name, strings.TrimPrefix(f.Location.URI, fileURI(absRoot)+"/"))
	}

	// workspace/symbol waited for the initial scan, so the index is ready.
	m, err = c.Call(ctx, 6, "workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus"})
	if err := check(m, err); err != nil {
		return fmt.Errorf("ctxd.indexStatus: %w", err)
	}
	if err := json.Unmarshal(m.Result, &st); err != nil {
		return err
	}
	for _, r := range st.Index.Roots {
		fmt.Printf("  %-18s index %s, snapshot %d: %d files %v, %d symbols, skipped %v\n", "ctxd.indexStatus", st.Index.State, st.Index.SnapshotVersion, r.Files, r.FilesByLanguage, r.Symbols, r.SkippedByReason)
	}

	m, err = c.Call(ctx, 3, "shutdown", nil)
	if err := check(m, err); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	_ = c.Notify("exit", nil)
	_ = stdin.Close()
	err = cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	fmt.Printf("  %-18s exit code %d\n", "shutdown + exit", code)
	if code != 0 {
		return fmt.Errorf("ctxd exited with %d: %v", code, err)
	}
	return nil
}

func check(m *lsptest.Message, err error) error {
	if err != nil {
		return err
	}
	if m.Error != nil {
		return m.Error
	}
	return nil
}
