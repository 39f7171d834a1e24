'use strict';
// TypeScript oracle of ctxd's relevance benchmark.
//
// Usage: node oracle.js WORKSPACE [MODE] > oracle.json
//
// MODE picks the compiler options of the package: "node10" (the default:
// CommonJS, moduleResolution node10, lib es2020 + dom) or "bundler" (ESNext
// modules, moduleResolution bundler, lib es2022 + dom: an ESM package whose
// specifiers are "./X.js" resolves them to X.ts as NodeNext does, without
// needing the package's package.json in the workspace).
//
// Type-checks every .ts/.tsx file under WORKSPACE with the TypeScript
// compiler API and, for each file, counts the uses of symbols declared in
// other files of the workspace: every identifier's symbol (import and export
// specifiers followed to the original declaration with
// checker.getAliasedSymbol) is mapped to the files of its declarations. An
// `export * from "m"` counts one use of m's file. Import declarations
// themselves are not counted: an import is a use only where the imported
// name is used. "users" is the same relation read backwards.
//
// Output: {"typescript": VERSION, "files": {FILE: {"used": {FILE: N},
// "users": {FILE: N}}}} with workspace-relative paths and sorted keys.

const fs = require('fs');
const path = require('path');
const ts = require('typescript');

function listSources(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') listSources(p, out);
    } else if (/\.tsx?$/.test(e.name)) {
      out.push(p);
    }
  }
  return out;
}

function sorted(obj) {
  const out = {};
  for (const k of Object.keys(obj).sort()) out[k] = obj[k];
  return out;
}

const MODES = {
  node10: {
    target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    lib: ['lib.es2020.d.ts', 'lib.dom.d.ts'],
  },
  bundler: {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  },
};

function main() {
  const mode = process.argv[3] || 'node10';
  if (process.argv.length < 3 || process.argv.length > 4 || !MODES[mode]) {
    process.stderr.write('usage: node oracle.js WORKSPACE [node10|bundler]\n');
    process.exit(2);
  }
  const root = path.resolve(process.argv[2]);
  const files = listSources(root, []).sort();
  const program = ts.createProgram(files, {
    ...MODES[mode],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();

  const rel = (f) => {
    const r = path.relative(root, f).split(path.sep).join('/');
    return r.startsWith('../') || path.isAbsolute(r) || r.includes('node_modules/') ? null : r;
  };

  const used = {};
  for (const sf of program.getSourceFiles()) {
    const from = rel(sf.fileName);
    if (from === null || sf.isDeclarationFile) continue;
    const counts = {};
    const add = (decls) => {
      const seen = new Set();
      for (const d of decls || []) {
        const to = rel(d.getSourceFile().fileName);
        if (to !== null && to !== from && !seen.has(to)) {
          seen.add(to);
          counts[to] = (counts[to] || 0) + 1;
        }
      }
    };
    const visit = (node) => {
      if (ts.isImportDeclaration(node) || ts.isImportEqualsDeclaration(node)) return;
      if (ts.isExportDeclaration(node) && !node.exportClause && node.moduleSpecifier) {
        const mod = checker.getSymbolAtLocation(node.moduleSpecifier);
        if (mod) add(mod.declarations);
      }
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
        let sym = checker.getSymbolAtLocation(node);
        if (sym && sym.flags & ts.SymbolFlags.Alias) {
          try {
            sym = checker.getAliasedSymbol(sym);
          } catch (e) {
            // an unresolvable alias keeps its own declaration
          }
        }
        if (sym) add(sym.declarations);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    used[from] = counts;
  }

  const users = {};
  for (const from of Object.keys(used)) {
    users[from] = users[from] || {};
    for (const [to, n] of Object.entries(used[from])) {
      users[to] = users[to] || {};
      users[to][from] = (users[to][from] || 0) + n;
    }
  }
  const out = {};
  for (const f of Object.keys(used).sort()) {
    out[f] = { used: sorted(used[f]), users: sorted(users[f] || {}) };
  }
  process.stdout.write(JSON.stringify({ typescript: ts.version, files: out }) + '\n');
}

main();
