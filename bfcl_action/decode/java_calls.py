"""Decode prompt-mode Java call text (`Foo.bar(x=1, s="a")`) into calls with string values.

As in bfcl-eval 2026.3.23, argument values stay *source text*; the checker converts them by
the parameter's Java type. The text is cleaned like every prompt output
(`prompt_text.bracket_text`), its outer `[`/`]` are cut, and the rest is parsed as Java
statements by a small hand-written parser (upstream: tree-sitter-java). Rules kept from
upstream, quirks included:

- Only the **first** method call in the text is returned (pre-order: an outer call before its
  arguments). A call's name is `object.name` with the object's source text
  (`a.b.c(..)` -> `a.b.c`, `x.f(..).g(..)` -> `x.f(..).g`). No call at all ->
  `decoder_wrong_output_format`.
- `name=value` arguments are kept; a positional bare identifier or `Foo.class` is kept under
  the key `"<positional>"` (upstream: `None`); other positional values are dropped. A name
  given twice, or two positional identifiers, fail.
- Values: a string or char literal loses its quotes (escapes untouched: `"a\\"b"` -> `a\\"b`);
  identifiers, `Foo.class` and method calls keep their exact source text;
  `new T(args)` -> `new T(a, b)` (an anonymous class body, such as a double-brace HashMap,
  is dropped); `new T[]{..}` -> `new T[]{..}` (one `[]` whatever the dimensions; without an
  initializer, `new int[3]`, decoding fails); anything else is its tokens joined without
  spaces (`1 + 2` -> `1+2`), where nested string literals keep their quotes.
- Source text is cut with byte offsets as upstream does, so after a non-ASCII character the
  text of later names and values is shifted by the extra bytes.
- A statement without `;` is accepted where tree-sitter inserts the missing `;`; as
  tree-sitter does, a first statement without `;` shorter than 11 bytes (counting 30 per
  line break inside it) is an error.

Deviation: the grammar covers expressions, local variable declarations, `return`, labels and
empty statements; other statements (`if`, loops, ...) fail, where tree-sitter might find a
call inside. The bodies of lambdas and anonymous classes are read as balanced braces and
printed token by token.
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
    tokenize,
)
from bfcl_action.decode.errors import failed, wrong_format
from bfcl_action.decode.prompt_text import bracket_text

POSITIONAL_KEY = "<positional>"
"""Key of the (single) positional identifier argument upstream keeps under `None`."""

_KEYWORDS = frozenset(
    [
        "new",
        "this",
        "super",
        "true",
        "false",
        "null",
        "return",
        "instanceof",
        "class",
        "void",
        "int",
        "long",
        "short",
        "byte",
        "char",
        "float",
        "double",
        "boolean",
        "abstract",
        "assert",
        "break",
        "case",
        "catch",
        "const",
        "continue",
        "default",
        "do",
        "else",
        "enum",
        "extends",
        "final",
        "finally",
        "for",
        "goto",
        "if",
        "implements",
        "import",
        "interface",
        "native",
        "package",
        "private",
        "protected",
        "public",
        "static",
        "strictfp",
        "switch",
        "synchronized",
        "throw",
        "throws",
        "transient",
        "try",
        "volatile",
        "while",
    ]
)
_PRIMITIVES = frozenset(
    ["int", "long", "short", "byte", "char", "float", "double", "boolean", "void"]
)
_PUNCTUATION = sorted(
    (
        "->",
        "::",
        "++",
        "--",
        "&&",
        "||",
        "==",
        "!=",
        "<=",
        ">=",
        "+=",
        "-=",
        "*=",
        "/=",
        "%=",
        "&=",
        "|=",
        "^=",
        "<<=",
        "<<",
        "...",
        *"(){}[];,.@=><!~?:+-*/&|^%",
    ),
    key=len,
    reverse=True,
)
_TOKEN_PATTERN = re.compile(
    r"(?P<skip>[ \t\n\r\f]+|//[^\n]*|/\*.*?\*/)"
    r'|(?P<string_literal>"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\]|\\.)*")'
    r"|(?P<character_literal>'(?:[^'\\\n]|\\.)*')"
    r"|(?P<number>(?=\.?\d))"
    r"|(?P<word>[^\W\d][\w$]*|\$[\w$]*)"
    "|(?P<punctuation>" + "|".join(map(re.escape, _PUNCTUATION)) + ")",
    re.DOTALL,
)
_ASSIGNMENT_OPERATORS = ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=")
_BINARY_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", ">", "<=", ">=", "instanceof"),
    ("<<", ">>", ">>>"),
    ("+", "-"),
    ("*", "/", "%"),
)
_MAX_CAST_TOKENS = 100
"""How far `(` is looked past to tell a cast `(a.b.C<D>) x` from a parenthesised value."""
_ASSIGNABLE = frozenset({"identifier", "field_access", "array_access"})
_OPERATOR_LEVEL = {
    operator: level for level, operators in enumerate(_BINARY_LEVELS) for operator in operators
}
_LITERALS = ("number", "string_literal", "character_literal", "true", "false", "null")


def decode_java(text: str) -> list[Call]:
    """Decode Java call text into calls (at most one), or raise `DecodeError`."""
    source = Source(bracket_text(text)[1:-1])
    try:
        parser = _Parser(source)
        program = parser.program()
        check_depth(program, len(parser.stream.tokens))
        for node in program.walk():
            if node.type == "method_invocation":
                return [_call(source, node)]
    except ParseFailure as exc:
        raise failed(f"not Java call syntax: {exc}") from None
    except RecursionError:
        raise failed("Java text nested too deeply") from None
    raise wrong_format("no method call in the Java text")


# Tokens


def _tokenize(source: Source) -> list[Node]:
    return tokenize(source.text, _TOKEN_PATTERN, keywords=_KEYWORDS, scan_number=_scan_number)


def _scan_number(text: str, index: int) -> int:
    if text.startswith(("0x", "0X", "0b", "0B"), index):
        length = len(text)
        index += 2
        while index < length and (text[index].isalnum() or text[index] in "_.+-"):
            if text[index] in "+-" and text[index - 1] not in "pP":
                break
            index += 1
        return index
    return scan_decimal(text, index, suffixes="lLfFdD", range_dots=True)


# Parser


class _Parser:
    def __init__(self, source: Source) -> None:
        self.source = source
        tokens = _tokenize(source)
        check_token_count(tokens)
        self.stream = TokenStream(tokens)

    def program(self) -> Node:
        statements: list[Node] = []
        stream = self.stream
        previous_terminated = True
        while stream.peek() is not None:
            statement, terminated = self.statement()
            if not terminated and not statements:
                self.check_missing_semicolon(statement)
            if (
                not terminated
                and not previous_terminated
                and stream.peek() is None
                and statement.children[0].type == "identifier"
                and len(statement.children) == 1
            ):
                raise ParseFailure("a lone name after a statement without ';'")
            statements.append(statement)
            previous_terminated = terminated
        return Node("program", 0, len(self.source.text), statements)

    def check_missing_semicolon(self, statement: Node) -> None:
        """tree-sitter prefers an ERROR over a missing `;` for a short first statement."""
        size = self.source.byte_length(statement.start, statement.end)
        size += 30 * self.source.text.count("\n", statement.start, statement.end)
        if size <= 10:
            raise ParseFailure("statement without ';'")

    def statement(self) -> tuple[Node, bool]:
        """A statement and whether it ended with its own `;`."""
        stream = self.stream
        if stream.at(";"):
            token = stream.next()
            return Node("empty_statement", token.start, token.end, [token]), True
        if stream.at("identifier") and stream.at(":", ahead=1):
            label = [stream.next(), stream.next()]
            inner, terminated = self.statement()
            return composite("labeled_statement", [*label, inner]), terminated
        declaration = self.declaration()
        if declaration is not None:
            return declaration
        if stream.at("return"):
            children = [stream.next()]
            if not stream.at(";") and stream.peek() is not None:
                children.append(self.expression())
            return self.finish_statement("return_statement", children)
        return self.finish_statement("expression_statement", [self.expression()])

    def declaration(self) -> tuple[Node, bool] | None:
        """`Type name [= value], ...` (tree-sitter reads `A b` as a declaration), else None."""
        stream = self.stream
        if not stream.at("identifier", *_PRIMITIVES):
            return None
        start = stream.position
        try:
            type_ = self.type_()
        except ParseFailure:
            stream.position = start
            return None
        if not stream.at("identifier"):
            stream.position = start
            return None
        children = [type_]
        while True:
            declarator = [stream.expect("identifier")]
            if stream.at("="):
                declarator.append(stream.next())
                declarator.append(self.array_initializer() if stream.at("{") else self.expression())
            children.append(composite("variable_declarator", declarator))
            if not stream.at(","):
                break
            children.append(stream.next())
        statement, terminated = self.finish_statement("local_variable_declaration", children)
        if not terminated and stream.at("("):
            raise ParseFailure("unexpected '(' after a declaration")
        return statement, terminated

    def finish_statement(self, type_: str, children: list[Node]) -> tuple[Node, bool]:
        if self.stream.at(";"):
            return composite(type_, [*children, self.stream.next()]), True
        token = self.stream.peek()
        if token is not None and token.type in {",", ".", ")", "]", "}", "=", ":", "?"}:
            raise ParseFailure(f"unexpected {token.type!r} after a statement")
        return composite(type_, children), False

    # Expressions

    def expression(self) -> Node:
        stream = self.stream
        stream.enter()
        try:
            if self.lambda_ahead():
                return self.lambda_expression()
            left = self.ternary()
            if stream.at(*_ASSIGNMENT_OPERATORS):
                if left.type not in _ASSIGNABLE:
                    raise ParseFailure("assignment to a non-variable")
                operator = stream.next()
                right = self.expression()
                return composite("assignment_expression", [left, operator, right])
            return left
        finally:
            stream.leave()

    def lambda_ahead(self) -> bool:
        stream = self.stream
        if stream.at("identifier") and stream.at("->", ahead=1):
            return True
        if not stream.at("("):
            return False
        closer = stream.closing_paren()
        return closer is not None and stream.at("->", ahead=closer + 1)

    def lambda_expression(self) -> Node:
        stream = self.stream
        if stream.at("identifier"):
            parameters = stream.next()
        else:
            parameters = self.stream.balanced("formal_parameters", "(", ")")
        arrow = stream.expect("->")
        body = self.stream.balanced("block", "{", "}") if stream.at("{") else self.expression()
        return composite("lambda_expression", [parameters, arrow, body])

    def ternary(self) -> Node:
        condition = self.binary(0)
        if not self.stream.at("?"):
            return condition
        question = self.stream.next()
        consequence = self.expression()
        colon = self.stream.expect(":")
        alternative = self.lambda_expression() if self.lambda_ahead() else self.ternary()
        return composite(
            "ternary_expression", [condition, question, consequence, colon, alternative]
        )

    def binary(self, min_level: int) -> Node:
        """Precedence climbing over `_BINARY_LEVELS` (left-associative)."""
        left = self.unary()
        while (found := self.binary_operator()) is not None and found[1] >= min_level:
            operator, level = found
            self.stream.position += operator.end - operator.start if operator.type[0] == ">" else 1
            if operator.type == "instanceof":
                left = composite("instanceof_expression", [left, operator, self.type_()])
            else:
                right = self.binary(level + 1)
                left = composite("binary_expression", [left, operator, right])
        return left

    def binary_operator(self) -> tuple[Node, int] | None:
        """The next binary operator and its level, unconsumed; `>>`/`>>>` are adjacent `>`s."""
        stream = self.stream
        token = stream.peek()
        if token is None:
            return None
        if token.type == ">":
            count = 1
            while count < 3 and (after := stream.peek(count)) is not None and after.type == ">":
                if after.start != token.start + count:
                    break
                count += 1
            token = Node(">" * count, token.start, token.start + count)
        level = _OPERATOR_LEVEL.get(token.type)
        return None if level is None else (token, level)

    def unary(self) -> Node:
        stream = self.stream
        stream.enter()
        try:
            if stream.at("+", "-", "!", "~"):
                operator = stream.next()
                return composite("unary_expression", [operator, self.unary()])
            if stream.at("++", "--"):
                operator = stream.next()
                return composite("update_expression", [operator, self.unary()])
            if self.cast_ahead():
                opener = stream.next()
                type_ = self.type_()
                closer = stream.expect(")")
                return composite("cast_expression", [opener, type_, closer, self.unary()])
            operand = self.postfix(self.primary())
            if stream.at(*_ASSIGNMENT_OPERATORS) and operand.type in _ASSIGNABLE:
                # An LR parser shifts `=` after a variable even inside an operator: tree-sitter
                # reads `a - b = c` as `a - (b = c)`.
                operator = stream.next()
                value = self.expression()
                return composite("assignment_expression", [operand, operator, value])
            return operand
        finally:
            stream.leave()

    def cast_ahead(self) -> bool:
        stream = self.stream
        if not stream.at("("):
            return False
        following = stream.peek(1)
        if following is None:
            return False
        if following.type in _PRIMITIVES:
            return True
        if following.type != "identifier":
            return False
        ahead = 2
        angle = 0
        while ahead < _MAX_CAST_TOKENS and (token := stream.peek(ahead)) is not None:
            if token.type == "<":
                angle += 1
            elif token.type == ">":
                angle -= 1
            elif token.type == ")":
                after = stream.peek(ahead + 1)
                return (
                    angle == 0
                    and after is not None
                    and after.type
                    in {
                        "identifier",
                        "(",
                        "this",
                        "super",
                        "new",
                        "!",
                        "~",
                        *_LITERALS,
                    }
                )
            elif token.type not in {".", "identifier", "[", "]", ",", "?"}:
                return False
            ahead += 1
        return False

    def postfix(self, node: Node) -> Node:
        stream = self.stream
        while True:
            if stream.at(".") and stream.at("class", ahead=1):
                node = composite("class_literal", [node, stream.next(), stream.next()])
            elif stream.at(".") and stream.at("<", ahead=1):
                dot = stream.next()
                type_arguments = self.type_arguments()
                name = stream.expect("identifier")
                arguments = self.arguments()
                node = composite(
                    "method_invocation",
                    [node, dot, type_arguments, name, arguments],
                    object=node,
                    name=name,
                    arguments=arguments,
                )
            elif stream.at("."):
                dot = stream.next()
                if stream.at("new"):
                    creation = self.creation()
                    node = composite(
                        creation.type, [node, dot, *creation.children], **creation.fields
                    )
                    continue
                name = stream.expect("identifier", "this", "super")
                if stream.at("("):
                    arguments = self.arguments()
                    node = composite(
                        "method_invocation",
                        [node, dot, name, arguments],
                        object=node,
                        name=name,
                        arguments=arguments,
                    )
                else:
                    node = composite("field_access", [node, dot, name])
            elif stream.at("["):
                opener = stream.next()
                index = self.expression()
                node = composite("array_access", [node, opener, index, stream.expect("]")])
            elif stream.at("::"):
                colons = stream.next()
                name = stream.expect("identifier", "new")
                node = composite("method_reference", [node, colons, name])
            elif stream.at("++", "--"):
                node = composite("update_expression", [node, stream.next()])
            else:
                return node

    def primary(self) -> Node:
        stream = self.stream
        token = stream.peek()
        if token is None:
            raise ParseFailure("expression expected, found end of text")
        if token.type in _LITERALS or token.type in {"this", "super"}:
            return stream.next()
        if token.type == "identifier":
            name = stream.next()
            if stream.at("("):
                arguments = self.arguments()
                return composite(
                    "method_invocation", [name, arguments], name=name, arguments=arguments
                )
            if stream.at("[") and stream.at("]", ahead=1):
                return self.class_literal_of_array(name)
            return name
        if token.type in _PRIMITIVES:
            type_ = self.type_()
            if not (stream.at(".") and stream.at("class", ahead=1)):
                raise ParseFailure("type name where a value was expected")
            return composite("class_literal", [type_, stream.next(), stream.next()])
        if token.type == "(":
            opener = stream.next()
            inner = self.expression()
            return composite("parenthesized_expression", [opener, inner, stream.expect(")")])
        if token.type == "new":
            return self.creation()
        raise ParseFailure(f"unexpected {token.type!r}")

    def class_literal_of_array(self, name: Node) -> Node:
        stream = self.stream
        children = [name]
        while stream.at("[") and stream.at("]", ahead=1):
            children += [stream.next(), stream.next()]
        type_ = composite("array_type", children)
        if not (stream.at(".") and stream.at("class", ahead=1)):
            raise ParseFailure("array type where a value was expected")
        return composite("class_literal", [type_, stream.next(), stream.next()])

    def creation(self) -> Node:
        stream = self.stream
        new = stream.expect("new")
        type_ = self.simple_type()
        if stream.at("("):
            arguments = self.arguments()
            children = [new, type_, arguments]
            if stream.at("{"):
                children.append(self.stream.balanced("class_body", "{", "}"))
            return composite(
                "object_creation_expression", children, type=type_, arguments=arguments
            )
        if not stream.at("["):
            raise ParseFailure("expected ( or [ after new T")
        dimensions: list[Node] = []
        while stream.at("["):
            opener = stream.next()
            if stream.at("]"):
                dimensions.append(composite("dimensions", [opener, stream.next()]))
            else:
                size = self.expression()
                dimensions.append(composite("dimensions_expr", [opener, size, stream.expect("]")]))
        if stream.at("{"):
            value = self.array_initializer()
            return composite(
                "array_creation_expression",
                [new, type_, *dimensions, value],
                type=type_,
                value=value,
            )
        if dimensions[0].type != "dimensions_expr":
            raise ParseFailure("array creation without size or initializer")
        return composite("array_creation_expression", [new, type_, *dimensions], type=type_)

    def array_initializer(self) -> Node:
        stream = self.stream
        stream.enter()
        try:
            children = [stream.expect("{")]
            while not stream.at("}"):
                children.append(self.array_initializer() if stream.at("{") else self.expression())
                if not stream.at(","):
                    break
                children.append(stream.next())
            children.append(stream.expect("}"))
            return composite("array_initializer", children)
        finally:
            stream.leave()

    def arguments(self) -> Node:
        stream = self.stream
        children = [stream.expect("(")]
        if not stream.at(")"):
            while True:
                children.append(self.expression())
                if not stream.at(","):
                    break
                children.append(stream.next())
        children.append(stream.expect(")"))
        return composite("argument_list", children)

    # Types

    def simple_type(self) -> Node:
        """A type without array brackets (what follows `new`)."""
        stream = self.stream
        if stream.at(*_PRIMITIVES):
            token = stream.next()
            return composite("integral_type", [token])
        parts = [stream.expect("identifier")]
        if stream.at("<"):
            parts.append(self.type_arguments())
        while stream.at(".") and stream.at("identifier", ahead=1):
            parts += [stream.next(), stream.next()]
            if stream.at("<"):
                parts.append(self.type_arguments())
        if len(parts) == 1:
            return Node("type_identifier", parts[0].start, parts[0].end)
        return composite("generic_type", parts)

    def type_(self) -> Node:
        type_ = self.simple_type()
        stream = self.stream
        if stream.at("[") and stream.at("]", ahead=1):
            children = [type_]
            while stream.at("[") and stream.at("]", ahead=1):
                children += [stream.next(), stream.next()]
            return composite("array_type", children)
        return type_

    def type_arguments(self) -> Node:
        stream = self.stream
        stream.enter()
        try:
            children = [stream.expect("<")]
            while not stream.at(">"):
                if stream.at("?"):
                    wildcard = [stream.next()]
                    if stream.at("extends", "super"):
                        wildcard += [stream.next(), self.type_()]
                    children.append(composite("wildcard", wildcard))
                else:
                    children.append(self.type_())
                if not stream.at(","):
                    break
                children.append(stream.next())
            children.append(stream.expect(">"))
            return composite("type_arguments", children)
        finally:
            stream.leave()


# From tree to calls


def _call(source: Source, node: Node) -> Call:
    name = source.java_text(node.fields["name"])
    if "object" in node.fields:
        name = f"{source.java_text(node.fields['object'])}.{name}"
    return Call(name=name, arguments=_arguments(source, node.fields["arguments"]))


def _arguments(source: Source, argument_list: Node) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    for child in argument_list.children:
        if child.type == "assignment_expression":
            key = source.java_text(child.children[0])
            value = _value(source, child.children[2], nested=False)
        elif child.type in {"identifier", "class_literal"}:
            key = POSITIONAL_KEY
            value = _value(source, child, nested=False)
        else:
            continue
        if key in arguments:
            raise failed("Multiple arguments with the same name are not supported.")
        arguments[key] = value
    return arguments


def _value(source: Source, node: Node, *, nested: bool) -> str:
    """The argument string upstream's `traverse_node` builds for `node`."""
    if node.type in {"string_literal", "character_literal"}:
        text = source.java_text(node)
        return text if nested else text[1:-1]
    if node.type in {"identifier", "class_literal", "type_identifier", "method_invocation"}:
        return source.java_text(node)
    if node.type == "array_creation_expression":
        if "value" not in node.fields:
            raise failed("array creation without an initializer")
        type_text = _value(source, node.fields["type"], nested=True)
        return f"new {type_text}[]{_value(source, node.fields['value'], nested=True)}"
    if node.type == "object_creation_expression":
        type_text = _value(source, node.fields["type"], nested=True)
        arguments = [
            _value(source, child, nested=True)
            for child in node.fields["arguments"].children
            if child.type not in {",", "(", ")"}
        ]
        return f"new {type_text}({', '.join(arguments)})"
    if node.children:
        return "".join(_value(source, child, nested=True) for child in node.children)
    return source.java_text(node)
