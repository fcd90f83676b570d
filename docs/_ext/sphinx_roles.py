"""A griffe extension for the docs site: the docstrings' reStructuredText renders as Markdown.

The docstrings are written for Sphinx readers too, so they carry markup that Markdown would
show verbatim. This extension rewrites it as each object is loaded; the docstrings stay as
written. Loaded by mkdocs.yml (``extensions``).

- A role (``:class:`~llm_retry.RetryInfo```) becomes inline code (``RetryInfo``, as Sphinx
  displays ``~``), not a link: many roles name private objects that the API reference
  does not render, and a link could dangle.
- ``.. versionadded:: 0.1.0`` and ``.. versionchanged::`` become a small line ("Added in
  version 0.1.0."); ``.. deprecated::`` becomes a warning admonition.
- A paragraph ending in ``::`` loses the marker as Sphinx drops it ("Example::" shows
  "Example:"), and the indented block after it becomes a fenced code block: Python when
  it parses as Python, plain text otherwise (a tree, a TOML table).
- An attribute documented the Sphinx way, by ``#:`` comment lines right above it, gets
  them as its docstring (griffe reads docstrings only).
- An attribute's value longer than ``VALUE_LIMIT`` is not shown: a data table such as
  ``llm_errors.RULES`` is described by its docstring, not dumped into the page.
"""

import ast
import re
import textwrap

import griffe

ROLE = re.compile(
    r":(?:py:)?(?:attr|class|const|data|exc|func|meth|mod|obj):`(?P<body>[^`]+)`",
)
DIRECTIVE = re.compile(
    r"(?P<indent>[ \t]*)\.\. (?P<kind>versionadded|versionchanged|deprecated)::"
    r"[ \t]*(?P<version>[^\s]+)[ \t]*(?P<text>.*)",
)
# The class of the "Added in version" line (docs/stylesheets/extra.css sets it small).
VERSION_CLASS = "doc-version"
VALUE_LIMIT = 100  # characters of an attribute's value, whitespace left out


def plain(text: str) -> str:
    """Each Sphinx role in ``text`` as the inline code Sphinx would display."""
    return ROLE.sub(lambda match: f"`{_shown(match['body'])}`", text)


def _shown(body: str) -> str:
    """What Sphinx shows for a role's body: a title, the last part after ``~``, or all."""
    body = body.removeprefix("!")
    if body.endswith(">") and " <" in body:
        return body[: body.rindex(" <")]
    if body.startswith("~"):
        return body.rsplit(".", 1)[-1]
    return body


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """Where the block from ``start``, indented deeper than ``indent``, ends (exclusive)."""
    end = start
    for index in range(start, len(lines)):
        if lines[index].strip():
            if _indent(lines[index]) <= indent:
                break
            end = index + 1
    return end


def directives(text: str) -> str:
    """Each version directive in ``text`` as a Markdown line, its indented body joined."""
    lines = text.splitlines()
    out: list[str] = []
    index = 0
    while index < len(lines):
        match = DIRECTIVE.fullmatch(lines[index])
        if match is None:
            out.append(lines[index])
            index += 1
            continue
        indent = match["indent"]
        end = _block_end(lines, index + 1, len(indent))
        words = " ".join([match["text"], *(line.strip() for line in lines[index + 1 : end])])
        out.extend(_version_note(indent, match["kind"], match["version"], words.strip()))
        index = end
    return "\n".join(out)


def _version_note(indent: str, kind: str, version: str, words: str) -> list[str]:
    """The Markdown for one directive: a small paragraph, or an admonition for deprecated."""
    if kind == "deprecated":
        body = [f"{indent}    {words}"] if words else []
        return ["", f'{indent}!!! warning "Deprecated since version {version}"', *body, ""]
    verb = "Added" if kind == "versionadded" else "Changed"
    note = f"*{verb} in version {version}:* {words}" if words else f"*{verb} in version {version}.*"
    return ["", f"{indent}{note}", f"{indent}{{: .{VERSION_CLASS} }}", ""]


def literal_blocks(text: str) -> str:
    """Each ``::`` paragraph's indented block as a fenced code block, the marker dropped."""
    lines = text.splitlines()
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        start = index + 1
        while start < len(lines) and not lines[start].strip():
            start += 1
        indent = _indent(line)
        if not (
            line.rstrip().endswith("::")
            and start > index + 1
            and start < len(lines)
            and _indent(lines[start]) > indent
        ):
            out.append(line)
            index += 1
            continue
        end = _block_end(lines, start, indent)
        lead = line.rstrip()[:-2]
        if lead.strip():  # "Example::" shows "Example:"; "a tree ::" shows "a tree"
            out.append(lead.rstrip() if lead.endswith(" ") else f"{lead}:")
            out.append("")
        code = textwrap.dedent("\n".join(lines[start:end]))
        pad = " " * indent
        out.append(f"{pad}```{_language(code)}")
        out.extend(f"{pad}{row}" if row else "" for row in code.splitlines())
        out.append(f"{pad}```")
        index = end
    return "\n".join(out)


def _language(code: str) -> str:
    """``python`` for a block that parses as Python, ``text`` for anything else."""
    try:
        ast.parse(code)
    except SyntaxError:
        return "text"
    return "python"


def markdown(text: str) -> str:
    """A docstring's reStructuredText markup rewritten as the Markdown the site renders."""
    return literal_blocks(directives(plain(text)))


def shown_value(value: object) -> bool:
    """Whether an attribute's value is short enough to show beside its name."""
    return len("".join(str(value).split())) <= VALUE_LIMIT


def comment_doc(lines: list[str], lineno: int) -> str | None:
    """The ``#:`` comment lines right above line ``lineno`` (1-based), as one text."""
    found: list[str] = []
    index = lineno - 2
    while index >= 0 and lines[index].lstrip().startswith("#:"):
        found.insert(0, lines[index].lstrip()[2:].strip())
        index -= 1
    return "\n".join(found) or None


class SphinxRoles(griffe.Extension):
    """Rewrites every loaded object's docstring (aliases' targets included) as Markdown."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: object) -> None:
        """Markdown for the docstring, and no long value, as each object is created."""
        del kwargs
        if isinstance(obj, griffe.Attribute):
            if obj.docstring is None and obj.lineno is not None:
                comment = comment_doc(obj.lines_collection[obj.filepath], obj.lineno)
                if comment is not None:
                    obj.docstring = griffe.Docstring(comment, parent=obj)
            if not shown_value(obj.value):
                obj.value = None
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
