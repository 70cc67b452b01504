package layout

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/roostproject/roost/"

// leaves import nothing of roost's own.
var leaves = []string{"ws", "httphead", "pusher", "auth", "wheel", "connstats", "rate", "ratelog", "redisurl", "tlsidle"}

// packages returns every package directory under the module, by path
// relative to the module root, with its parsed non-test files.
func packages(t *testing.T) map[string][]string {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string][]string{}
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules" || name == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			dirs[rel] = append(dirs[rel], path)
		}
		return nil
	})
	return dirs
}

func TestEveryPackageHasADocComment(t *testing.T) {
	for dir, files := range packages(t) {
		documented := false
		for _, f := range files {
			ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			documented = documented || ast.Doc != nil
		}
		if !documented {
			t.Errorf("package %s has no doc comment", dir)
		}
	}
}

func TestLeavesImportNoInternalPackage(t *testing.T) {
	all := packages(t)
	for _, leaf := range leaves {
		files := all[filepath.Join("internal", leaf)]
		if len(files) == 0 {
			t.Errorf("leaf package internal/%s not found", leaf)
		}
		for _, f := range files {
			for _, p := range imports(t, f) {
				if strings.HasPrefix(p, module+"internal/") {
					t.Errorf("%s imports %s: internal/%s must stay a leaf", f, p, leaf)
				}
			}
		}
	}
}

// overLeaves import leaves and no other package of roost's own: the policy
// both transports share, and the metrics exposition.
var overLeaves = []string{"transport", "metrics"}

func TestOverLeavesImportOnlyLeaves(t *testing.T) {
	all := packages(t)
	for _, pkg := range overLeaves {
		files := all[filepath.Join("internal", pkg)]
		if len(files) == 0 {
			t.Errorf("package internal/%s not found", pkg)
		}
		for _, f := range files {
			for _, p := range imports(t, f) {
				name, ok := strings.CutPrefix(p, module+"internal/")
				if ok && !slices.Contains(leaves, name) {
					t.Errorf("%s imports %s: internal/%s may import only leaves", f, p, pkg)
				}
			}
		}
	}
}

// testOnly are packages that only _test.go files, and other test-only
// packages, may import.
var testOnly = []string{"testutil", "cluster/clustertest"}

func TestTestOnlyPackagesAreImportedOnlyByTests(t *testing.T) {
	all := packages(t)
	for _, pkg := range testOnly {
		if len(all[filepath.Join("internal", pkg)]) == 0 {
			t.Errorf("test-only package internal/%s not found", pkg)
		}
	}
	for dir, files := range all {
		if slices.Contains(testOnly, filepath.ToSlash(strings.TrimPrefix(dir, "internal"+string(filepath.Separator)))) {
			continue
		}
		for _, f := range files {
			for _, p := range imports(t, f) {
				if slices.Contains(testOnly, strings.TrimPrefix(p, module+"internal/")) {
					t.Errorf("%s imports %s, which only tests may import", f, p)
				}
			}
		}
	}
}

// imports returns the import paths of a Go file.
func imports(t *testing.T, file string) []string {
	ast, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, imp := range ast.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		paths = append(paths, p)
	}
	return paths
}
