"""List the files defining what a standard library module uses, as the
interpreter resolves it: every name chain rooted at an import binding of the
module (module level or local), evaluated against the imported module.

usage: python3 oracle.py MODULE...   (prints "MODULE<TAB>FILE" lines)

The files listed are those under the standard library, or under
$PYORACLE_ROOT when it is set (a copy of a package put on PYTHONPATH, such
as SQLAlchemy's, so that the files the interpreter loads are the ones the
resolver reads). "MODULE" may be "-all": every module under that root that
imports.
"""
import ast
import importlib
import inspect
import os
import sys
import types

STDLIB = os.environ.get("PYORACLE_ROOT") or os.path.dirname(os.__file__)


def src_file(obj, holder):
    """The .py file defining obj, found in module holder."""
    if isinstance(obj, types.ModuleType):
        return getattr(obj, "__file__", None)
    if isinstance(obj, (type, types.FunctionType)):
        try:
            return inspect.getsourcefile(obj)
        except TypeError:
            pass
        mod = sys.modules.get(getattr(obj, "__module__", None) or "")
        return getattr(mod, "__file__", None)
    return getattr(holder, "__file__", None)


def chains(tree):
    """Yield (root, [attrs]) for every Name or Attribute chain."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            continue
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Attribute, ast.Name)):
                segs = []
                x = child
                while isinstance(x, ast.Attribute):
                    segs.append(x.attr)
                    x = x.value
                if isinstance(x, ast.Name):
                    yield x.id, segs[::-1]


def bindings(tree, mod):
    """Import bindings of the module (any scope): name -> (module, attr)."""
    out = {}
    pkg = mod.__package__ or ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = (a.name, None)
                else:
                    first = a.name.split(".")[0]
                    out[first] = (first, None)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(p for p in parts + ([node.module] if node.module else []) if p)
            for a in node.names:
                if a.name == "*":
                    continue
                out[a.asname or a.name] = (base, a.name)
    return out


def used(name):
    mod = importlib.import_module(name)
    path = mod.__file__
    tree = ast.parse(open(path, encoding="utf-8").read())
    binds = bindings(tree, mod)
    files = set()
    for root, segs in chains(tree):
        if root not in binds:
            continue
        m, attr = binds[root]
        try:
            val = importlib.import_module(m)
        except Exception:
            continue
        holder = val
        if attr is not None:
            if not hasattr(val, attr):
                try:
                    val = importlib.import_module(m + "." + attr)
                except Exception:
                    continue
            else:
                val = getattr(val, attr)
        f = src_file(val, holder)
        if f:
            files.add(f)
        for s in segs:
            if isinstance(val, types.ModuleType):
                holder = val
            if isinstance(val, types.ModuleType) and not hasattr(val, s):
                try:  # a submodule nobody imported yet
                    importlib.import_module(val.__name__ + "." + s)
                except Exception:
                    pass
            if not isinstance(val, (types.ModuleType, type)) or not hasattr(val, s):
                break
            if isinstance(val, type):
                # the class defining the attribute
                for k in val.__mro__:
                    if s in vars(k):
                        f = src_file(k, holder)
                        if f:
                            files.add(f)
                        break
                break
            val = getattr(val, s)
            f = src_file(val, holder)
            if f:
                files.add(f)
    return {os.path.relpath(f, STDLIB) for f in files
            if f and f.endswith(".py") and f.startswith(STDLIB + "/") and f != path}


def all_modules():
    """Every module under STDLIB, sorted: a package is its directory."""
    out = []
    for d, dirs, files in os.walk(STDLIB):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in files:
            if not f.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(d, f), STDLIB)[: -len(".py")]
            if rel.endswith("/__init__"):
                rel = rel[: -len("/__init__")]
            out.append(rel.replace("/", "."))
    return sorted(out)


names = sys.argv[1:]
if names == ["-all"]:
    names = all_modules()
for name in names:
    try:
        files = used(name)
    except Exception as e:  # a module that does not import here
        print("skip " + name + ": " + type(e).__name__, file=sys.stderr)
        continue
    for f in sorted(files):
        print(name + "\t" + f)
