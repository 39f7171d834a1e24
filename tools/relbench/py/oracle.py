"""Python oracle of ctxd's relevance benchmark.

usage: python3 -S oracle.py ROOT   (ROOT first on sys.path)

Imports every module under ROOT with the interpreter and, for each one,
counts the uses of what its imports resolve to, file by file: every chain of
names (a.b.c) rooted at an import binding of the module (at any scope) is
evaluated against the imported objects, and each object the chain passes
through is mapped to the file defining it -- a module to its file, a class
or function (decorators unwrapped) to the file of its code or class body, a
class attribute to the file of the class in the MRO that defines it, any
other value to the module it was taken from. A chain stops at the first
value that is neither a module nor a class (an instance's attributes depend
on a type the interpreter cannot know statically). Besides chains, each
import binding is one use of the file defining what it binds, since the
interpreter looks the name up when the import runs ("from m import x" reads
x from m; a module that only re-exports uses what it re-exports), and
"from m import *" is one use of m's file.

Prints JSON: {"python": VERSION, "files": {FILE: {"used": {FILE: N}}},
"skipped": {FILE: ERROR}} with ROOT-relative paths; a module that does not
import is skipped (it has no edges and is not a target).
"""
import ast
import importlib
import inspect
import json
import os
import sys
import types

ROOT = os.path.realpath(sys.argv[1])


def under_root(f):
    if not f:
        return None
    f = os.path.realpath(f)
    if f.endswith(".py") and f.startswith(ROOT + os.sep):
        return os.path.relpath(f, ROOT).replace(os.sep, "/")
    return None


def module_file(mod):
    return getattr(mod, "__file__", None) if isinstance(mod, types.ModuleType) else None


def defining_file(obj, holder):
    """The file defining obj, reached through module holder."""
    if isinstance(obj, types.ModuleType):
        return module_file(obj)
    if isinstance(obj, (type, types.FunctionType, types.MethodType, classmethod, staticmethod)):
        if isinstance(obj, (classmethod, staticmethod)):
            obj = obj.__func__
        try:
            f = inspect.getsourcefile(inspect.unwrap(obj))
        except (TypeError, ValueError):
            f = None
        if under_root(f):
            return f
        mod = sys.modules.get(getattr(obj, "__module__", None) or "")
        if mod is not None and module_file(mod):
            return module_file(mod)
        return f
    return module_file(holder)


def chains(tree):
    """Yield [root, attr, attr...] for every maximal Name/Attribute chain."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            continue
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.Attribute, ast.Name)):
                continue
            segs = []
            x = child
            while isinstance(x, ast.Attribute):
                segs.append(x.attr)
                x = x.value
            if isinstance(x, ast.Name):
                yield [x.id] + segs[::-1]


def absolute(mod, level, name):
    if not level:
        return name or ""
    pkg = mod.__package__ or ""
    parts = pkg.split(".")
    if level > 1:
        parts = parts[: len(parts) - level + 1]
    if name:
        parts.append(name)
    return ".".join(p for p in parts if p)


def bindings(tree, mod):
    """name -> (module, attribute or None); star imports as a list."""
    out, stars = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = (a.name, None)
                else:
                    first = a.name.split(".")[0]
                    out[first] = (first, None)
        elif isinstance(node, ast.ImportFrom):
            base = absolute(mod, node.level, node.module)
            for a in node.names:
                if a.name == "*":
                    stars.append(base)
                else:
                    out[a.asname or a.name] = (base, a.name)
    return out, stars


def load(name):
    try:
        return importlib.import_module(name)
    except Exception:
        return None


def resolve(binding):
    """The value an import binding names, and the module it came from."""
    m, attr = binding
    val = load(m)
    if val is None:
        return None, None
    if attr is None:
        return val, val
    if hasattr(val, attr):
        return getattr(val, attr), val
    sub = load(m + "." + attr)
    return sub, val


def uses(name, path):
    mod = importlib.import_module(name)
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    binds, stars = bindings(tree, mod)
    me = under_root(path)
    counts = {}

    def add(files):
        for f in files:
            r = under_root(f)
            if r and r != me:
                counts[r] = counts.get(r, 0) + 1

    cache = {}
    for chain in chains(tree):
        b = binds.get(chain[0])
        if b is None:
            continue
        if b not in cache:
            cache[b] = resolve(b)
        val, holder = cache[b]
        if val is None:
            continue
        files = [defining_file(val, holder)]
        for seg in chain[1:]:
            if isinstance(val, types.ModuleType):
                holder = val
                if not hasattr(val, seg):
                    load(val.__name__ + "." + seg)  # a submodule not imported yet
                if not hasattr(val, seg):
                    break
                val = getattr(val, seg)
                files.append(defining_file(val, holder))
                continue
            if isinstance(val, type):
                for k in val.__mro__:
                    if seg in vars(k):
                        files.append(defining_file(k, holder))
                        break
            break
        add(dict.fromkeys(f for f in files if f))
    for base in stars:
        m = load(base)
        if m is not None:
            add([module_file(m)])
    for local, b in sorted(binds.items()):
        if b not in cache:
            cache[b] = resolve(b)
        val, holder = cache[b]
        if val is not None:
            add([defining_file(val, holder)])
    return counts


def modules():
    out = []
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__" and os.path.exists(os.path.join(d, x, "__init__.py")))
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, ROOT)[: -len(".py")]
            if rel.endswith("/__init__") or rel == "__init__":
                rel = rel[: -len("/__init__")]
            out.append((rel.replace(os.sep, "."), path))
    return out


def main():
    files, skipped = {}, {}
    for name, path in modules():
        try:
            files[under_root(path)] = {"used": dict(sorted(uses(name, path).items()))}
        except BaseException as e:  # a module that does not import here
            skipped[under_root(path)] = type(e).__name__ + ": " + str(e).splitlines()[0][:200] if str(e) else type(e).__name__
    json.dump({"python": sys.version.split()[0], "files": dict(sorted(files.items())), "skipped": dict(sorted(skipped.items()))}, sys.stdout)
    sys.stdout.write("\n")


main()
