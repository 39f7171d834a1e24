package syntax

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestXAML(t *testing.T) {
	tests := []struct {
		name, src string
		wantSym   string // QualifiedName and kind of each symbol, "; "-separated
		want      []Use
	}{
		{
			name: "window with code-behind",
			src: "\ufeff" + `<Window x:Class="App.Views.MainWindow"
        xmlns="http://schemas.microsoft.com/winfx/2006/xaml/presentation"
        xmlns:x="http://schemas.microsoft.com/winfx/2006/xaml"
        xmlns:local="clr-namespace:App.Controls;assembly=App"
        xmlns:vm="using:App.ViewModels"
        Title="Main" Loaded="OnLoaded">
    <Window.Resources>
        <Style TargetType="local:Badge" x:Key="B"/>
    </Window.Resources>
    <Grid local:Dock.Side="Left" DataContext="{x:Static vm:Locator.Main}">
        <local:Badge x:Name="badge" Kind="{x:Type local:BadgeKind}"/>
        <Button Click="OnSave" Content="Save" Style="{StaticResource B}"/>
    </Grid>
</Window>`,
			wantSym: "App.Views.MainWindow class; x:Key B var",
			want: []Use{
				{Name: "B", From: XAMLResourceKey},
				{Name: "Badge", From: "App.Controls"},
				{Name: "BadgeKind", From: "App.Controls"},
				{Name: "Dock", From: "App.Controls"},
				{Name: "Locator", From: "App.ViewModels"},
				{Name: "Main", Member: true, Recv: "App.ViewModels.Locator"},
				{Name: "Main", Member: true, Recv: "App.Views.MainWindow"}, // Title="Main": resolves only to a member Main
				{Name: "MainWindow", From: "App.Views"},
				{Name: "OnLoaded", Member: true, Recv: "App.Views.MainWindow"},
				{Name: "OnSave", Member: true, Recv: "App.Views.MainWindow"},
				{Name: "Save", Member: true, Recv: "App.Views.MainWindow"},
				{Name: "Side", Member: true, Recv: "App.Controls.Dock"},
			},
		},
		{
			name: "resource dictionary",
			src: `<ResourceDictionary xmlns="http://schemas.microsoft.com/winfx/2006/xaml/presentation">
    <ResourceDictionary.MergedDictionaries>
        <ResourceDictionary Source="Colors.xaml"/>
        <ResourceDictionary Source="pack://application:,,,/App;component/Themes/Brushes.xaml"/>
    </ResourceDictionary.MergedDictionaries>
    <SolidColorBrush x:Key="Accent" Color="Red"/>
    <Style x:Key="{x:Static local:Keys.Big}" BasedOn="{DynamicResource ResourceKey=Base}">
        <Setter Property="Foreground"><Setter.Value><StaticResource ResourceKey="Accent"/></Setter.Value></Setter>
    </Style>
</ResourceDictionary>`,
			wantSym: "ResourceDictionary var; x:Key Accent var",
			want: []Use{
				{From: "Colors.xaml"},
				{From: "pack://application:,,,/App;component/Themes/Brushes.xaml"},
				{Name: "Accent", From: XAMLResourceKey},
				{Name: "Base", From: XAMLResourceKey},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(context.Background(), XAML, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var syms []string
			for _, s := range f.Symbols {
				syms = append(syms, s.QualifiedName+" "+s.Kind.String())
			}
			got := strings.Join(syms, "; ")
			if got != tt.wantSym {
				t.Errorf("symbols = %q, want %q", got, tt.wantSym)
			}
			if s := f.Symbols[0]; s.Range.StartByte != 0 || int(s.Range.EndByte) != len(tt.src) {
				t.Errorf("symbol range = %+v, want the whole file", s.Range)
			}
			if diff := cmp.Diff(tt.want, f.Uses); diff != "" {
				t.Errorf("uses (-want +got):\n%s", diff)
			}
			spans, err := Uses(context.Background(), XAML, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range spans {
				if u.End <= u.Start || int(u.End) > len(tt.src) {
					t.Errorf("use %+v: bad span", u)
				}
			}
		})
	}
}

func TestXAMLFamily(t *testing.T) {
	if got := LanguageForPath("Views/MainWindow.xaml"); got != XAML {
		t.Errorf("LanguageForPath = %q, want %q", got, XAML)
	}
	if got := FamilyOf(XAML); got != FamilyCSharp {
		t.Errorf("FamilyOf(XAML) = %v, want %v", got, FamilyCSharp)
	}
	if !HasUses(XAML) {
		t.Error("HasUses(XAML) = false")
	}
}
