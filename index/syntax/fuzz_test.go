package syntax

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fuzzSnippets are the texts the fuzzer inserts: brackets, keywords,
// quotes, comment markers and line breaks, the edits that change a parse
// tree the most.
var fuzzSnippets = []string{
	"", "{", "}", "(", ")", "[", "]", "<", ">", "\n", "\n\n", " ", "\t", "\r\n",
	"x", "Foo", "_", "é", "\"", "'", "`", "/*", "*/", "//", "/**", "#", ";", ":", "=",
	",", ".", "@", "$", "\\", "func ", "type ", "class ", "def ", "fn ", "struct ",
	"import ", "export ", "namespace ", "pub ", "static ", "public ", "impl ",
	"interface ", "enum ", "const ", "var ", "let ", "return ", "#include ", "using ",
	"f\"{", "${", "r#\"",
}

// FuzzIncremental applies a sequence of edits, derived from the input, to a
// golden source through Doc.Edit and checks after every reparse that the
// incremental File equals Parse of the same text, whether or not the old or
// the new text has syntax errors. Each edit is 3 bytes of ops: a position
// (2 bytes, modulo the text length + 1) and a byte whose low 3 bits are the
// number of bytes deleted there and whose high 5 bits (with the position's
// parity) pick the snippet inserted. When the position's top bit is set,
// the edit is batched with the next one: both reach Doc.Edit in one list,
// as the changes of one didChange do, each against the text the previous
// left.
func FuzzIncremental(f *testing.F) {
	seeds := map[Language][]byte{}
	for _, lang := range Languages {
		seeds[lang] = goldenSamples(f, lang)[0]
	}
	for i := range Languages {
		f.Add(uint8(i), []byte{10, 0, 0x08, 40, 0, 0x11, 200, 1, 0x52, 7, 0, 0x93})
		f.Add(uint8(i), []byte{10, 0x80, 0x08, 40, 0x80, 0x11, 200, 1, 0x52, 7, 0x80, 0x93, 9, 0, 0x03})
	}
	f.Fuzz(func(t *testing.T, li uint8, ops []byte) {
		lang := Languages[int(li)%len(Languages)]
		ctx := context.Background()
		cur := seeds[lang]
		d, err := NewDoc(ctx, lang, cur)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { d.Close() }()
		var batch []Edit
		for n := 0; len(ops) >= 3 && n < 24; n++ {
			v := int(binary.LittleEndian.Uint16(ops))
			pos := v % (len(cur) + 1)
			del := min(int(ops[2]&7), len(cur)-pos)
			ins := fuzzSnippets[(int(ops[2]>>3)*2+v&1)%len(fuzzSnippets)]
			ops = ops[3:]

			batch = append(batch, Edit{Start: pos, End: pos + del, Text: ins})
			var next []byte
			next = append(next, cur[:pos]...)
			next = append(next, ins...)
			next = append(next, cur[pos+del:]...)
			cur = next
			if v&0x8000 != 0 && len(ops) >= 3 && n < 23 {
				continue
			}
			if text, err := ApplyEdits(d.Text(), batch); err != nil || !bytes.Equal(text, cur) {
				t.Fatalf("%s: ApplyEdits(%+v) = %q, %v; want %q", lang, batch, text, err, cur)
			}
			nd, err := d.Edit(ctx, batch)
			if err != nil {
				t.Fatal(err)
			}
			if nd != d && nd.how == parsedFresh {
				t.Fatalf("%s: Edit(%+v) parsed from scratch", lang, batch)
			}
			old := d
			if nd != d {
				d.Close()
				d = nd
			}
			want, err := Parse(ctx, lang, cur)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, d.File()); diff != "" {
				t.Fatalf("%s: after the edits %+v, Edit and Parse differ (-Parse +Edit):\nold text had errors: %v\n%s\ntext:\n%s",
					lang, batch, old.File().HasErrors, diff, cur)
			}
			batch = batch[:0]
		}
		if diff := cmp.Diff(mustParse(t, lang, cur), d.File()); diff != "" {
			t.Fatalf("%s: final File differs (-Parse +Doc.File):\n%s", lang, diff)
		}
		if !bytes.Equal(d.Text(), cur) {
			t.Fatalf("%s: the document's text is not the last text", lang)
		}
	})
}

func mustParse(t *testing.T, lang Language, src []byte) *File {
	t.Helper()
	f, err := Parse(context.Background(), lang, src)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
