package tokens

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCountKnown pins counts computed once with tiktoken-go/tokenizer
// v0.10.0. A change here means the estimator changed: bump LibraryVersion
// (and therefore every config_fingerprint) together with go.mod.
func TestCountKnown(t *testing.T) {
	tests := []struct {
		name          string
		text          string
		o200k, cl100k int
	}{
		{"empty", "", 0, 0},
		{"hello world", "hello world", 2, 2},
		{"punctuation", "Hello, world!", 4, 4},
		{"pangram", "The quick brown fox jumps over the lazy dog.", 10, 10},
		{"digits in groups of three", "1234567890", 4, 4},
		{"go snippet", "func main() {\n\tfmt.Println(\"hi\")\n}\n", 10, 10},
		{"go file", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n}\n", 19, 19},
		{"crlf", "x := map[string]int{\"a\": 1}\r\n", 11, 11},
		{"indent and blank lines", "    indented\r\n\r\n", 4, 4},
		{"mixed scripts", "héllo wörld 你好世界 🙂", 9, 13},
		{"cyrillic", "Привет, мир", 4, 6},
		{"japanese", "こんにちは世界", 2, 4},
		// Special-token text is ordinary text: 7 tokens, not 1.
		{"special token text", "<|endoftext|>", 7, 7},
		// Invalid UTF-8 is counted, never rejected.
		{"invalid utf-8", "\xff\xfe", 1, 1},
		{"one letter repeated", strings.Repeat("a", 1000), 125, 125},
		// Long unbroken text: linear in the library (docs/dependency-defects.md).
		{"100 KB of one letter", strings.Repeat("a", 100000), 12500, 12500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _ := ByName(O200kBase)
			c, _ := ByName(Cl100kBase)
			if got := o.Count(tt.text); got != tt.o200k {
				t.Errorf("o200k_base Count(%.40q) = %d, want %d", tt.text, got, tt.o200k)
			}
			if got := c.Count(tt.text); got != tt.cl100k {
				t.Errorf("cl100k_base Count(%.40q) = %d, want %d", tt.text, got, tt.cl100k)
			}
		})
	}
}

func TestEncodingFor(t *testing.T) {
	tests := []struct {
		model string
		want  string
	}{
		{"gpt-4o", O200kBase},
		{"gpt-4o-mini", O200kBase},
		{"gpt-4o-2024-08-06", O200kBase},
		{"chatgpt-4o-latest", O200kBase},
		{"gpt-4.1", O200kBase},
		{"gpt-4.1-mini", O200kBase},
		{"gpt-4.5-preview", O200kBase},
		{"gpt-5", O200kBase},
		{"o1", O200kBase},
		{"o3", O200kBase},
		{"o4-mini", O200kBase},
		{"claude-sonnet-4", O200kBase},
		{"claude-3-5-haiku-latest", O200kBase},
		{"gemini-2.5-pro", O200kBase},
		{"llama3", O200kBase},
		{"", O200kBase},
		{"gpt-4", Cl100kBase},
		{"GPT-4", Cl100kBase},
		{" gpt-4 ", Cl100kBase},
		{"gpt-4-turbo", Cl100kBase},
		{"openai/gpt-4-turbo", Cl100kBase},
		{"openai/gpt-4o", O200kBase},
		{"gpt-4-0613", Cl100kBase},
		{"gpt-4-32k", Cl100kBase},
		{"gpt-3.5-turbo", Cl100kBase},
		{"gpt-3.5-turbo-16k", Cl100kBase},
		{"gpt-35-turbo", Cl100kBase},
		{"text-embedding-3-small", Cl100kBase},
		{"text-embedding-3-large", Cl100kBase},
		{"text-embedding-ada-002", Cl100kBase},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			if got := EncodingFor(tt.model); got != tt.want {
				t.Errorf("EncodingFor(%q) = %q, want %q", tt.model, got, tt.want)
			}
			e := ForModel(tt.model)
			if e.Name() != tt.want {
				t.Errorf("ForModel(%q).Name() = %q, want %q", tt.model, e.Name(), tt.want)
			}
			if e != ForModel(tt.model) {
				t.Errorf("ForModel(%q) built a second estimator; codecs must be built once", tt.model)
			}
		})
	}
}

func TestByName(t *testing.T) {
	for _, name := range []string{O200kBase, Cl100kBase} {
		e, ok := ByName(name)
		if !ok || e == nil || e.Name() != name {
			t.Errorf("ByName(%q) = %v, %v; want the %s estimator", name, e, ok, name)
		}
	}
	for _, name := range []string{"", "p50k_base", "r50k_base", "O200K_BASE"} {
		if e, ok := ByName(name); ok || e != nil {
			t.Errorf("ByName(%q) = %v, %v; want nil, false", name, e, ok)
		}
	}
}

func TestNote(t *testing.T) {
	for _, name := range []string{O200kBase, Cl100kBase} {
		e, _ := ByName(name)
		note := e.Note()
		// budget_report.schema.json requires the estimator note first,
		// starting with "estimator: ".
		if !strings.HasPrefix(note, "estimator: ") {
			t.Errorf("Note() = %q, want the prefix \"estimator: \"", note)
		}
		for _, want := range []string{"tiktoken-go/tokenizer", LibraryVersion, name} {
			if !strings.Contains(note, want) {
				t.Errorf("Note() = %q, want it to name %q", note, want)
			}
		}
	}
}

// TestLibraryVersion keeps LibraryVersion, which is recorded in every
// budget report and config fingerprint, equal to the version go.mod pins.
func TestLibraryVersion(t *testing.T) {
	const module = "github.com/tiktoken-go/tokenizer"
	got, err := requiredVersion(filepath.Join("..", "..", "go.mod"), module)
	if err != nil {
		t.Fatal(err)
	}
	if got != LibraryVersion {
		t.Errorf("go.mod requires %s %s, but LibraryVersion is %s", module, got, LibraryVersion)
	}
}

// requiredVersion returns the version of module in a go.mod's require
// directives (single-line or block form).
func requiredVersion(gomod, module string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", fmt.Errorf("reading go.mod: %w", err)
	}
	defer f.Close()
	inBlock := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			continue
		case fields[0] == "require" && len(fields) == 2 && fields[1] == "(":
			inBlock = true
			continue
		case inBlock && fields[0] == ")":
			inBlock = false
			continue
		case fields[0] == "require":
			fields = fields[1:]
		case !inBlock:
			continue
		}
		if len(fields) >= 2 && fields[0] == module {
			return fields[1], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("reading go.mod: %w", err)
	}
	return "", fmt.Errorf("go.mod does not require %s", module)
}

func TestRequiredVersion(t *testing.T) {
	dir := t.TempDir()
	gomod := filepath.Join(dir, "go.mod")
	content := "module x\n\ngo 1.26\n\nrequire example.com/single v1.2.3\n\nrequire (\n\texample.com/a v0.1.0 // indirect\n\texample.com/b v0.2.0\n)\n\nreplace example.com/c => example.com/d v9.9.9\n"
	if err := os.WriteFile(gomod, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	for module, want := range map[string]string{
		"example.com/single": "v1.2.3",
		"example.com/a":      "v0.1.0",
		"example.com/b":      "v0.2.0",
	} {
		if got, err := requiredVersion(gomod, module); err != nil || got != want {
			t.Errorf("requiredVersion(%s) = %q, %v; want %q", module, got, err, want)
		}
	}
	for _, module := range []string{"example.com/c", "example.com/d", "example.com"} {
		if got, err := requiredVersion(gomod, module); err == nil {
			t.Errorf("requiredVersion(%s) = %q, want an error", module, got)
		}
	}
}

// texts returns strings around the cache's minCached threshold, in both
// encodings' interesting ranges (o200k_base and cl100k_base count the
// mixed-script text differently).
func texts() []string {
	mixed := strings.Repeat("héllo wörld 你好世界 🙂 ", 20)
	code := strings.Repeat("func f(x int) int { return x * 2 }\n", 10)
	var out []string
	for _, n := range []int{0, 1, minCached - 1, minCached, minCached + 1, 100, 300, len(mixed)} {
		out = append(out, truncateBytes(mixed, n), truncateBytes(code, n))
	}
	return out
}

// truncateBytes cuts s to n bytes, possibly inside a rune: the cache must
// not care.
func truncateBytes(s string, n int) string {
	if n > len(s) {
		return s
	}
	return s[:n]
}

func TestCacheMatchesDirectCount(t *testing.T) {
	o, _ := ByName(O200kBase)
	c, _ := ByName(Cl100kBase)
	cache := NewCache(0)
	for round := range 2 { // the second round is served from the cache
		for _, s := range texts() {
			for _, e := range []*Estimator{o, c} {
				if got, want := cache.Count(e, s), e.Count(s); got != want {
					t.Errorf("round %d: cache.Count(%s, %d bytes) = %d, want %d", round, e.Name(), len(s), got, want)
				}
			}
		}
	}
	// Only texts of minCached bytes or more are memoized.
	for _, s := range texts() {
		_, ok := cache.items[cacheKey{enc: O200kBase, sum: sha256.Sum256([]byte(s))}]
		if memo := len(s) >= minCached; ok != memo {
			t.Errorf("a %d-byte text: memoized = %v, want %v", len(s), ok, memo)
		}
	}
}

// TestCacheKeysByEncoding: the same text in two encodings is two entries,
// so one encoding's count is never served for the other.
func TestCacheKeysByEncoding(t *testing.T) {
	o, _ := ByName(O200kBase)
	c, _ := ByName(Cl100kBase)
	text := strings.Repeat("héllo wörld 你好世界 🙂 ", 20)
	if o.Count(text) == c.Count(text) {
		t.Fatal("the test text must count differently in the two encodings")
	}
	cache := NewCache(0)
	if got, want := cache.Count(o, text), 181; got != want {
		t.Errorf("o200k_base: %d, want %d", got, want)
	}
	if got, want := cache.Count(c, text), 261; got != want {
		t.Errorf("cl100k_base after o200k_base: %d, want %d", got, want)
	}
	if len(cache.items) != 2 {
		t.Errorf("cache holds %d entries, want 2", len(cache.items))
	}
}

func TestCacheClearsWhenFull(t *testing.T) {
	o, _ := ByName(O200kBase)
	const max = 3
	cache := NewCache(max)
	var long []string
	for i := range 10 {
		long = append(long, fmt.Sprintf("%d %s", i, strings.Repeat("word ", 60+i)))
	}
	for round := range 3 {
		for _, s := range long {
			if got, want := cache.Count(o, s), o.Count(s); got != want {
				t.Errorf("round %d: cache.Count(%d bytes) = %d, want %d", round, len(s), got, want)
			}
			if n := len(cache.items); n > max || n == 0 {
				t.Fatalf("cache holds %d entries, want 1..%d", n, max)
			}
		}
	}
}

func TestNewCacheDefault(t *testing.T) {
	for _, max := range []int{0, -1} {
		if c := NewCache(max); c.max != 1<<16 {
			t.Errorf("NewCache(%d).max = %d, want %d", max, c.max, 1<<16)
		}
	}
	if c := NewCache(7); c.max != 7 {
		t.Errorf("NewCache(7).max = %d", c.max)
	}
}

func TestNilCache(t *testing.T) {
	var cache *Cache
	o, _ := ByName(O200kBase)
	for _, s := range texts() {
		if got, want := cache.Count(o, s), o.Count(s); got != want {
			t.Errorf("nil cache: Count(%d bytes) = %d, want %d", len(s), got, want)
		}
	}
}

// TestConcurrent runs estimators and a small, often-cleared cache from
// many goroutines; run with -race.
func TestConcurrent(t *testing.T) {
	o, _ := ByName(O200kBase)
	c, _ := ByName(Cl100kBase)
	ests := []*Estimator{o, c}
	in := texts()
	want := make([][]int, len(ests))
	for i, e := range ests {
		for _, s := range in {
			want[i] = append(want[i], e.Count(s))
		}
	}
	cache := NewCache(4)
	const workers = 8
	got := make([][][]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := make([][]int, len(ests))
			for rep := range 3 {
				for j := range ests {
					// Vary the order per worker so that goroutines
					// contend on different entries.
					k := (j + w + rep) % len(ests)
					for _, s := range in {
						n := cache.Count(ests[k], s)
						if rep == 0 {
							res[k] = append(res[k], n)
						}
					}
				}
			}
			got[w] = res
		}()
	}
	wg.Wait()
	for w := range workers {
		if diff := cmp.Diff(want, got[w]); diff != "" {
			t.Errorf("worker %d counts mismatch (-want +got):\n%s", w, diff)
		}
	}
}

// BenchmarkCount counts a large Go source file of the toolchain
// (net/http/server.go, about 130 KB) and reports MB/s.
func BenchmarkCount(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), "src", "net", "http", "server.go")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no corpus file: %v", err)
	}
	text := string(data)
	for _, name := range []string{O200kBase, Cl100kBase} {
		e, _ := ByName(name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var n int
			for b.Loop() {
				n = e.Count(text)
			}
			b.ReportMetric(float64(n), "tokens")
		})
	}
}
