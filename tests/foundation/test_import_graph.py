"""The import graph of `ding/`, read from the source (module-level and function-level imports;
`if TYPE_CHECKING:` blocks never run and are left out), has no cycle, and the core imports
nothing from `ding/compat/` (DI-engine's shims)."""
import ast
import pathlib
from typing import Dict, List, Set

ROOT = pathlib.Path(__file__).resolve().parents[2]



def modules() -> Dict[str, pathlib.Path]:
    found = {}
    for path in (ROOT / 'ding').rglob('*.py'):
        parts = list(path.relative_to(ROOT).with_suffix('').parts)
        found['.'.join(parts[:-1] if parts[-1] == '__init__' else parts)] = path
    return found


def _runtime_imports(tree: ast.AST):
    """Import nodes that can run: everything but the bodies of `if TYPE_CHECKING:`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, 'id', getattr(node.test, 'attr', '')) == 'TYPE_CHECKING':
            node.body = []
    return [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]


def imported(name: str, path: pathlib.Path, mods: Dict[str, pathlib.Path]) -> Set[str]:
    """The ding modules `name` imports (`from pkg import sub` counts as importing pkg.sub)."""
    out = set()
    for node in _runtime_imports(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ''
            if node.level:
                package = name.split('.') if path.name == '__init__.py' else name.split('.')[:-1]
                package = package[:len(package) - node.level + 1]
                base = '.'.join(package + ([base] if base else []))
            targets = [f'{base}.{a.name}' if f'{base}.{a.name}' in mods else base for a in node.names]
        for target in targets:
            while target and target not in mods:
                target = target.rpartition('.')[0]
            # a module importing its own package runs that package's __init__ first: not an edge back
            if target.startswith('ding') and target != name and not name.startswith(target + '.'):
                out.add(target)
    return out


def cycles(graph: Dict[str, Set[str]]) -> List[Set[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(root: str) -> None:
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next((e for e in edges if e not in index or e in on_stack), None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
            elif nxt in index:
                low[node] = min(low[node], index[nxt])
            else:
                index[nxt] = low[nxt] = counter[0]
                counter[0] += 1
                stack.append(nxt)
                on_stack.add(nxt)
                work.append((nxt, iter(sorted(graph[nxt]))))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


def import_graph() -> Dict[str, Set[str]]:
    mods = modules()
    return {name: imported(name, path, mods) for name, path in mods.items()}


def test_ding_has_no_import_cycle():
    assert [sorted(c) for c in cycles(import_graph())] == []


def test_the_core_imports_nothing_from_compat():
    # The one import: the package root runs `ding.compat.install()` (the finder of DI-engine's module
    # paths, and the protocol adapters of ding/utils/protocol_adapters.py). The public
    # names DI-engine programs use reach compat through the packages' export tables (strings, not
    # imports), e.g. ding/policy/__init__.py.
    graph = import_graph()
    assert any(name.startswith('ding.compat.') for name in graph)
    core = {name: sorted(t for t in targets if t == 'ding.compat' or t.startswith('ding.compat.'))
            for name, targets in graph.items() if name != 'ding.compat' and not name.startswith('ding.compat.')}
    assert {name: t for name, t in core.items() if t} == {'ding': ['ding.compat']}



# Modules outside ding/compat/ that name DI-engine: issue 36's bound is 15. The ones left say why
# a piece exists only for DI-engine programs (an alias, a module path, treetensor data, the per-env
# step); the rest of the core describes itself. Lower it as they move into compat.
MODULES_NAMING_DI_ENGINE_AT_MOST = 13


def test_di_engine_is_named_in_no_more_core_modules_than_before():
    naming = sorted(str(path.relative_to(ROOT)) for name, path in modules().items()
                    if not (name == 'ding.compat' or name.startswith('ding.compat.')) and 'DI-engine' in path.read_text())
    assert len(naming) <= MODULES_NAMING_DI_ENGINE_AT_MOST, naming

def test_the_reader_finds_a_cycle_and_skips_type_checking_imports(tmp_path, monkeypatch):
    pkg = tmp_path / 'ding'
    pkg.mkdir()
    (pkg / '__init__.py').write_text('')
    (pkg / 'a.py').write_text('def f():\n    from ding.b import g\n')
    (pkg / 'b.py').write_text('from ding import a\n')
    (pkg / 'c.py').write_text('from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ding.a import f\n')
    (pkg / 'd.py').write_text('from ding.c import *\n')
    monkeypatch.setattr(__import__(__name__), 'ROOT', tmp_path)
    mods = modules()
    graph = {name: imported(name, path, mods) for name, path in mods.items()}
    assert graph['ding.c'] == set() and graph['ding.d'] == {'ding.c'}
    assert cycles(graph) == [{'ding.a', 'ding.b'}]
