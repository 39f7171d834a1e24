package index

import (
	"context"
	"testing"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/google/go-cmp/cmp"
)

// fuzzDocSnippets are what FuzzChangeDocument inserts: the brackets,
// quotes, comment markers and line breaks that change a parse tree most.
var fuzzDocSnippets = []string{
	"", "{", "}", "(", ")", "\n", " ", "x", "é", "\"", "'", "`", "/*", "*/", "//", ";",
	"func ", "type ", "class ", "export ", "import ", "return ", "=> ", ": number", "int",
}

// FuzzChangeDocument drives an open document through ChangeDocument with
// edits derived from the input, some of which do not fit, and checks each
// change against a model of the document sync: the text (edits applied in
// order; an edit that does not fit discards the whole change and leaves the
// document out of sync; out of sync, only a Full edit, with the edits after
// it, applies) and an extraction that is exactly a from-scratch Parse of
// the text, for every version: the ones read at once (the background
// parser is waited for) and the ones read only at the end, which the
// parser coalesced with later changes and went past.
//
// Each edit is 4 bytes: a start and a length (modulo the text's length +
// 2, so that some fall past the end), a snippet, and flags: bit 0 ends the
// change after this edit, bit 1 makes it a Full replacement by the current
// text with the snippet appended, bit 2 inverts its range, bit 3 (on the
// change's last edit) leaves the new version unread until the end.
func FuzzChangeDocument(f *testing.F) {
	f.Add(uint8(0), []byte{20, 0, 3, 9, 30, 2, 5, 8, 31, 0, 6, 9, 2, 1, 7, 9, 10, 0, 0, 1})
	seeds := map[syntax.Language]string{
		syntax.Go:         "package a\n\n// A doc.\nfunc A(x int) int {\n\treturn x\n}\n\ntype T struct{ X int }\n",
		syntax.TypeScript: "import { y } from './y';\n\nexport function f(a: number): number {\n  return a + y;\n}\n\nexport class C {\n  m(): void {}\n}\n",
	}
	f.Add(uint8(0), []byte{20, 0, 3, 1, 30, 2, 5, 0, 31, 0, 6, 1})
	f.Add(uint8(1), []byte{40, 3, 11, 1, 200, 1, 0, 5, 7, 0, 2, 3, 60, 1, 12, 1})
	f.Fuzz(func(t *testing.T, li uint8, ops []byte) {
		lang := []syntax.Language{syntax.Go, syntax.TypeScript}[li%2]
		uri := map[syntax.Language]string{syntax.Go: "file:///fuzz/a.go", syntax.TypeScript: "file:///fuzz/a.ts"}[lang]
		ctx := context.Background()
		x := New(Options{CacheDir: "off"})
		defer x.Close()
		text := seeds[lang]
		x.OpenDocument(ctx, uri, string(lang), 1, []byte(text))
		outOfSync := false
		version := int32(1)
		var change []Edit
		type unread struct {
			d    *Document
			text string
		}
		var later []unread
		cur := text // the text the next edit of the change applies to
		bad := false
		for n := 0; len(ops) >= 4 && n < 32; n++ {
			start, size, snippet, flags := int(ops[0]), int(ops[1]), fuzzDocSnippets[int(ops[2])%len(fuzzDocSnippets)], ops[3]
			ops = ops[4:]
			start %= len(cur) + 2
			end := start + size%(len(cur)+2-start)
			e := Edit{Start: start, End: end, Text: snippet}
			if flags&4 != 0 {
				e.Start, e.End = e.End, e.Start
			}
			if flags&2 != 0 {
				e = Edit{Full: true, Text: cur + snippet}
			}
			change = append(change, e)
			switch {
			case e.Full:
				cur, bad = e.Text, false
			case bad:
			case e.Start < 0 || e.Start > e.End || e.End > len(cur):
				bad = true
			default:
				cur = cur[:e.Start] + e.Text + cur[e.End:]
			}
			if flags&1 == 0 && len(ops) >= 4 && n < 31 {
				continue
			}

			// The model: out of sync, the edits before the last Full one
			// are skipped, and without one nothing applies.
			apply := change
			if outOfSync {
				apply = nil
				for i, e := range change {
					if e.Full {
						apply = change[i:]
					}
				}
			}
			next, ok := text, !outOfSync || apply != nil
			for _, e := range apply {
				if e.Full {
					next = e.Text
					continue
				}
				if e.Start < 0 || e.Start > e.End || e.End > len(next) {
					ok = false
					break
				}
				next = next[:e.Start] + e.Text + next[e.End:]
			}
			if ok {
				text = next
			}
			outOfSync = !ok
			version++

			d, err := x.ChangeDocument(ctx, uri, version, change)
			if (err != nil) != outOfSync {
				t.Fatalf("change %+v: error %v, want out of sync: %v", change, err, outOfSync)
			}
			if d.OutOfSync != outOfSync || d.Version != version || string(d.Content()) != text {
				t.Fatalf("change %+v: document out of sync %v, version %d, text %q; want %v, %d, %q", change, d.OutOfSync, d.Version, d.Content(), outOfSync, version, text)
			}
			if flags&8 != 0 {
				later = append(later, unread{d, text})
			} else {
				checkExtraction(t, lang, d, text)
			}
			change, cur, bad = nil, text, false
		}
		for _, v := range later {
			checkExtraction(t, lang, v.d, v.text)
		}
	})
}

// checkExtraction fails unless d's extraction is exactly Parse's of text.
func checkExtraction(t *testing.T, lang syntax.Language, d *Document, text string) {
	t.Helper()
	want, err := syntax.Parse(context.Background(), lang, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, d.Syntax()); diff != "" {
		t.Fatalf("version %d: extraction (-Parse +document):\n%s\ntext:\n%s", d.Version, diff, text)
	}
}
