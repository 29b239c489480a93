"""A small concrete syntax tree and token stream shared by the Java and JavaScript decoders.

Upstream reads Java and JavaScript call text with tree-sitter and then walks its tree. We do
not depend on tree-sitter: each language module has a hand-written tokenizer and
recursive-descent parser that builds the same *shape* of tree for the constructs a call text
uses (node types named as tree-sitter names them where the decoders look at them), so the
walk that turns the tree into argument strings can follow upstream's rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from bfcl_action.decode.errors import failed
from bfcl_action.decode.limits import MAX_DEPTH, MAX_TOKENS


@dataclass(eq=False)
class Node:
    """A tree node: `type` as tree-sitter names it; tokens are leaves typed by kind or text.

    `start`/`end` are character offsets into the source; `fields` names some children the way
    tree-sitter's `child_by_field_name` does.
    """

    type: str
    start: int
    end: int
    children: list[Node] = field(default_factory=list)
    fields: dict[str, Node] = field(default_factory=dict)

    def walk(self) -> Iterator[Node]:
        """Pre-order, left to right (tree-sitter's child order), without recursion."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def check_depth(root: Node, tokens: int, limit: int = 2 * MAX_DEPTH) -> None:
    """Refuse trees deeper than `limit` (long operator chains nest without brackets) before
    any recursive walk over them; a tree of `tokens` leaves is at most that deep."""
    if tokens <= limit:
        return
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            raise failed(f"nested deeper than {limit}")
        stack.extend((child, depth + 1) for child in node.children)


def composite(type_: str, children: list[Node], **fields: Node) -> Node:
    return Node(type_, children[0].start, children[-1].end, children, fields)


class Source:
    """The text being parsed, with tree-sitter's way of slicing it.

    Upstream's Java decoder slices the *string* with tree-sitter's *byte* offsets, so text
    after a non-ASCII character comes out shifted; `java_text` reproduces that.
    """

    def __init__(self, text: str) -> None:
        try:
            encoded = text.encode("utf-8")
        except UnicodeEncodeError:
            raise failed("text is not valid Unicode (lone surrogate)") from None
        self.text = text
        self._ascii = len(encoded) == len(text)
        self._byte_offsets: list[int] | None = None

    def byte_offset(self, index: int) -> int:
        if self._ascii:
            return index
        if self._byte_offsets is None:
            offsets = [0]
            total = 0
            for char in self.text:
                total += len(char.encode("utf-8"))
                offsets.append(total)
            self._byte_offsets = offsets
        return self._byte_offsets[index]

    def byte_length(self, start: int, end: int) -> int:
        return self.byte_offset(end) - self.byte_offset(start)

    def node_text(self, node: Node) -> str:
        return self.text[node.start : node.end]

    def java_text(self, node: Node) -> str:
        return self.text[self.byte_offset(node.start) : self.byte_offset(node.end)]


class ParseFailure(Exception):
    """Internal: the text is not in the grammar (upstream: tree-sitter reports ERROR)."""


def check_token_count(tokens: list[Node]) -> None:
    if len(tokens) > MAX_TOKENS:
        raise failed(f"text has over {MAX_TOKENS} tokens")


@dataclass(eq=False)
class TokenStream:
    tokens: list[Node]
    position: int = 0
    depth: int = 0
    _closers: dict[int, int] | None = None

    def closing_paren(self, ahead: int = 0) -> int | None:
        """Index (relative to the current position) of the `)` matching the `(` at `ahead`.

        Computed once for the whole text, so look-ahead for lambdas stays linear.
        """
        if self._closers is None:
            closers: dict[int, int] = {}
            open_positions: list[int] = []
            for index, token in enumerate(self.tokens):
                if token.type == "(":
                    open_positions.append(index)
                elif token.type == ")" and open_positions:
                    closers[open_positions.pop()] = index
            self._closers = closers
        closer = self._closers.get(self.position + ahead)
        return None if closer is None else closer - self.position

    def peek(self, ahead: int = 0) -> Node | None:
        index = self.position + ahead
        tokens = self.tokens
        return tokens[index] if index < len(tokens) else None

    def at(self, *texts: str, ahead: int = 0) -> bool:
        index = self.position + ahead
        tokens = self.tokens
        return index < len(tokens) and tokens[index].type in texts

    def next(self) -> Node:
        token = self.peek()
        if token is None:
            raise ParseFailure("unexpected end of text")
        self.position += 1
        return token

    def expect(self, *texts: str) -> Node:
        token = self.peek()
        if token is None or token.type not in texts:
            found = "end of text" if token is None else repr(token.type)
            raise ParseFailure(f"expected {' or '.join(texts)}, found {found}")
        self.position += 1
        return token

    def balanced(self, type_: str, opener: str, closer: str) -> Node:
        """A bracketed group read as flat tokens (function and lambda bodies, patterns)."""
        children = [self.expect(opener)]
        depth = 1
        while depth:
            token = self.next()
            if token.type == opener:
                depth += 1
            elif token.type == closer:
                depth -= 1
            children.append(token)
        return composite(type_, children)

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise failed(f"nested deeper than {MAX_DEPTH}")

    def leave(self) -> None:
        self.depth -= 1


def scan_quoted(
    text: str, start: int, quote: str, *, multiline: bool, trailing_blank_lines: bool = False
) -> int:
    """End offset (after the closing quote) of a quoted literal starting at `start`.

    `trailing_blank_lines` accepts raw newlines when only whitespace follows them up to the
    closing quote, as tree-sitter-javascript does (it skips whitespace between a string's
    fragments); BFCL's JavaScript decoder then keeps them in the value.
    """
    index = start + 1
    length = len(text)
    while index < length:
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == quote:
            return index + 1
        if char == "\n" and not multiline:
            if trailing_blank_lines:
                rest = index
                while rest < length and text[rest] in " \t\r\n\f\v":
                    rest += 1
                if rest < length and text[rest] == quote:
                    return rest + 1
            break
        index += 1
    raise ParseFailure("unterminated string")


def is_identifier_part(char: str) -> bool:
    return char.isalnum() or char in "_$"


Special = Callable[[str, int, str, "re.Match[str]", list[Node]], "tuple[str, int] | None"]
"""A language's own token rule: `(text, index, kind, match, tokens so far)` -> `(kind, end)`,
or None for the shared handling."""


def tokenize(
    text: str,
    pattern: re.Pattern[str],
    *,
    keywords: frozenset[str],
    scan_number: Callable[[str, int], int],
    special: Special | None = None,
) -> list[Node]:
    """Tokens of `text` by `pattern`'s named groups: `skip` is dropped, `number` is scanned by
    `scan_number`, a `word` is its keyword or `identifier`, `punctuation` is typed by its text,
    any other group by its name; `special` may take over any token first."""
    tokens: list[Node] = []
    index = 0
    length = len(text)
    match_token = pattern.match
    while index < length:
        match = match_token(text, index)
        if match is None:
            raise ParseFailure(f"unexpected character {text[index]!r}")
        kind = str(match.lastgroup)
        if kind == "skip":
            index = match.end()
            continue
        check_token_count(tokens)
        taken = None if special is None else special(text, index, kind, match, tokens)
        if taken is not None:
            kind, end = taken
        elif kind == "number":
            end = scan_number(text, index)
        else:
            end = match.end()
            if kind == "word":
                word = match.group()
                kind = word if word in keywords else "identifier"
            elif kind == "punctuation":
                kind = match.group()
        tokens.append(Node(kind, index, end))
        index = end
    return tokens


def scan_decimal(text: str, index: int, *, suffixes: str, range_dots: bool = False) -> int:
    """End of a decimal number at `index`: digits (`_` allowed), a fraction, an exponent, one
    suffix letter. With `range_dots`, `1..2` ends the number before `..` (Java). A letter or
    digit right after is a malformed number."""
    length = len(text)
    while index < length and (text[index].isdigit() or text[index] == "_"):
        index += 1
    if (
        index < length
        and text[index] == "."
        and not (range_dots and index + 1 < length and text[index + 1] == ".")
    ):
        index += 1
        while index < length and (text[index].isdigit() or text[index] == "_"):
            index += 1
    if index < length and text[index] in "eE":
        index += 1
        if index < length and text[index] in "+-":
            index += 1
        while index < length and text[index].isdigit():
            index += 1
    if index < length and text[index] in suffixes:
        index += 1
    if index < length and is_identifier_part(text[index]):
        raise ParseFailure("malformed number")
    return index
