package ledger

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"
)

// TestJournalLineFormat recomputes every line of a ledger from first
// principles: canonical JSON, consecutive indexes, the chain from the zero
// digest, and event_digest over every other member.
func TestJournalLineFormat(t *testing.T) {
	l, dir := openTestLedger(t)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open created %s before any append", dir)
	}
	writeFixture(t, l, defaultTexts())
	path := filepath.Join(dir, JournalFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("journal does not end with a newline")
	}
	prev := "sha256:" + strings.Repeat("0", 64)
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		canon, err := jcs.Transform([]byte(line))
		if err != nil || string(canon) != line {
			t.Fatalf("line %d is not canonical JSON", i)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if got := string(m["event_index"]); got != fmt.Sprint(i) {
			t.Errorf("line %d: event_index %s", i, got)
		}
		if got := string(m["prev_digest"]); got != `"`+prev+`"` {
			t.Errorf("line %d: prev_digest %s, want %s", i, got, prev)
		}
		var digest string
		json.Unmarshal(m["event_digest"], &digest)
		delete(m, "event_digest")
		raw, _ := json.Marshal(m)
		canon, _ = jcs.Transform(raw)
		sum := sha256.Sum256(canon)
		if want := "sha256:" + hex.EncodeToString(sum[:]); digest != want {
			t.Errorf("line %d: event_digest %s, want %s", i, digest, want)
		}
		if _, ok := m["_obs"]; !ok {
			t.Errorf("line %d: no _obs", i)
		}
		prev = digest
	}
	for _, c := range []struct {
		path string
		perm os.FileMode
	}{{dir, 0o700}, {filepath.Dir(dir), 0o700}, {path, 0o600}, {path + ".lock", 0o600}} {
		info, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got&^c.perm != 0 {
			t.Errorf("%s has mode %o, want at most %o", c.path, got, c.perm)
		}
	}
}

// TestTornTailRecovery writes torn tails by hand: Open moves them aside to
// a file named by the injected clock and cuts the journal back to its last
// complete line; appending then continues the chain.
func TestTornTailRecovery(t *testing.T) {
	tests := []struct {
		name string
		torn string
	}{
		{"no trailing newline", `{"_obs":{"recorded_at":"2025-01-02T03:04:05Z"},"correlation_id":"c`},
		{"last line not JSON", "{\"_obs\":{\"recorded_\x00\x00\x00\n"},
		{"invalid last line and a partial one", "{\"kind\":\n{\"ki"},
		{"a lone newline", "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, dir := openTestLedger(t)
			writeFixture(t, l, defaultTexts())
			path := filepath.Join(dir, JournalFile)
			good, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append(append([]byte(nil), good...), tc.torn...), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(dir, fixedClock); err != nil {
				t.Fatalf("Open: %v", err)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(after, good) {
				t.Errorf("journal after recovery is not its last complete line")
			}
			tornPath := fmt.Sprintf("%s.torn-%d", path, fixedClock().UnixNano())
			moved, err := os.ReadFile(tornPath)
			if err != nil {
				t.Fatalf("reading moved tail: %v", err)
			}
			if string(moved) != tc.torn {
				t.Errorf("moved tail = %q, want %q", moved, tc.torn)
			}

			// The same clock again: the second tail gets a counter.
			os.WriteFile(path, append(append([]byte(nil), good...), tc.torn...), 0o600)
			l2, err := Open(dir, fixedClock)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tornPath + "-1"); err != nil {
				t.Errorf("second torn tail: %v", err)
			}
			mustExecute(t, l2, "A", "t2", "more")
			if got := mismatches(verifyBoth(t, dir, fullOptions("", ""))); len(got) != 0 {
				t.Errorf("mismatches after recovery and append: %+v", got)
			}
		})
	}
}

// TestTornTailBeforeAppend cuts a tail left by another process at append
// time, not only at Open.
func TestTornTailBeforeAppend(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	path := filepath.Join(dir, JournalFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"EXEC`)
	f.Close()
	evs, err := l.Events()
	if err != nil || len(evs) != 9 {
		t.Fatalf("Events with a torn tail = %d events, %v; want the 9 complete ones", len(evs), err)
	}
	ev := mustExecute(t, l, "A", "t2", "after the crash")
	if ev.Index != 9 || ev.PrevDigest != evs[8].Digest {
		t.Errorf("appended event %d with prev %s, want 9 chained to %s", ev.Index, ev.PrevDigest, evs[8].Digest)
	}
	if got := mismatches(verifyBoth(t, dir, fullOptions("", ""))); len(got) != 0 {
		t.Errorf("mismatches: %+v", got)
	}
}

// TestCorruptMiddleRefusesAppend: a damaged line that is not the last is
// never repaired; appends and reads fail with ErrCorrupt, even in a Ledger
// that had read the file before it was damaged.
func TestCorruptMiddleRefusesAppend(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	path := filepath.Join(dir, JournalFile)
	data, _ := os.ReadFile(path)
	i := bytes.Index(data, []byte("2+2 equals 4"))
	data[i] = '3'
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	l2, err := Open(dir, fixedClock)
	if err != nil {
		t.Fatalf("Open of a corrupt ledger: %v", err)
	}
	for n, l := range []*Ledger{l, l2} {
		_, err := l.Transact(context.Background(), func(v *View) ([]Draft, error) {
			t.Errorf("f called on a corrupt ledger")
			return nil, nil
		})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "ctxd verify") || !strings.Contains(err.Error(), "line 3") {
			t.Errorf("ledger %d: Transact error = %v, want ErrCorrupt naming line 3 and ctxd verify", n, err)
		}
		if _, err := l.Events(); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ledger %d: Events error = %v, want ErrCorrupt", n, err)
		}
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, data) {
		t.Errorf("the corrupt journal was changed")
	}
	torn, _ := filepath.Glob(path + ".torn-*")
	if len(torn) != 0 {
		t.Errorf("a corrupt middle line was moved aside: %v", torn)
	}
}

// crashEnv makes the test binary a child that appends until it is killed.
const crashEnv = "CTXD_LEDGER_CRASH_CHILD_DIR"

// TestCrashChild is the child of TestCrashRecovery; it does nothing in a
// normal run. It announces each transaction from inside f, just before the
// ledger seals and writes it, so that the parent can aim its SIGKILL.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("only run as the child of TestCrashRecovery")
	}
	l, err := Open(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stdout, "error:", err)
		os.Exit(2)
	}
	// Large outputs make each append a write(2) of many pages (16 here),
	// which SIGKILL can cut short between two pages. Not larger: every
	// byte is canonicalized and hashed by the child and verified by the
	// parent, twenty times slower under -race, and the rounds below
	// continue until a kill tears the journal anyway.
	big := strings.Repeat("model output ", 5000)
	for i := 0; ; i++ {
		turn := fmt.Sprintf("t%d", i)
		_, err := l.Transact(context.Background(), func(v *View) ([]Draft, error) {
			fmt.Fprintln(os.Stdout, "appending", i)
			return []Draft{
				{Kind: KindIntent, ThreadID: "crash", TurnID: turn, Payload: IntentPayload{IntentType: "diff", UserInput: turn}},
				{Kind: KindExecution, ThreadID: "crash", TurnID: turn, Payload: ExecutionPayload{Output: big}},
			}, nil
		})
		if err != nil {
			fmt.Fprintln(os.Stdout, "error:", err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stdout, "appended", i)
	}
}

// TestCrashRecovery SIGKILLs a child process in the middle of its appends,
// three times or more, and after each kill opens the ledger: a torn tail
// is moved aside, the chain verifies, and appending continues. The parent
// watches the journal's size and kills the child as soon as a write has
// begun, so most kills land inside a write; whether one does depends on
// the machine, which is why the test asserts recovery, not tearing, and
// goes on (up to maxCrashRounds; see crashRoundsLimit for -race) until one
// kill has torn the journal, so that the torn path is exercised on any
// machine that can tear it.
func TestCrashRecovery(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		t.Skip("this is the child")
	}
	dir := filepath.Join(t.TempDir(), "ledger")
	path := filepath.Join(dir, JournalFile)
	torn := 0
	round := 0
	for ; round < 3 || (torn == 0 && round < crashRoundsLimit()); round++ {
		killed := crashChild(t, dir, path)
		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Open(dir, fixedClock)
		if err != nil {
			t.Fatalf("round %d: Open after the crash: %v", round, err)
		}
		after, _ := os.ReadFile(path)
		if !bytes.Equal(before, after) {
			torn++
		}
		t.Logf("round %d: killed with the journal at %d bytes; %d before recovery, %d after", round, killed, len(before), len(after))
		if !bytes.HasPrefix(before, after) || (len(after) > 0 && after[len(after)-1] != '\n') {
			t.Fatalf("round %d: recovery did not cut back to a complete line", round)
		}
		moved, _ := filepath.Glob(path + ".torn-*")
		if len(moved) != torn {
			t.Errorf("round %d: %d moved tails for %d torn journals", round, len(moved), torn)
		}
		evs, err := l.Events()
		if err != nil {
			t.Fatalf("round %d: Events after the crash: %v", round, err)
		}
		ev := mustExecute(t, l, "crash", "t0", "after the crash")
		if ev.Index != len(evs) || (len(evs) > 0 && ev.PrevDigest != evs[len(evs)-1].Digest) {
			t.Errorf("round %d: appended at %d, want %d chained to the last event", round, ev.Index, len(evs))
		}
		checks, err := VerifyLedger(dir, VerifyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := mismatches(checks); len(got) != 0 {
			t.Fatalf("round %d: mismatches after recovery: %+v", round, got)
		}
	}
	t.Logf("%d of %d kills tore the journal", torn, round)
}

// maxCrashRounds bounds TestCrashRecovery's kills on a machine where they
// never tear the journal.
const maxCrashRounds = 8

// crashRoundsLimit is how far TestCrashRecovery goes on looking for a kill
// that tears the journal: maxCrashRounds normally, no further than its
// three rounds under -race. Every round asserts recovery all the same; the
// extra rounds only hunt for a tear, each one replaying and verifying a
// longer journal, which the race detector slows twentyfold (six minutes
// on a loaded machine, none of it concurrent). `make test` runs the test
// once more without -race, where the hunt goes on to maxCrashRounds.
func crashRoundsLimit() int {
	if raceEnabled {
		return 3
	}
	return maxCrashRounds
}

// crashChild runs TestCrashChild on dir, lets it append twice, then kills
// it as soon as its next write has started to grow the journal (or after a
// bounded wait). It returns the journal size it saw at the kill.
func crashChild(t *testing.T, dir, path string) int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		io.Copy(io.Discard, out)
		cmd.Wait()
	}()
	sc := bufio.NewScanner(out)
	appended := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "error:") {
			t.Fatalf("child: %s", line)
		}
		if strings.HasPrefix(line, "appended ") {
			appended++
		}
		if appended >= 2 && strings.HasPrefix(line, "appending ") {
			break
		}
	}
	if appended < 2 {
		t.Fatalf("child stopped after %d appends: %s", appended, stderr.String())
	}
	// The child is sealing its next transaction; kill it once the write
	// has begun. The bound keeps a slow child from hanging the test.
	var size int64
	if info, err := os.Stat(path); err == nil {
		base := info.Size()
		size = base
		for spin := 0; spin < 20_000_000 && size == base; spin++ {
			if info, err := os.Stat(path); err == nil {
				size = info.Size()
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	return size
}

// TestSplitTorn pins what counts as a torn tail.
func TestSplitTorn(t *testing.T) {
	tests := []struct {
		in        string
		wantLines []string
		wantTorn  string
	}{
		{"", nil, ""},
		{"{}\n", []string{"{}"}, ""},
		{"{}\n{", []string{"{}"}, "{"},
		{"{}\n{}", []string{"{}"}, "{}"},
		{"{}\nxx\n", []string{"{}"}, "xx\n"},
		{"xx\n{}\n", []string{"xx", "{}"}, ""},
		{"{}\nxx\n{", []string{"{}"}, "xx\n{"},
		{"\n", nil, "\n"},
	}
	for _, tc := range tests {
		lines, torn := splitTorn([]byte(tc.in))
		var got []string
		for _, l := range lines {
			got = append(got, string(l))
		}
		if diff := cmp.Diff(tc.wantLines, got); diff != "" || string(torn) != tc.wantTorn {
			t.Errorf("splitTorn(%q): lines (-want +got):\n%s torn %q, want %q", tc.in, diff, torn, tc.wantTorn)
		}
	}
}

// TestTransactCancelledWhileWaiting: a transaction waiting for another
// holder of the lock gives up when its context ends.
func TestTransactCancelledWhileWaiting(t *testing.T) {
	l, dir := openTestLedger(t)
	mustBuild(t, l, Thread{ThreadID: "A", TurnID: "t1"}, "x", "c1", testSettings())
	other, err := Open(dir, fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	holding := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := other.Transact(context.Background(), func(v *View) ([]Draft, error) {
			close(holding)
			<-release
			return nil, nil
		})
		done <- err
	}()
	<-holding
	ctx, cancel := context.WithCancel(context.Background())
	waitErr := make(chan error, 1)
	go func() {
		_, err := l.Transact(ctx, func(v *View) ([]Draft, error) {
			return nil, errors.New("must not run")
		})
		waitErr <- err
	}()
	cancel()
	if err := <-waitErr; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Transact error = %v, want context.Canceled", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The abandoned waiter must not keep the lock.
	mustExecute(t, l, "A", "t1", "out")
}
