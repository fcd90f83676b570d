"""The base of every pi wire record: open, mutable, lossless on round trip.

pi's transcript shapes grow often, so every record is *open*: keys we do not model
are kept (``extra="allow"``) and written back, and a transcript saved by a newer pi
still loads. Round trips are lossless key for key:

- an optional field (``x?`` in pi-ai's definitions) that was absent on input is absent on
  output, because :class:`OpenRecord`'s serializer drops optional fields that were
  never set (present ``null`` values are kept);
- scalars are strict, so nothing is coerced on the way in: ``number`` keeps an
  integer an integer and a float a float, ``number.integer`` and ``boolean`` reject
  ``"5"`` or ``1`` instead of silently rewriting them.

Reprs show structure, never payloads: text, base64 data, arguments, command output
and unknown keys appear as ``<N chars>``-style placeholders, so a record can be
logged without leaking a prompt or an image.

Records are mutable and assignment is not validated: the stream mapper grows one
``AssistantMessage`` in place and constructs events with ``model_construct``.

.. versionadded:: 0.1.0
"""

from collections.abc import Iterator
from typing import Annotated, Any, ClassVar, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    StrictBool,
    StrictFloat,
    StrictInt,
    WithJsonSchema,
    model_serializer,
)

__all__ = ["Boolean", "Integer", "JsonObject", "Number", "OpenRecord"]

#: pi-ai's ``number``: an integer stays an integer, a float stays a float.
Number: TypeAlias = Annotated[StrictInt | StrictFloat, WithJsonSchema({"type": "number"})]
#: pi-ai's ``number.integer``.
Integer: TypeAlias = StrictInt
#: pi-ai's ``boolean``.
Boolean: TypeAlias = StrictBool
#: pi-ai's ``Record``: any JSON object, passed through untouched.
JsonObject: TypeAlias = dict[str, Any]

_TAGS = ("type", "role")

#: Fields whose values are user or model payloads: shown in reprs by size only.
_PAYLOAD_FIELDS = frozenset(
    {
        "arguments",
        "block",
        "body",
        "code",
        "command",
        "content",
        "data",
        "delta",
        "details",
        "from_",
        "meta",
        "output",
        "providerPayload",
        "rawBlock",
        "shortSummary",
        "summary",
        "text",
        "thinking",
        "to",
        "url",
    }
)


class _Elided:
    """A repr placeholder that says what was there without showing it."""

    __slots__ = ("_text",)

    def __init__(self, value: object) -> None:
        if isinstance(value, str):
            self._text = f"<{len(value)} chars>"
        elif isinstance(value, dict):
            self._text = f"<object, {len(value)} keys>"
        else:
            self._text = f"<{type(value).__name__}>"

    def __repr__(self) -> str:
        return self._text


def _require_tag(schema: dict[str, Any], cls: type[Any]) -> None:
    """List a discriminator as required in the JSON Schema, as pi-ai's definitions have it.

    The tag has a default only so that Python callers need not repeat it.
    """
    del cls
    properties = schema.get("properties", {})
    required: list[str] = schema.setdefault("required", [])
    for tag in _TAGS:
        if tag in properties and tag not in required:
            required.insert(0, tag)


def _is_structure(value: object) -> bool:
    """Whether a value shows only structure: records, lists of records, scalars."""
    if isinstance(value, list):
        return all(isinstance(item, BaseModel) for item in value)
    return value is None or isinstance(value, BaseModel | bool | int | float)


class OpenRecord(BaseModel):
    """An open pi record: unknown keys survive, unset optional fields are not written.

    .. versionadded:: 0.1.0
    """

    model_config = ConfigDict(
        extra="allow",
        hide_input_in_errors=True,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        json_schema_extra=_require_tag,
    )

    #: Optional fields (default ``None``), dropped from output unless set.
    _optional_fields: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """Precompute the optional fields once per class, not once per dump."""
        super().__pydantic_init_subclass__(**kwargs)
        cls._optional_fields = frozenset(
            name
            for name, field in cls.model_fields.items()
            if not field.is_required() and field.default is None
        )

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        """Yield the set fields, with payloads and unknown keys elided."""
        extra = self.__pydantic_extra__ or {}
        unset = self._optional_fields - self.__pydantic_fields_set__
        for name, value in super().__repr_args__():
            if name in unset:
                continue
            if name in extra or (name in _PAYLOAD_FIELDS and not _is_structure(value)):
                yield name, _Elided(value)
            else:
                yield name, value

    @model_serializer(mode="wrap")
    def _omit_unset_optionals(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Write an optional field only if it was given (on input or by assignment)."""
        data = handler(self)
        if isinstance(data, dict):
            for name in self._optional_fields - self.__pydantic_fields_set__:
                data.pop(name, None)
        return data
