// Java oracle of ctxd's relevance benchmark.
//
// Usage: java Oracle.java ROOT > oracle.json
//
// Compiles every .java file under ROOT in one javac task (the Compiler Tree
// API of the JDK running it: parse, enter, attribute, no code generated)
// and, for each file, counts the uses of elements declared in other files
// of ROOT: every identifier, member select and member reference is mapped
// through Trees.getElement to the element javac bound it to, and through
// Trees.getPath to the compilation unit declaring that element. Import
// declarations are not uses (a name imported is a use where it is used);
// package names are not elements of a file. "users" are the same edges read
// backwards by the Go side.
//
// Output: {"javac": VERSION, "errors": N, "files": {FILE: {"used": {FILE:
// N}}}} with ROOT-relative paths and sorted keys; errors counts javac's
// error diagnostics (0 when the tree compiles as it is).

import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.ImportTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class Oracle {
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: java Oracle.java ROOT");
      System.exit(2);
    }
    Path root = Path.of(args[0]).toRealPath();
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.walk(root)) {
      s.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p)).sorted().forEach(files::add);
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
    StandardJavaFileManager fm = javac.getStandardFileManager(diags, null, StandardCharsets.UTF_8);
    JavacTask task = (JavacTask) javac.getTask(null, fm, diags,
        List.of("-proc:none", "-Xlint:none", "-implicit:none", "-Xmaxerrs", "100000"), null,
        fm.getJavaFileObjectsFromPaths(files));
    Iterable<? extends CompilationUnitTree> units = task.parse();
    task.analyze();
    Trees trees = Trees.instance(task);

    Map<Element, Optional<String>> declFile = new HashMap<>();
    Map<String, Map<String, Integer>> used = new TreeMap<>();
    for (CompilationUnitTree cu : units) {
      String from = rel(root, cu);
      if (from == null) {
        continue;
      }
      Map<String, Integer> counts = new TreeMap<>();
      used.put(from, counts);
      new TreePathScanner<Void, Void>() {
        @Override
        public Void visitImport(ImportTree node, Void v) {
          return null;
        }

        @Override
        public Void visitIdentifier(IdentifierTree node, Void v) {
          count();
          return super.visitIdentifier(node, v);
        }

        @Override
        public Void visitMemberSelect(MemberSelectTree node, Void v) {
          count();
          return super.visitMemberSelect(node, v);
        }

        @Override
        public Void visitMemberReference(MemberReferenceTree node, Void v) {
          count();
          return super.visitMemberReference(node, v);
        }

        private void count() {
          Element e = trees.getElement(getCurrentPath());
          if (e == null || e.getKind() == ElementKind.PACKAGE || e.getKind() == ElementKind.MODULE) {
            return;
          }
          Optional<String> to = declFile.computeIfAbsent(e, k -> {
            TreePath p = trees.getPath(k);
            return p == null ? Optional.empty() : Optional.ofNullable(rel(root, p.getCompilationUnit()));
          });
          if (to.isPresent() && !to.get().equals(from)) {
            counts.merge(to.get(), 1, Integer::sum);
          }
        }
      }.scan(cu, null);
    }

    long errors = diags.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR).count();
    StringBuilder out = new StringBuilder();
    out.append("{\"javac\":").append(quote(System.getProperty("java.version")));
    out.append(",\"errors\":").append(errors).append(",\"files\":{");
    boolean first = true;
    for (Map.Entry<String, Map<String, Integer>> f : used.entrySet()) {
      out.append(first ? "" : ",").append(quote(f.getKey())).append(":{\"used\":{");
      first = false;
      boolean firstUse = true;
      for (Map.Entry<String, Integer> u : f.getValue().entrySet()) {
        out.append(firstUse ? "" : ",").append(quote(u.getKey())).append(':').append(u.getValue());
        firstUse = false;
      }
      out.append("}}");
    }
    out.append("}}");
    System.out.println(out);
  }

  static String rel(Path root, CompilationUnitTree cu) {
    Path p = Path.of(cu.getSourceFile().toUri()).normalize();
    if (!p.startsWith(root)) {
      return null;
    }
    return root.relativize(p).toString().replace('\\', '/');
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
