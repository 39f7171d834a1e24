package syntax

import (
	"bytes"
	"cmp"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// XAML extraction (docs/relations.md, "Resolution: C#"). A .xaml file is
// half of a WPF, UWP or MAUI class: x:Class names the partial class its
// code-behind completes, and its elements and markup extensions name C#
// types through clr-namespace prefixes. No grammar runs on it: the XML
// tokenizer of encoding/xml reads it, and what it records is resolved by
// the C# resolver (its family is FamilyCSharp):
//
//   - x:Class="Ns.Type": a Class symbol Ns.Type spanning the whole file, and
//     the use {Name: "Type", From: "Ns"}, which resolves to every part of
//     the partial class (the code-behind, whose own partial declaration
//     resolves back to this symbol);
//   - without x:Class (a resource dictionary), a Var symbol named after the
//     root element, spanning the whole file, so that a file merging it has
//     a declaration to depend on;
//   - <p:T>, <p:T.Prop>, attached properties p:T.Prop="…", and p:T or
//     p:T.M inside attribute values ({x:Type p:T}, {x:Static p:T.M},
//     TargetType="p:T"), p a prefix bound to clr-namespace:Ns or using:Ns:
//     {Name: "T", From: "Ns"}, and for p:T.M {Name: "M", Member: true,
//     Recv: "Ns.T"};
//   - an attribute whose value is a bare identifier, in a file with
//     x:Class (an event handler, Click="OnSave"): {Name: value, Member:
//     true, Recv: the x:Class type}; it resolves only when the class
//     declares a member of that name;
//   - <ResourceDictionary Source="…">: {From: the source as written}, no
//     Name; the resolver finds the file.
//   - x:Key="K" on an element below the root: a Var symbol K in container
//     XAMLResourceKey spanning the start tag (a resource the file
//     defines), and {StaticResource K}, {DynamicResource K} (also with
//     ResourceKey=K) or <StaticResource ResourceKey="K"/>: the use {Name:
//     K, From: XAMLResourceKey}, which the resolver looks up among the
//     resources of the XAML files of the same project.

// xamlMaxBytes bounds the text a XAML extraction reads.
const xamlMaxBytes = 8 << 20

// xamlNS is the XAML language namespace, whose prefix (x) spells x:Class.
const xamlNS = "http://schemas.microsoft.com/winfx/2006/xaml"

func init() {
	// XAML's uses come from parseXAML, not from a tree; the registration
	// says that the language has a uses extractor (HasUses).
	registerUses(func(*sitter.Node, []byte, *File) {}, XAML)
}

// xamlValueRE matches a prefixed type name inside an attribute value,
// with an optional member: local:Foo, local:Foo.Bar.
var xamlValueRE = regexp.MustCompile(`([A-Za-z_][\w]*):([A-Za-z_][\w]*)(?:\.([A-Za-z_][\w]*))?`)

// XAMLResourceKey is the Container of a XAML resource's symbol (x:Key)
// and the From of a use of one ({StaticResource K}): not a CLR namespace,
// which cannot hold a colon.
const XAMLResourceKey = "x:Key"

// xamlResourceRE matches a resource reference inside an attribute value:
// {StaticResource K}, {DynamicResource ResourceKey=K}.
var xamlResourceRE = regexp.MustCompile(`\{\s*(?:[A-Za-z_]\w*:)?(?:StaticResource|DynamicResource)\s+(?:ResourceKey\s*=\s*)?([^\s{},=]+)\s*\}`)

// xamlIdentRE matches a bare identifier value (an event handler's name).
var xamlIdentRE = regexp.MustCompile(`^[A-Za-z_][\w]*$`)

// parseXAML extracts a XAML file. Uses keep their spans (the start tag
// holding them); Parse compacts them like those of the other languages.
func parseXAML(ctx context.Context, src []byte) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", XAML, err)
	}
	f := &File{Language: XAML, Symbols: []Symbol{}, Imports: []Import{}, Refs: []string{}}
	text := src
	if len(text) > xamlMaxBytes {
		text = text[:xamlMaxBytes]
	}
	// A byte order mark is no XML; offsets stay those of src.
	base := uint32(0)
	if bytes.HasPrefix(text, []byte("\ufeff")) {
		text, base = text[3:], 3
	}
	d := xml.NewDecoder(bytes.NewReader(text))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	clr := map[string]string{} // prefix → CLR namespace
	xPrefix := "x"
	class := ""
	root := true
	for {
		start := base + uint32(d.InputOffset())
		tok, err := d.RawToken()
		if err != nil {
			if err != io.EOF {
				f.HasErrors = true
			}
			break
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		end := base + uint32(d.InputOffset())
		use := func(u Use) {
			u.Start, u.End = start, end
			f.Uses = append(f.Uses, u)
		}
		for _, a := range el.Attr {
			if a.Name.Space == "xmlns" {
				if ns, ok := xamlCLRNamespace(a.Value); ok {
					clr[a.Name.Local] = ns
				} else if a.Value == xamlNS {
					xPrefix = a.Name.Local
				}
			}
		}
		typeUse := func(prefix, name string) {
			if ns, ok := clr[prefix]; ok {
				typ, member, _ := strings.Cut(name, ".")
				use(Use{Name: typ, From: ns})
				if member != "" {
					use(Use{Name: member, Member: true, Recv: joinDot(ns, typ)})
				}
			}
		}
		if root {
			root = false
			for _, a := range el.Attr {
				if a.Name.Space == xPrefix && a.Name.Local == "Class" {
					class = strings.TrimSpace(a.Value)
				}
			}
			f.Symbols = append(f.Symbols, xamlSymbol(src, el.Name.Local, class, start, end))
			if class != "" {
				i := strings.LastIndexByte(class, '.')
				use(Use{Name: class[i+1:], From: class[:max(i, 0)]})
			}
		}
		if el.Name.Space != "" {
			typeUse(el.Name.Space, el.Name.Local)
		}
		if len(f.Symbols) > 0 && end > start {
			for _, a := range el.Attr {
				if a.Name.Space == xPrefix && a.Name.Local == "Key" {
					if k := strings.TrimSpace(a.Value); k != "" && !strings.HasPrefix(k, "{") {
						f.Symbols = append(f.Symbols, xamlResource(src, k, start, end))
					}
				}
			}
		}
		if el.Name.Local == "StaticResource" || el.Name.Local == "DynamicResource" {
			for _, a := range el.Attr {
				if a.Name.Space == "" && a.Name.Local == "ResourceKey" {
					if k := strings.TrimSpace(a.Value); k != "" && !strings.HasPrefix(k, "{") {
						use(Use{Name: k, From: XAMLResourceKey})
					}
				}
			}
		}
		for _, a := range el.Attr {
			switch {
			case a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns"):
				continue
			case a.Name.Space != "" && a.Name.Space != xPrefix:
				typeUse(a.Name.Space, a.Name.Local)
			}
			if a.Name.Space == xPrefix {
				continue
			}
			if el.Name.Local == "ResourceDictionary" && a.Name.Local == "Source" {
				if s := strings.TrimSpace(a.Value); s != "" {
					use(Use{From: s})
				}
				continue
			}
			for _, m := range xamlResourceRE.FindAllStringSubmatch(a.Value, -1) {
				use(Use{Name: m[1], From: XAMLResourceKey})
			}
			for _, m := range xamlValueRE.FindAllStringSubmatch(a.Value, -1) {
				typeUse(m[1], strings.TrimSuffix(m[2]+"."+m[3], "."))
			}
			if class != "" && a.Name.Space == "" && xamlIdentRE.MatchString(a.Value) {
				use(Use{Name: a.Value, Member: true, Recv: class})
			}
		}
	}
	slices.SortStableFunc(f.Uses, func(a, b Use) int { return cmp.Compare(a.Start, b.Start) })
	for _, u := range f.Uses {
		if u.Name != "" {
			f.Refs = append(f.Refs, u.Name)
		}
	}
	slices.Sort(f.Refs)
	f.Refs = slices.Compact(f.Refs)
	return f, nil
}

// xamlCLRNamespace returns the CLR namespace an xmlns value maps its prefix
// to: "clr-namespace:Ns;assembly=A" (WPF) or "using:Ns" (UWP, WinUI).
func xamlCLRNamespace(v string) (string, bool) {
	if s, ok := strings.CutPrefix(v, "clr-namespace:"); ok {
		s, _, _ = strings.Cut(s, ";")
		return strings.TrimSpace(s), true
	}
	if s, ok := strings.CutPrefix(v, "using:"); ok {
		return strings.TrimSpace(s), true
	}
	return "", false
}

// xamlSymbol is the one declaration of a XAML file: its x:Class (a class
// Ns.Type), else its root element (a var), spanning the whole file; the
// signature is the root's start tag [start, end).
func xamlSymbol(src []byte, rootName, class string, start, end uint32) Symbol {
	s := Symbol{Name: rootName, Kind: Var, Exported: true, QualifiedName: rootName}
	if class != "" {
		i := strings.LastIndexByte(class, '.')
		s.Name, s.Container, s.QualifiedName, s.Kind = class[i+1:], class[:max(i, 0)], class, Class
	}
	s.Range = xamlRange(src, 0, uint32(len(src)))
	s.Signature = xamlRange(src, start, min(end, uint32(len(src))))
	return s
}

// xamlResource is the declaration of a resource keyed k whose element's
// start tag is [start, end) of src.
func xamlResource(src []byte, k string, start, end uint32) Symbol {
	end = min(end, uint32(len(src)))
	return Symbol{
		Name: k, Kind: Var, Exported: true, Container: XAMLResourceKey, QualifiedName: XAMLResourceKey + " " + k,
		Range: xamlRange(src, start, end), Signature: xamlRange(src, start, end),
	}
}

// xamlRange is the Range of bytes [from, to) of src.
func xamlRange(src []byte, from, to uint32) Range {
	point := func(off uint32) Point {
		before := src[:off]
		line := bytes.Count(before, []byte("\n"))
		col := len(before) - (bytes.LastIndexByte(before, '\n') + 1)
		return Point{Line: uint32(line), Column: uint32(col)}
	}
	return Range{Start: point(from), End: point(to), StartByte: from, EndByte: to}
}
