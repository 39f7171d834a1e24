package relate

import (
	"context"
	"testing"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/google/go-cmp/cmp"
)

func TestParseCSProject(t *testing.T) {
	tests := []struct {
		name, dir, text string
		want            *csProject
	}{
		{
			name: "sdk style",
			dir:  "src/Core",
			text: `<Project Sdk="Microsoft.NET.Sdk">
  <ItemGroup>
    <ProjectReference Include="..\Infra\Infra.csproj;..\Util\Util.csproj" />
    <Compile Include="..\..\shared\Linked.cs" Link="Linked.cs" />
    <Compile Remove="Old\**" />
  </ItemGroup>
</Project>`,
			want: &csProject{
				dirWide: true,
				items:   []string{"shared/Linked.cs"},
				refs:    []string{"src/Infra/Infra.csproj", "src/Util/Util.csproj"},
			},
		},
		{
			name: "old style with BOM, shared items and properties",
			dir:  "App",
			text: "\ufeff" + `<?xml version="1.0" encoding="utf-8"?>
<Project ToolsVersion="15.0" xmlns="http://schemas.microsoft.com/developer/msbuild/2003">
  <ItemGroup>
    <Compile Include="Views\MainWindow.xaml.cs"><DependentUpon>MainWindow.xaml</DependentUpon></Compile>
    <Compile Include="$(MSBuildProjectDirectory)\Gen.cs" />
    <Compile Include="$(OutDir)\Skipped.cs" />
    <Compile Include="..\..\Outside.cs" />
  </ItemGroup>
  <Import Project="..\Common\Common.projitems" Label="Shared" />
  <Import Project="$(MSBuildToolsPath)\Microsoft.CSharp.targets" />
</Project>`,
			want: &csProject{
				items:   []string{"App/Gen.cs", "App/Views/MainWindow.xaml.cs"},
				imports: []string{"Common/Common.projitems"},
			},
		},
		{
			name: "wildcard item and an SDK import",
			dir:  "",
			text: `<Project><Import Project="Sdk.props" Sdk="Microsoft.NET.Sdk" /><ItemGroup><Compile Include="**\*.cs" /></ItemGroup>`,
			want: &csProject{dirWide: true},
		},
		{
			name: "malformed keeps what came before",
			dir:  "P",
			text: `<Project><ItemGroup><Compile Include="A.cs" /><Compile Include="B.cs" <<<`,
			want: &csProject{items: []string{"P/A.cs"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseCSProject(tt.dir, []byte(tt.text))
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(csProject{})); diff != "" {
				t.Errorf("parseCSProject (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCSProjectUpdate: adding a ProjectReference to a .csproj rebuilds the
// project structure, so that a class of the newly referenced project
// resolves.
func TestCSProjectUpdate(t *testing.T) {
	src := newMemSource()
	add := func(p, text string) {
		t.Helper()
		var syn *syntax.File
		if lang := syntax.LanguageForPath(p); lang != "" {
			var err error
			if syn, err = syntax.Parse(context.Background(), lang, []byte(text)); err != nil {
				t.Fatal(err)
			}
		}
		src.set(p, []byte(text), syn)
	}
	add("App/App.csproj", `<Project Sdk="Microsoft.NET.Sdk"></Project>`)
	add("App/Main.cs", "namespace N; class Main { Logger L; }")
	add("Lib/Lib.csproj", `<Project Sdk="Microsoft.NET.Sdk"></Project>`)
	add("Lib/Logger.cs", "namespace N; public class Logger { }")
	resolved := func(g *Graph) []string {
		var out []string
		for _, r := range g.Resolve("App/Main.cs", nil) {
			if r.Path != "App/Main.cs" {
				out = append(out, r.Path)
			}
		}
		return out
	}
	g := Build(src)
	if diff := cmp.Diff([]string(nil), resolved(g)); diff != "" {
		t.Errorf("before the reference (-want +got):\n%s", diff)
	}
	add("App/App.csproj", `<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><ProjectReference Include="../Lib/Lib.csproj" /></ItemGroup></Project>`)
	g = g.Update(src, []string{"App/App.csproj"})
	if diff := cmp.Diff([]string{"Lib/Logger.cs"}, resolved(g)); diff != "" {
		t.Errorf("after the reference (-want +got):\n%s", diff)
	}
}
