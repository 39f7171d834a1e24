// Command mcpbench measures ctxd mcp the way an agent host meets it: it
// copies a real source tree (GOROOT/src/net by default), plants
// credentials in it (a .env, a Go config struct, a deployment YAML, a PEM
// private key, each freshly random), starts `ctxd mcp --root COPY
// --cache-dir off`, and drives it over stdio with its own minimal
// JSON-RPC client (no SDK, so that what is measured is the wire). Then it
// reports, each against its goal:
//
//   - the size of the frames an agent host loads: tools/list, and
//     build_context with the default result budget and with
//     max_result_tokens, the rest of a bundle being reachable through the
//     result's resource links, each of which must answer resources/read;
//   - a bundle of the credential files themselves coming back redacted;
//   - the agent tools (search_symbols, find_references, read_file,
//     list_files) answering, and read_file refusing what the sandbox and
//     the never-send rules exclude, with a REFUSE_ code, while a file
//     holding credentials comes back redacted;
//   - no planted secret, whole or in part, in any frame of the run;
//   - refusals whose texts name no CLI flag and no editor field, advice
//     an agent cannot follow, and a too-large refusal within the budget;
//   - record_execution without output refused, verify and budget sized;
//   - malformed lines answered with a JSON-RPC error while the server
//     keeps serving;
//   - the server's CPU time (user + system) and the session's wall time,
//     as information.
//
// A goal is met, missed, or not available: the server under test may not
// have a feature yet (a tool, an argument, resource links), and the bench
// says so rather than failing or crashing. A request without an answer
// within -timeout is a finding. The exit status is 0 whatever the goals,
// 1 with -strict when a goal is missed or not available, 2 when the run
// could not be set up.
//
// Usage: go run ./tools/mcpbench -ctxd bin/ctxd [-src DIR] [-keep] [-timeout 60s] [-md FILE] [-strict]
//
// It runs the binary from the outside and is never imported by it. The
// frame parsing, the leak scan and the advice matcher are unit-tested.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxd/ctxd/tools/corpus"
)

func main() {
	os.Exit(run())
}

func run() int {
	bin := flag.String("ctxd", "bin/ctxd", "the ctxd binary to measure")
	src := flag.String("src", "", "the source tree to copy as the workspace (default $(go env GOROOT)/src/net; another tree must be laid out like it: http/server.go, http/testdata, http/internal/testcert)")
	keep := flag.Bool("keep", false, "keep the work directory (the workspace copy with its .ctxd records, and the server's log)")
	timeout := flag.Duration("timeout", 60*time.Second, "how long each request's answer is waited for; a request without an answer is a finding")
	md := flag.String("md", "", "also write the report as Markdown to this file")
	strict := flag.Bool("strict", false, "exit 1 when a goal is missed or not available")
	flag.Parse()

	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "mcpbench: "+format+"\n", args...)
		return 2
	}
	binAbs, err := corpus.Binary(*bin)
	if err != nil {
		return fail("%v", err)
	}
	if *src == "" {
		gosrc, err := corpus.GoSrc()
		if err != nil {
			return fail("finding GOROOT: %v (name the tree with -src)", err)
		}
		*src = filepath.Join(gosrc, "net")
	}
	srcAbs, err := filepath.Abs(*src)
	if err != nil {
		return fail("%v", err)
	}
	if info, err := os.Stat(srcAbs); err != nil || !info.IsDir() {
		return fail("-src %s: not a directory", srcAbs)
	}

	work, err := os.MkdirTemp("", "mcpbench-")
	if err != nil {
		return fail("%v", err)
	}
	if *keep {
		fmt.Fprintf(os.Stderr, "mcpbench: work directory %s kept\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	setup := time.Now()
	// The copy keeps the tree's name, so that "../net/http/server.go"
	// leaves the root and comes back into it (the sandbox scenario).
	root := filepath.Join(work, filepath.Base(srcAbs))
	if err := corpus.CopyTree(srcAbs, root); err != nil {
		return fail("copying %s: %v", srcAbs, err)
	}
	secrets, err := plantSecrets(root)
	if err != nil {
		return fail("planting the secrets: %v", err)
	}
	nFiles, nBytes := treeSize(root)
	setupTime := time.Since(setup)

	rep := &report{header: []string{
		"mcpbench: ctxd mcp over stdio as an agent host drives it (" + binAbs + ")",
		fmt.Sprintf("workspace: a copy of %s, %d files, %s, with %d planted secrets in %s, %s, %s, %s",
			srcAbs, nFiles, size(int(nBytes)), len(secrets), envPath, configPath, yamlPath, keyPath),
		fmt.Sprintf("server: ctxd mcp --root %s --cache-dir off; each request waited for %s", root, *timeout),
	}}

	start := time.Now()
	srv, err := startServer(binAbs, []string{"mcp", "--root", root, "--cache-dir", "off"}, *timeout)
	if err != nil {
		return fail("starting %s: %v", binAbs, err)
	}
	b := &bench{srv: srv, rep: rep, root: root, src: srcAbs, secrets: secrets, scan: newScanner(secrets), rawWait: min(*timeout, 10*time.Second)}
	b.run()
	how, cpu := srv.stop(10 * time.Second)
	wall := time.Since(start)
	b.leaks()
	rep.figure("server CPU time (user+sys)", cpu.Round(time.Millisecond).String())
	rep.figure("session wall time", wall.Round(time.Millisecond).String()+fmt.Sprintf(" (copying and planting before it: %s)", setupTime.Round(time.Millisecond)))
	rep.figure("server end", how)
	if !strings.HasPrefix(how, "exited at the end of its input") {
		rep.detail("the server's last log lines:\n%s", lastLines(srv.stderr.Bytes(), 10))
	}
	if *keep {
		if err := os.WriteFile(filepath.Join(work, "ctxd-mcp.log"), srv.stderr.Bytes(), 0o644); err != nil {
			rep.detail("writing the server's log: %v", err)
		}
	}

	fmt.Print(rep.text())
	if *md != "" {
		if err := os.WriteFile(*md, []byte(rep.markdown()), 0o644); err != nil {
			return fail("-md: %v", err)
		}
	}
	if *strict && !rep.allMet() {
		return 1
	}
	return 0
}

// treeSize counts the regular files under root and their bytes.
func treeSize(root string) (files int, bytes int64) {
	_ = filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			files++
			bytes += info.Size()
		}
		return nil
	})
	return files, bytes
}

// lastLines returns the last n lines of text, indented.
func lastLines(text []byte, n int) string {
	if len(strings.TrimSpace(string(text))) == 0 {
		return "  (none)"
	}
	lines := strings.Split(strings.TrimRight(string(text), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
