"""The `ast` verb: the task's Python AST with line/column spans."""
import ast

from .task import load_task, parse_task, task_json


def node_json(node):
    out = {"type": type(node).__name__}
    if hasattr(node, "lineno"):
        out["span"] = [node.lineno, node.col_offset + 1, node.end_lineno, (node.end_col_offset or 0) + 1]
    fields = {}
    children = []
    for name, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            if isinstance(value, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)):
                fields[name] = type(value).__name__
            else:
                child = node_json(value)
                child["field"] = name
                children.append(child)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, ast.AST):
                    if isinstance(item, (ast.operator, ast.cmpop, ast.unaryop, ast.boolop)):
                        fields.setdefault(name, []).append(type(item).__name__)
                        continue
                    child = node_json(item)
                    child["field"] = name
                    child["index"] = i
                    children.append(child)
                else:
                    fields.setdefault(name, []).append(_scalar(item))
        elif value is not None:
            fields[name] = _scalar(value)
    if fields:
        out["fields"] = fields
    if children:
        out["children"] = children
    return out


def _scalar(value):
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, complex):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return repr(value)


def ast_verb(request):
    if request.get("parse_only"):
        # Only the text and its AST: the file is not imported, so none of its code runs (the
        # integrity checks read untrusted candidates this way before anything executes them).
        path, source, tree = parse_task(request.get("task"))
        return {"path": path, "source": source, "module": node_json(tree)}
    task = load_task(request.get("task"))
    tree = ast.parse(task.source, filename=task.path)
    kernels = task.kernels
    return {
        "path": task.path,
        "source": task.source,
        "kernels": [k.to_json() for k in kernels.values()],
        "task": task_json(task),
        "module": node_json(tree),
    }
