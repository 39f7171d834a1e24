package e2e

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/index/indextest"
)

// TestE2EKilledWhileRecording kills `ctxd build` in a thread with SIGKILL
// at seeded points around the time a build takes, many times over one
// workspace whose projection exists, and verifies after each kill: what a
// kill leaves is at most incomplete (exit 6), never a mismatch (exit 4);
// `ctxd verify --repair` then verifies (exit 0) and the next build goes on
// from there. The kill points are drawn from a fixed seed; which step each
// one lands on depends on the machine's speed, and the assertion holds at
// every step.
func TestE2EKilledWhileRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a dozen builds")
	}
	dir := indextest.WriteTree(t, threadWorkspace)
	bin := binary(t) // built before anything is timed
	build := func(turn string) *exec.Cmd {
		return exec.Command(bin, "build", "--root", dir, "--purpose", "diff", "--target", "calc/add.go", "--cache-dir", "off",
			"--intent", "make Add saturate", "--thread-id", "k", "--turn-id", turn)
	}
	// One build measured, and the projection created, so that the builds
	// below rewrite it after every append.
	start := time.Now()
	if out, err := build("t0").CombinedOutput(); err != nil {
		t.Fatalf("first build: %v\n%s", err, out)
	}
	took := min(time.Since(start), 2*time.Second)
	if code, stdout, stderr := ctxdRun(t, "verify", "--root", dir, "--repair"); code != 0 {
		t.Fatalf("verify --repair: exit %d\n%s%s", code, stdout, stderr)
	}
	rng := rand.New(rand.NewPCG(30, 9))
	const kills = 12
	outcomes := map[int]int{}
	for i := 1; i <= kills; i++ {
		// Somewhere between a fifth of a build and all of it.
		delay := took/5 + time.Duration(rng.Int64N(int64(took)))
		cmd := build(fmt.Sprint("t", i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		_ = cmd.Process.Kill() // SIGKILL; it may have finished already
		_ = cmd.Wait()
		code, stdout, stderr := ctxdRun(t, "verify", "--root", dir)
		outcomes[code]++
		if code != 0 && code != 6 {
			t.Fatalf("kill %d after %v: verify exit %d, want 0 or 6\n%s%s", i, delay, code, stdout, stderr)
		}
		if code == 6 && strings.Contains(stdout, "MISMATCH") {
			t.Fatalf("kill %d: exit 6 with a mismatch:\n%s", i, stdout)
		}
		if code, stdout, stderr := ctxdRun(t, "verify", "--root", dir, "--repair", "--mode", "ledger"); code != 0 {
			t.Fatalf("kill %d: verify --repair: exit %d\n%s%s", i, code, stdout, stderr)
		}
	}
	t.Logf("verify after %d kills: %v (exit code: count)", kills, outcomes)
}
