"""Decode prompt-mode Python call lists (`[f(a=1), mod.g(b="x")]`) without running them.

The text is cleaned as BFCL does (`prompt_text.bracket_text`), parsed with `ast.parse` (which
only builds a syntax tree), and each element of the list must be a call. What is kept, as in
bfcl-eval 2026.3.23:

- the name is the dotted attribute chain (`a.b.c`); a chain not rooted in a plain name keeps
  only its attribute part (`x[0].f` -> `f`, `f()(b=1)` -> ``);
- only keyword arguments are kept; positional and `*args` are dropped; a repeated keyword
  keeps its last value; `**kwargs` is kept under the key `"**"` in a top-level call
  (upstream: `None`, which no parameter name can be either) and under `None` in a nested one;
- values: literals as Python values (`None`, bools, numbers, bytes, complex), `...` -> the
  string `"..."`, lists, dicts and tuples (tuples stay tuples), bare names -> their name as a
  string (`true` -> `"true"`), a nested call with keywords -> `{name: {args}}`, a nested call
  without keywords and a subscript -> their source text as `ast.unparse` prints it;
- any unary operator on a number literal negates it (upstream's rule: `+5` -> -5,
  `not True` -> -1); on anything else it fails;
- attribute values (`math.pi`), sets, comprehensions, comparisons, f-strings, lambdas and the
  like fail.

Deviation: upstream `eval`s binary operations (`1 + 2`, `2 ** 0.5`, `"%d" % 5`, and even
`len("ab") + 1`). We never evaluate model text; we compute a binary operation only over
literals (numbers, strings, bytes, lists, tuples, dicts, sets, unary operators and
subscripts on them)
with Python's own operators and size guards. A binary operation that mentions a name, call,
attribute or anything else fails (`decoder_failed`), as do results over the caps in
`limits.py`. Every other decision agrees with upstream.
"""

from __future__ import annotations

import ast
import operator
import re
import warnings
from collections.abc import Callable
from typing import Any

from bfcl_action.core.records import Call
from bfcl_action.decode.errors import DecodeError, failed
from bfcl_action.decode.limits import MAX_DEPTH, MAX_INT_BITS, MAX_TOTAL_INT_BITS, MAX_VALUE_SIZE
from bfcl_action.decode.prompt_text import bracket_text
from bfcl_action.decode.python_fast import decode_python_fast, not_a_call_list

KWARGS_KEY = "**"
"""Key under which a `**mapping` argument is kept (no parameter can have this name)."""

_SOURCE_NAME = "<model output>"
"""File name given to `ast.parse`, so the warnings Python's compiler raises about model text
(`1if`, `"\\d"`) can be silenced without touching any other warning, thread-safely."""

for _category in (SyntaxWarning, DeprecationWarning):
    warnings.filterwarnings("ignore", category=_category, module=re.escape(_SOURCE_NAME) + "$")

_WORK_BUDGET = 10 * MAX_VALUE_SIZE
"""Total elements all evaluated operators of one output may build."""


def decode_python(text: str) -> list[Call]:
    """Decode Python call-list text into calls, or raise `DecodeError`.

    Simple call lists take the regex fast path (`python_fast`), which gives exactly what
    the `ast` path gives; everything else is parsed with `ast`.
    """
    source = bracket_text(text)
    fast = decode_python_fast(source)
    if fast is not None:
        return [Call(name, arguments) for name, arguments in fast]
    why = not_a_call_list(source)
    if why is not None:
        raise failed(why)
    return _decode_tree(source)


def decode_python_ast(text: str) -> list[Call]:
    """`decode_python` without the fast path (the reference the fast path is tested against)."""
    return _decode_tree(bracket_text(text))


def _decode_tree(source: str) -> list[Call]:
    try:
        tree = ast.parse(source, filename=_SOURCE_NAME, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError, UnicodeError) as exc:
        raise failed(f"not a Python call list: {type(exc).__name__}: {exc}") from None
    body = tree.body
    elements = [body] if isinstance(body, ast.Call) else getattr(body, "elts", None)
    if elements is None:
        raise failed(f"not a list of calls: a {type(body).__name__} expression")
    decoder = _Decoder()
    calls = []
    for element in elements:
        if not isinstance(element, ast.Call):
            raise failed(f"list element is a {type(element).__name__}, not a call")
        name, arguments = decoder.call(element)
        calls.append(Call(name=name, arguments=arguments))
    return calls


def _check_depth(tree: ast.AST) -> None:
    """Refuse a subtree deeper than `MAX_DEPTH` before a recursive walk prints it."""
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise failed(f"expression nested deeper than {MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _call_name(node: ast.Call) -> str:
    parts = []
    func = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def _unparse(node: ast.AST) -> str:
    _check_depth(node)
    try:
        return ast.unparse(node)
    except (RecursionError, ValueError) as exc:
        raise failed(f"cannot print expression: {exc}") from None


class _Decoder:
    """Turns argument expressions into values; holds the work budget of one output."""

    def __init__(self) -> None:
        self.budget = _WORK_BUDGET
        self.int_bits = MAX_TOTAL_INT_BITS
        self.depth = 0

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise failed(f"expression nested deeper than {MAX_DEPTH} levels")

    def call(self, node: ast.Call, *, nested: bool = False) -> tuple[str, dict[Any, Any]]:
        """Name and keyword arguments; `**x` is keyed `None` in a nested call (as upstream)
        and `KWARGS_KEY` at the top, where parameter names must be strings."""
        arguments: dict[Any, Any] = {}
        for keyword in node.keywords:
            key = keyword.arg
            if key is None and not nested:
                key = KWARGS_KEY
            arguments[key] = self.value(keyword.value)
        return _call_name(node), arguments

    def value(self, node: ast.expr) -> Any:
        self.enter()
        try:
            return self._value(node)
        finally:
            self.depth -= 1

    def _value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return "..." if node.value is Ellipsis else node.value
        if isinstance(node, ast.UnaryOp):
            return _negate_literal(node)
        if isinstance(node, ast.List):
            return [self.value(item) for item in node.elts]
        if isinstance(node, ast.Tuple):
            return tuple(self.value(item) for item in node.elts)
        if isinstance(node, ast.Dict):
            return self.mapping(node)
        if isinstance(node, ast.BinOp):
            return _Evaluator(self).evaluate(node)
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Call):
            if not node.keywords:
                return _unparse(node)
            name, arguments = self.call(node, nested=True)
            return {name: arguments}
        if isinstance(node, ast.Subscript):
            return _unparse(node.value) + "[" + _unparse(node.slice) + "]"
        raise failed(f"unsupported argument value: {type(node).__name__}")

    def mapping(self, node: ast.Dict) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            if key_node is None:
                raise failed("unsupported argument value: ** inside a dict")
            key = self.value(key_node)
            value = self.value(value_node)
            try:
                result[key] = value
            except TypeError as exc:
                raise failed(f"unusable dict key: {exc}") from None
        return result


def _negate_literal(node: ast.UnaryOp) -> Any:
    """Upstream negates the operand literal whatever the operator (`+5`, `~5`, `not 5`)."""
    operand = node.operand
    if isinstance(operand, ast.Constant) and isinstance(operand.value, int | float | complex):
        return -operand.value
    raise failed(f"unsupported operand of a unary operator: {type(operand).__name__}")


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}

_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}

_SIZED = (str, bytes, list, tuple, dict, set, frozenset)

_PERCENT_DIRECTIVE = re.compile(rb"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


class _Evaluator:
    """Computes a binary operation over literals with Python's semantics and size guards."""

    def __init__(self, decoder: _Decoder) -> None:
        self.decoder = decoder

    def evaluate(self, node: ast.expr) -> Any:
        self.decoder.enter()
        try:
            return self._evaluate(node)
        finally:
            self.decoder.depth -= 1

    def _evaluate(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.BinOp):
            left = self.evaluate(node.left)
            right = self.evaluate(node.right)
            return self.binary(node.op, left, right)
        if isinstance(node, ast.UnaryOp):
            operand = self.evaluate(node.operand)
            return self.apply(_UNARY[type(node.op)], operand)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = [self.evaluate(item) for item in node.elts]
            if isinstance(node, ast.List):
                return items
            if isinstance(node, ast.Tuple):
                return tuple(items)
            return self.apply(set, items)
        if isinstance(node, ast.Dict):
            pairs = []
            for key_node, value_node in zip(node.keys, node.values, strict=True):
                if key_node is None:
                    raise failed("not evaluated: ** inside a dict")
                pairs.append((self.evaluate(key_node), self.evaluate(value_node)))
            return self.apply(dict, pairs)
        if isinstance(node, ast.Subscript):
            container = self.evaluate(node.value)
            index = self.index(node.slice)
            return self.apply(operator.getitem, container, index)
        raise failed(f"not evaluated: {type(node).__name__} in a binary operation")

    def index(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Slice):
            parts = (node.lower, node.upper, node.step)
            return slice(*(None if part is None else self.evaluate(part) for part in parts))
        return self.evaluate(node)

    def binary(self, op: ast.operator, left: Any, right: Any) -> Any:
        self.guard(op, left, right)
        result = self.apply(lambda: _BINARY[type(op)](left, right))
        if isinstance(result, int) and result.bit_length() > MAX_INT_BITS:
            raise failed(f"operator result over {MAX_INT_BITS} bits")
        if isinstance(result, _SIZED):
            self.spend(_logical_size(result))
        return result

    def guard(self, op: ast.operator, left: Any, right: Any) -> None:
        """Refuse operations whose result would be huge before Python builds it; big integer
        results are also charged, before they are computed, to the output's total."""
        if isinstance(op, ast.Pow) and _is_int(left) and _is_int(right) and right > 0:
            if abs(left) > 1 and right * left.bit_length() > MAX_INT_BITS:
                raise failed(f"power result over {MAX_INT_BITS} bits")
            if abs(left) > 1:
                self.spend_bits(right * left.bit_length())
        elif isinstance(op, ast.LShift) and _is_int(left) and _is_int(right):
            if left and right + left.bit_length() > MAX_INT_BITS:
                raise failed(f"shift result over {MAX_INT_BITS} bits")
            if left and right > 0:
                self.spend_bits(right + left.bit_length())
        elif isinstance(op, ast.Mult):
            for sequence, count in ((left, right), (right, left)):
                if (
                    isinstance(sequence, _SIZED)
                    and _is_int(count)
                    and len(sequence) * count > MAX_VALUE_SIZE
                ):
                    raise failed(f"repetition result over {MAX_VALUE_SIZE} items")
            if (
                _is_int(left)
                and _is_int(right)
                and left.bit_length() + right.bit_length() > MAX_INT_BITS
            ):
                raise failed(f"product over {MAX_INT_BITS} bits")
            if _is_int(left) and _is_int(right):
                self.spend_bits(left.bit_length() + right.bit_length())
        elif isinstance(op, ast.Add) and isinstance(left, _SIZED) and isinstance(right, _SIZED):
            if len(left) + len(right) > MAX_VALUE_SIZE:
                raise failed(f"concatenation over {MAX_VALUE_SIZE} items")
        elif isinstance(op, ast.Mod) and isinstance(left, str | bytes):
            _guard_percent_format(left, right)

    def apply(self, function: Callable[..., Any], *args: Any) -> Any:
        try:
            return function(*args)
        except DecodeError:
            raise
        except (ArithmeticError, TypeError, ValueError, MemoryError, RecursionError) as exc:
            raise failed(f"operator failed: {type(exc).__name__}: {exc}") from None

    def spend_bits(self, bits: int) -> None:
        """Charge an integer result of `bits` bits (all of one output: `MAX_TOTAL_INT_BITS`)."""
        self.decoder.int_bits -= bits
        if self.decoder.int_bits < 0:
            raise failed(f"evaluated operators build over {MAX_TOTAL_INT_BITS} bits of integers")

    def spend(self, amount: int) -> None:
        self.decoder.budget -= amount
        if self.decoder.budget < 0 or amount > MAX_VALUE_SIZE:
            raise failed("evaluated operators build too much data")


def _is_int(value: Any) -> bool:
    return isinstance(value, int)


def _guard_percent_format(template: str | bytes, arguments: Any) -> None:
    """Refuse a `%` format whose result would be large, before it is built: the template,
    every width and precision, and the arguments' sizes bound the result's length."""
    raw = template.encode("utf-8", "surrogatepass") if isinstance(template, str) else template
    estimate = len(raw)
    for match in _PERCENT_DIRECTIVE.finditer(raw):
        for group in match.groups():
            if group == b"*" or (group is not None and len(group) > 4):
                raise failed("%-format width or precision too large to evaluate")
            if group is not None:
                estimate += int(group)
        if estimate > MAX_VALUE_SIZE:
            raise failed(f"%-format result over {MAX_VALUE_SIZE} characters")
    if estimate + _logical_size(arguments) > MAX_VALUE_SIZE:
        raise failed(f"%-format result over {MAX_VALUE_SIZE} characters")


def _logical_size(value: Any) -> int:
    """Number of items reachable in a container, counting shared items each time they recur.

    `[[0] * 1000] * 1000` is small in memory but a million items to every reader; the memo
    keeps this linear in the distinct objects.
    """
    memo: dict[int, int] = {}

    def size(item: Any, depth: int) -> int:
        if isinstance(item, str | bytes):
            return len(item)
        if not isinstance(item, list | tuple | dict | set | frozenset) or depth > MAX_DEPTH:
            return 1
        known = memo.get(id(item))
        if known is not None:
            return known
        children = item.items() if isinstance(item, dict) else item
        total = len(item)
        for child in children:
            total += size(child, depth + 1)
            if total > MAX_VALUE_SIZE:
                break
        memo[id(item)] = total
        return total

    return size(value, 0)
