"""No import circle among our modules, type-only imports aside (docs/architecture.md).

A circle makes the order modules load in matter and hides which one is the lower layer; the
layer contracts of import-linter (``make lint``) see only imports across packages, this
sees every module of every package.
"""

import grimp

PACKAGES = ("sandbox", "episodes", "verifier", "pixel_stream", "portal_web", "desktop_ehr")


def _circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(
                        child)))))
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
    return circles


def test_no_module_imports_itself_round_a_circle():
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True)
    assert _circles(graph) == []


def test_the_circle_finder_finds_a_circle():
    graph = grimp.ImportGraph()
    for name in ("a", "a.x", "a.y", "a.z"):
        graph.add_module(name)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.x")
    graph.add_import(importer="a.z", imported="a.x")
    assert _circles(graph) == [["a.x", "a.y"]]
