package relate

import (
	"path"
	"strings"
	"testing"
)

// FuzzCSProject parses arbitrary bytes as an MSBuild project file, a file
// of the workspace and so untrusted input: it never panics, and every
// item path it keeps is a clean, relative, slash-separated path that does
// not leave the workspace.
func FuzzCSProject(f *testing.F) {
	for _, seed := range []string{
		`<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><ProjectReference Include="..\Lib\Lib.csproj" /></ItemGroup></Project>`,
		`<Project ToolsVersion="15.0"><ItemGroup><Compile Include="Main.cs" /><Compile Include="..\Shared\Log.cs"><Link>Log.cs</Link></Compile></ItemGroup><Import Project="..\Common\Common.projitems" Label="Shared" /></Project>`,
		`<Project><ItemGroup><Compile Include="**\*.cs" /></ItemGroup></Project>`,
		`<Project><ItemGroup><Compile Include="..\..\..\etc\passwd" /></ItemGroup></Project>`,
		`<Project`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pr := parseCSProject("app/src", b)
		if pr == nil {
			t.Fatal("nil project")
		}
		for _, list := range [][]string{pr.items, pr.refs, pr.imports} {
			for _, p := range list {
				if p == "" || p != path.Clean(p) || strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, `\`) {
					t.Fatalf("kept %q: not a clean workspace-relative path", p)
				}
			}
		}
	})
}
