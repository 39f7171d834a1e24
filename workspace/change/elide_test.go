package change

import (
	"context"
	"testing"
)

func TestIsElision(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"// ... existing code ...", true},
		{"    # ... rest of the file unchanged", true},
		{"/* … other methods … */", true},
		{"// ...existing code...", true},
		{"<!-- ... remaining items omitted ... -->", true},
		{"// ... (same as before)", true},
		{"", false},
		{"...", false},
		{"// unchanged", false},
		{"args = existing... // spread", false},
		{"fmt.Println(\"...existing\")", false},
		{"// The rest of the code follows.", false},
		{"return append(existing, rest...)", false},
	} {
		if got := isElision(c.line); got != c.want {
			t.Errorf("isElision(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

// TestWholeFileElision: a whole file with a placeholder the file does not
// have is rejected, nothing applied; a placeholder-like comment the file
// already has is kept.
func TestWholeFileElision(t *testing.T) {
	old := "package a\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n"
	lazy := "a.go\n```go\npackage a\n\nfunc A() int { return 10 }\n\n// ... existing code ...\n```\n"
	ans, rej := Parse(lazy)
	if rej != nil {
		t.Fatal(rej)
	}
	_, rej = Apply(context.Background(), ans, []Input{{Path: "a.go", Exists: true, Text: []byte(old)}}, Options{})
	if rej == nil || rej.Code != CodeMalformed {
		t.Fatalf("rejection %+v, want %s", rej, CodeMalformed)
	}
	kept := "package a\n\n// ... existing code ...\nfunc A() int { return 1 }\n"
	ans, rej = Parse("a.go\n```go\npackage a\n\n// ... existing code ...\nfunc A() int { return 2 }\n```\n")
	if rej != nil {
		t.Fatal(rej)
	}
	res, rej := Apply(context.Background(), ans, []Input{{Path: "a.go", Exists: true, Text: []byte(kept)}}, Options{})
	if rej != nil {
		t.Fatalf("a placeholder the file already has: %+v", rej)
	}
	if got := string(res.Files[0].After); got != "package a\n\n// ... existing code ...\nfunc A() int { return 2 }\n" {
		t.Errorf("after: %q", got)
	}
}
