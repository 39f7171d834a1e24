package syntax

import (
	"context"
	"testing"
	"unicode/utf8"
)

// FuzzXAML parses arbitrary bytes as XAML, a file of the workspace and so
// untrusted input: it never panics, and every range it reports lies
// within the text, in order.
func FuzzXAML(f *testing.F) {
	for _, seed := range []string{
		`<Window x:Class="App.MainWindow" xmlns="http://schemas.microsoft.com/winfx/2006/xaml/presentation" xmlns:x="http://schemas.microsoft.com/winfx/2006/xaml" xmlns:local="clr-namespace:App.Controls"><local:Gauge Value="{x:Static local:Limits.Max}"/></Window>`,
		`<ResourceDictionary><ResourceDictionary.MergedDictionaries><ResourceDictionary Source="/Themes/Dark.xaml"/></ResourceDictionary.MergedDictionaries></ResourceDictionary>`,
		"\ufeff<UserControl x:Class=\"A.B\" xmlns:x=\"http://schemas.microsoft.com/winfx/2006/xaml\"/>",
		`<a x:Class="`, `<<<`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := parseXAML(context.Background(), src)
		if err != nil || file == nil {
			return
		}
		n := uint32(len(src))
		for _, s := range file.Symbols {
			if s.Range.StartByte > s.Range.EndByte || s.Range.EndByte > n {
				t.Fatalf("symbol %q range %d-%d outside the %d-byte text", s.Name, s.Range.StartByte, s.Range.EndByte, n)
			}
			if !utf8.ValidString(s.Name) && utf8.Valid(src) {
				t.Fatalf("symbol name %q is not UTF-8 although the text is", s.Name)
			}
		}
	})
}
