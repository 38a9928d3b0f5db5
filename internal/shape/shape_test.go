package shape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of the module may be, from its
// `func` line to its closing brace.
const maxFuncLines = 70

// overLong lists the functions still over maxFuncLines, by package
// directory and name ("Recv.Name" for a method). Each is to be split; the
// list only shrinks: TestNoLongFunctions fails on a function over the
// bound that is not here, and on an entry that is no longer over it.
var overLong = []string{}

// TestNoLongFunctions walks every non-test Go file of the module (testdata
// and hidden directories aside).
func TestNoLongFunctions(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	files := 0
	var seen []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
			n := end.Line - start.Line + 1
			if n <= maxFuncLines {
				continue
			}
			key := filepath.ToSlash(rel) + " " + funcName(fn)
			if slices.Contains(overLong, key) {
				seen = append(seen, key)
				continue
			}
			t.Errorf("%s:%d: %s is %d lines, over %d: split it into named steps", path, start.Line, funcName(fn), n, maxFuncLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 150 {
		t.Fatalf("read %d files: the walk is not finding the module", files)
	}
	for _, key := range overLong {
		if !slices.Contains(seen, key) {
			t.Errorf("overLong lists %q, which is not over %d lines any more (or is gone): remove it", key, maxFuncLines)
		}
	}
}

// funcName is fn's name, with its receiver's type for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
