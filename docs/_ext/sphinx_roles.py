"""A griffe extension for the docs site: Sphinx roles in docstrings render as inline code.

The docstrings name other objects the Sphinx way (``:class:`~llm_retry.RetryInfo```), which
Markdown would show verbatim. Many name private objects that the API reference does not
render, so a role becomes inline code (``RetryInfo``, as Sphinx displays ``~``), not a link
that could dangle. Loaded by mkdocs.yml (``extensions``); the docstrings stay as written.
"""

import re

import griffe

ROLE = re.compile(
    r":(?:py:)?(?:attr|class|const|data|exc|func|meth|mod|obj):`(?P<body>[^`]+)`",
)


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


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every loaded object's docstring, aliases' targets included."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: object) -> None:
        """Plain inline code for each role, as each object (a package too) is created."""
        del kwargs
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)
