"""Decode prompt-mode JavaScript call text (`obj.fn(x=1, s="a")`) into calls with string values.

As in bfcl-eval 2026.3.23, argument values stay *source text*; the checker converts them by
the parameter's JavaScript type. The text is cleaned like every prompt output
(`prompt_text.bracket_text`), its outer `[`/`]` are cut, and the rest is parsed as JavaScript
statements by a small hand-written parser (upstream: tree-sitter-javascript). Rules kept from
upstream:

- Only the first statement that *is* a call (`f(..);`, not `x = f(..)`, `await f(..)` or
  `f(..), g(..)`) is returned; statements before it are skipped, so a ```` ```javascript ````
  fence decodes (its word is a statement of its own). No such call ->
  `decoder_wrong_output_format`.
- The name is the source text of the called expression (`obj.fn`, `f(a=1)` for `f(a=1)(b=2)`).
- `name=value` arguments are kept with the value's exact source text, minus one pair of
  surrounding `'` or `"` quotes (escapes untouched; template literals keep their backticks).
  A positional bare identifier or `true` is kept under the key `"<positional>"` (upstream:
  `None`; `false` and other positional values are dropped). A name given twice, or two
  positional values kept, fail.
- Statements are separated by `;` or a line break (automatic semicolon insertion); two
  expressions on one line without `;` fail.

Deviation: the grammar covers expressions, `var`/`let`/`const` declarations and empty
statements; other statements (`if`, `for`, classes, ...) fail, where tree-sitter would skip
them. Function and method bodies are read as balanced braces.
"""

from __future__ import annotations

import re
from typing import Any

from bfcl_action.core.records import Call
from bfcl_action.decode._syntax import (
    Node,
    ParseFailure,
    Source,
    TokenStream,
    check_depth,
    check_token_count,
    composite,
    scan_decimal,
    scan_quoted,
    tokenize,
)
from bfcl_action.decode.errors import failed, wrong_format
from bfcl_action.decode.java_calls import POSITIONAL_KEY
from bfcl_action.decode.limits import MAX_DEPTH
from bfcl_action.decode.prompt_text import bracket_text

_WORD_TOKENS = frozenset(
    [
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "true",
        "false",
        "null",
        "undefined",
    ]
)
_PUNCTUATION = sorted(
    (
        ">>>=",
        "...",
        "===",
        "!==",
        "**=",
        "<<=",
        ">>=",
        ">>>",
        "&&=",
        "||=",
        "??=",
        "=>",
        "?.",
        "??",
        "==",
        "!=",
        "<=",
        ">=",
        "&&",
        "||",
        "**",
        "++",
        "--",
        "+=",
        "-=",
        "*=",
        "/=",
        "%=",
        "&=",
        "|=",
        "^=",
        "<<",
        ">>",
        *"(){}[];,.=<>!~?:+-*/%&|^@#",
    ),
    key=len,
    reverse=True,
)
_PUNCTUATION_PATTERN = re.compile(
    "|".join(r"\?\.(?!\d)" if mark == "?." else re.escape(mark) for mark in _PUNCTUATION)
)
_STRING_PATTERN = r"{quote}(?:[^{quote}\\\n]|\\.)*(?:\n[ \t\r\n\f\v]*)?{quote}"
_TOKEN_PATTERN = re.compile(
    r"(?P<skip>[ \t\n\r\f\v\u00a0\ufeff\u2028\u2029]+|//[^\n]*|/\*.*?\*/)"
    # A raw line break may end a string when only blanks follow it up to the quote, as
    # tree-sitter skips whitespace between a string's fragments.
    "|(?P<string>"
    + _STRING_PATTERN.format(quote='"')
    + "|"
    + _STRING_PATTERN.format(quote="'")
    + ")"
    r"|(?P<template_string>(?=`))"
    r"|(?P<number>(?=\.?\d))"
    r"|(?P<word>[^\W\d][\w$]*|\$[\w$]*)"
    "|(?P<punctuation>" + _PUNCTUATION_PATTERN.pattern + ")",
    re.DOTALL,
)
_ASSIGNMENT_OPERATORS = (
    "=",
    "+=",
    "-=",
    "*=",
    "/=",
    "%=",
    "**=",
    "<<=",
    ">>=",
    ">>>=",
    "&=",
    "|=",
    "^=",
    "&&=",
    "||=",
    "??=",
)
_ASSIGNABLE = frozenset({"identifier", "member_expression", "subscript_expression"})
_BINARY_LEVELS: tuple[tuple[str, ...], ...] = (
    ("??",),
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!=", "===", "!=="),
    ("<", ">", "<=", ">=", "instanceof", "in"),
    ("<<", ">>", ">>>"),
    ("+", "-"),
    ("*", "/", "%"),
    ("**",),
)
_OPERATOR_LEVEL = {
    operator: level for level, operators in enumerate(_BINARY_LEVELS) for operator in operators
}
_VALUE_TOKENS = frozenset(
    {"identifier", "number", "string", "template_string", "regex", "this", "super"}
    | {"true", "false", "null", "undefined", ")", "]", "}"}
)
"""Tokens after which `/` divides (elsewhere it starts a regular expression)."""


def decode_javascript(text: str) -> list[Call]:
    """Decode JavaScript call text into calls (at most one), or raise `DecodeError`."""
    source = Source(bracket_text(text)[1:-1])
    try:
        parser = _Parser(source)
        program = parser.program()
        check_depth(program, len(parser.stream.tokens))
    except ParseFailure as exc:
        raise failed(f"not JavaScript call syntax: {exc}") from None
    except RecursionError:
        raise failed("JavaScript text nested too deeply") from None
    for statement in program.children:
        if statement.type == "expression_statement" and statement.children[0].type == (
            "call_expression"
        ):
            return [_call(source, statement.children[0])]
    raise wrong_format("no call statement in the JavaScript text")


# Tokens


def _tokenize(source: Source) -> list[Node]:
    return tokenize(
        source.text,
        _TOKEN_PATTERN,
        keywords=_WORD_TOKENS,
        scan_number=_scan_number,
        special=_special_token,
    )


def _special_token(
    text: str, index: int, kind: str, match: re.Match[str], tokens: list[Node]
) -> tuple[str, int] | None:
    """Regular expressions (a `/` where no value precedes), template literals, and the
    escape check of strings."""
    if kind == "punctuation" and text[index] == "/":
        if (tokens[-1].type if tokens else None) not in _VALUE_TOKENS:
            return "regex", _scan_regex(text, index)
    elif kind == "template_string":
        return kind, _scan_template(text, index)
    elif kind == "string":
        _check_escapes(match.group())
    return None


_ESCAPE = re.compile(r"\\(?:\\|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|u\{[0-9a-fA-F]+\}|([xu])|.)", re.S)


def _check_escapes(literal: str) -> None:
    """`\\x` and `\\u` must be followed by hex digits, as tree-sitter's grammar requires."""
    for match in _ESCAPE.finditer(literal):
        if match.group(1):
            raise ParseFailure(f"malformed \\{match.group(1)} escape")


def _scan_template(text: str, index: int, depth: int = 0) -> int:
    """End of a template literal, skipping over `${ ... }` (with nested templates)."""
    if depth > MAX_DEPTH:
        raise ParseFailure("template literals nested too deeply")
    index += 1
    length = len(text)
    while index < length:
        char = text[index]
        if char == "\\":
            index += 2
        elif char == "`":
            return index + 1
        elif text.startswith("${", index):
            index = _skip_substitution(text, index + 2, depth)
        else:
            index += 1
    raise ParseFailure("unterminated template literal")


def _skip_substitution(text: str, index: int, depth: int) -> int:
    braces = 1
    length = len(text)
    while index < length:
        char = text[index]
        if char in "\"'":
            index = scan_quoted(text, index, char, multiline=False, trailing_blank_lines=True)
            continue
        if char == "`":
            index = _scan_template(text, index, depth + 1)
            continue
        if char == "{":
            braces += 1
        elif char == "}":
            braces -= 1
            if braces == 0:
                return index + 1
        index += 1
    raise ParseFailure("unterminated template substitution")


def _scan_regex(text: str, index: int) -> int:
    index += 1
    length = len(text)
    in_class = False
    while index < length:
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "\n":
            break
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "/" and not in_class:
            # Flags are lowercase ASCII letters only (tree-sitter-javascript's `[a-z]+`):
            # in `/projects/myApp/x` the flags are `my`, and `App` starts a new token.
            index += 1
            while index < length and "a" <= text[index] <= "z":
                index += 1
            return index
        index += 1
    raise ParseFailure("unterminated regular expression")


def _scan_number(text: str, index: int) -> int:
    if text.startswith(("0x", "0X", "0b", "0B", "0o", "0O"), index):
        length = len(text)
        index += 2
        while index < length and (text[index].isalnum() or text[index] == "_"):
            index += 1
        return index
    return scan_decimal(text, index, suffixes="n")


# Parser


class _Parser:
    def __init__(self, source: Source) -> None:
        self.source = source
        tokens = _tokenize(source)
        check_token_count(tokens)
        self.stream = TokenStream(tokens)

    def line_break_before(self, token: Node) -> bool:
        """Whether a line break separates `token` (the next one) from the token before it."""
        return "\n" in self.source.text[self.previous_end() : token.start]

    def previous_end(self) -> int:
        position = self.stream.position
        return self.stream.tokens[position - 1].end if position else 0

    def word_is(self, word: str) -> bool:
        """Whether the next token is the identifier `word` (a contextual keyword)."""
        token = self.stream.peek()
        return (
            token is not None
            and token.type == "identifier"
            and self.source.node_text(token) == word
        )

    def program(self) -> Node:
        statements: list[Node] = []
        while self.stream.peek() is not None:
            statements.append(self.statement())
        return Node("program", 0, len(self.source.text), statements)

    def statement(self) -> Node:
        stream = self.stream
        if stream.at(";"):
            semicolon = stream.next()
            return Node("empty_statement", semicolon.start, semicolon.end, [semicolon])
        token = stream.peek()
        if token is None:
            raise ParseFailure("statement expected, found end of text")
        if token.type == "identifier" and stream.at(":", ahead=1):
            label = [stream.next(), stream.next()]
            return composite("labeled_statement", [*label, self.statement()])
        if token.type in {"var", "const"} or (
            self.word_is("let") and stream.at("identifier", "[", "{", ahead=1)
        ):
            return self.declaration()
        return self.finish_statement("expression_statement", [self.sequence()])

    def declaration(self) -> Node:
        stream = self.stream
        children = [stream.next()]
        while True:
            declarator = [self.binding()]
            if stream.at("="):
                declarator += [stream.next(), self.assignment()]
            children.append(composite("variable_declarator", declarator))
            if not stream.at(","):
                break
            children.append(stream.next())
        return self.finish_statement("lexical_declaration", children)

    def binding(self) -> Node:
        stream = self.stream
        if stream.at("["):
            return self.stream.balanced("array_pattern", "[", "]")
        if stream.at("{"):
            return self.stream.balanced("object_pattern", "{", "}")
        return stream.expect("identifier")

    def finish_statement(self, type_: str, children: list[Node]) -> Node:
        """End a statement at `;`, a line break, `}` or the end (automatic semicolons)."""
        stream = self.stream
        if stream.at(";"):
            return composite(type_, [*children, stream.next()])
        token = stream.peek()
        if token is None or self.line_break_before(token):
            return composite(type_, children)
        raise ParseFailure(f"unexpected {token.type!r} after a statement")

    # Expressions

    def sequence(self) -> Node:
        first = self.assignment()
        if not self.stream.at(","):
            return first
        children = [first]
        while self.stream.at(","):
            children += [self.stream.next(), self.assignment()]
        return composite("sequence_expression", children)

    def assignment(self) -> Node:
        stream = self.stream
        stream.enter()
        try:
            arrow = self.arrow_function()
            if arrow is not None:
                return arrow
            left = self.ternary()
            if stream.at(*_ASSIGNMENT_OPERATORS):
                if left.type not in _ASSIGNABLE | {"array", "object"}:
                    raise ParseFailure("assignment to a non-variable")
                operator = stream.next()
                type_ = (
                    "assignment_expression"
                    if operator.type == "="
                    else ("augmented_assignment_expression")
                )
                return composite(type_, [left, operator, self.assignment()])
            return left
        finally:
            stream.leave()

    def arrow_function(self) -> Node | None:
        stream = self.stream
        start = stream.position
        children: list[Node] = []
        if self.word_is("async") and stream.at("identifier", "(", ahead=1):
            children.append(stream.next())
        if stream.at("identifier") and stream.at("=>", ahead=1):
            children.append(stream.next())
        elif stream.at("(") and self.closing_followed_by_arrow():
            children.append(self.stream.balanced("formal_parameters", "(", ")"))
        else:
            stream.position = start
            return None
        children.append(stream.expect("=>"))
        children.append(
            self.stream.balanced("statement_block", "{", "}")
            if stream.at("{")
            else (self.assignment())
        )
        return composite("arrow_function", children)

    def closing_followed_by_arrow(self) -> bool:
        stream = self.stream
        closer = stream.closing_paren()
        return closer is not None and stream.at("=>", ahead=closer + 1)

    def ternary(self) -> Node:
        condition = self.binary(0)
        if not self.stream.at("?"):
            return condition
        question = self.stream.next()
        consequence = self.assignment()
        colon = self.stream.expect(":")
        alternative = self.assignment()
        return composite(
            "ternary_expression", [condition, question, consequence, colon, alternative]
        )

    def binary(self, min_level: int) -> Node:
        left = self.unary()
        while True:
            token = self.stream.peek()
            level = None if token is None else _OPERATOR_LEVEL.get(token.type)
            if token is None or level is None or level < min_level:
                return left
            self.stream.next()
            right = self.binary(level if token.type == "**" else level + 1)
            left = composite("binary_expression", [left, token, right])

    def unary(self) -> Node:
        stream = self.stream
        stream.enter()
        try:
            if stream.at("!", "~", "+", "-", "typeof", "void", "delete") or (
                self.word_is("await") and not stream.at("=", "=>", ")", ",", ahead=1)
            ):
                operator = stream.next()
                type_ = "await_expression" if operator.type == "identifier" else "unary_expression"
                return composite(type_, [operator, self.unary()])
            if stream.at("++", "--"):
                operator = stream.next()
                return composite("update_expression", [operator, self.unary()])
            operand = self.call_or_member(self.primary())
            if stream.at("++", "--") and not self.line_break_before(stream.peek() or operand):
                operand = composite("update_expression", [operand, stream.next()])
            if stream.at(*_ASSIGNMENT_OPERATORS) and operand.type in _ASSIGNABLE:
                operator = stream.next()
                type_ = (
                    "assignment_expression"
                    if operator.type == "="
                    else ("augmented_assignment_expression")
                )
                return composite(type_, [operand, operator, self.assignment()])
            return operand
        finally:
            stream.leave()

    def call_or_member(self, node: Node) -> Node:
        stream = self.stream
        while True:
            if stream.at("."):
                dot = stream.next()
                name = self.property_name()
                node = composite("member_expression", [node, dot, name])
            elif stream.at("?."):
                chain = stream.next()
                if stream.at("("):
                    arguments = self.arguments()
                    node = composite("call_expression", [node, chain, arguments])
                elif stream.at("["):
                    opener = stream.next()
                    index = self.sequence()
                    node = composite(
                        "subscript_expression", [node, chain, opener, index, stream.expect("]")]
                    )
                else:
                    node = composite("member_expression", [node, chain, self.property_name()])
            elif stream.at("["):
                opener = stream.next()
                index = self.sequence()
                node = composite("subscript_expression", [node, opener, index, stream.expect("]")])
            elif stream.at("("):
                node = composite("call_expression", [node, self.arguments()])
            elif stream.at("template_string"):
                node = composite("call_expression", [node, stream.next()])
            else:
                return node

    def property_name(self) -> Node:
        token = self.stream.next()
        if token.type == "#":
            name = self.stream.expect("identifier")
            return Node("private_property_identifier", token.start, name.end)
        if token.type == "identifier" or token.type in _WORD_TOKENS:
            return Node("property_identifier", token.start, token.end)
        raise ParseFailure(f"property name expected, found {token.type!r}")

    def primary(self) -> Node:
        stream = self.stream
        token = stream.peek()
        if token is None:
            raise ParseFailure("expression expected, found end of text")
        simple = {"identifier", "number", "string", "template_string", "regex", "this", "super"}
        if token.type in simple | {"true", "false", "null", "undefined"}:
            return stream.next()
        if token.type == "(":
            opener = stream.next()
            inner = self.sequence()
            return composite("parenthesized_expression", [opener, inner, stream.expect(")")])
        if token.type == "[":
            return self.array()
        if token.type == "{":
            return self.object()
        if token.type == "new":
            new = stream.next()
            constructor = self.primary()
            if constructor.type != "new_expression":
                constructor = self.member_only(constructor)
            children = [new, constructor]
            if stream.at("("):
                children.append(self.arguments())
            return composite("new_expression", children)
        if token.type == "function":
            return self.function()
        if token.type == "class":
            raise ParseFailure("class expressions are not supported")
        raise ParseFailure(f"unexpected {token.type!r}")

    def member_only(self, node: Node) -> Node:
        stream = self.stream
        while True:
            if stream.at("."):
                dot = stream.next()
                node = composite("member_expression", [node, dot, self.property_name()])
            elif stream.at("["):
                opener = stream.next()
                index = self.sequence()
                node = composite("subscript_expression", [node, opener, index, stream.expect("]")])
            else:
                return node

    def function(self) -> Node:
        stream = self.stream
        children = [stream.expect("function")]
        if stream.at("*"):
            children.append(stream.next())
        if stream.at("identifier"):
            children.append(stream.next())
        children.append(self.stream.balanced("formal_parameters", "(", ")"))
        children.append(self.stream.balanced("statement_block", "{", "}"))
        return composite("function_expression", children)

    def array(self) -> Node:
        stream = self.stream
        stream.enter()
        try:
            children = [stream.expect("[")]
            while not stream.at("]"):
                if stream.at(","):
                    children.append(stream.next())
                    continue
                children.append(self.element())
                if not stream.at(","):
                    break
                children.append(stream.next())
            children.append(stream.expect("]"))
            return composite("array", children)
        finally:
            stream.leave()

    def element(self) -> Node:
        if self.stream.at("..."):
            spread = self.stream.next()
            return composite("spread_element", [spread, self.assignment()])
        return self.assignment()

    def object(self) -> Node:
        stream = self.stream
        stream.enter()
        try:
            children = [stream.expect("{")]
            while not stream.at("}"):
                children.append(self.member())
                if not stream.at(","):
                    break
                children.append(stream.next())
            children.append(stream.expect("}"))
            return composite("object", children)
        finally:
            stream.leave()

    def member(self) -> Node:
        stream = self.stream
        if stream.at("..."):
            return self.element()
        if stream.at("["):
            opener = stream.next()
            key_expression = self.assignment()
            key = composite("computed_property_name", [opener, key_expression, stream.expect("]")])
        else:
            token = stream.next()
            if token.type not in {"identifier", "string", "number"} | _WORD_TOKENS:
                raise ParseFailure(f"object key expected, found {token.type!r}")
            key = token
        if stream.at(":"):
            colon = stream.next()
            return composite("pair", [key, colon, self.assignment()])
        if stream.at("("):
            parameters = self.stream.balanced("formal_parameters", "(", ")")
            body = self.stream.balanced("statement_block", "{", "}")
            return composite("method_definition", [key, parameters, body])
        if key.type == "identifier" and stream.at(",", "}"):
            return key
        raise ParseFailure("malformed object member")

    def arguments(self) -> Node:
        stream = self.stream
        children = [stream.expect("(")]
        while not stream.at(")"):
            children.append(self.element())
            if not stream.at(","):
                break
            children.append(stream.next())
        children.append(stream.expect(")"))
        return composite("arguments", children)


# From tree to calls


def _call(source: Source, node: Node) -> Call:
    function, arguments_node = node.children[0], node.children[1]
    return Call(name=source.node_text(function), arguments=_arguments(source, arguments_node))


def _arguments(source: Source, arguments_node: Node) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    for child in arguments_node.children:
        if child.type == "assignment_expression":
            key = source.node_text(child.children[0])
            value = source.node_text(child.children[2])
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
        elif child.type in {"identifier", "true"}:
            key = POSITIONAL_KEY
            value = source.node_text(child)
        else:
            continue
        if key in arguments:
            raise failed("Multiple arguments with the same name are not supported.")
        arguments[key] = value
    return arguments
