# SPDX-License-Identifier: MIT
"""Types of the mintid module (its functions are in the C extension mintid._mintid)."""
import datetime
import uuid
from types import GenericAlias
from typing import Any, Generic, Iterator, List, Literal, Optional, Tuple, TypeAlias, TypeVar, Union, final, overload

__version__: str

#: Every format's name, as the library's table lists them (mintid.formats());
#: a misspelt name fails type-checking. At run time, typing.get_args() of it
#: gives the names.
FormatName: TypeAlias = Literal[
    "uexky",
    "scru160",
    "ulid-flake",
    "ulid-flake-scalable",
    "caloriosa",
    "nanoflake",
    "uuidv7",
    "ulid",
    "scru128",
    "snowflake",
    "sonyflake",
    "ksuid",
    "typeid",
]

# (Names with a leading underscore are the stub's own, not the module's.)
#: The formats whose IDs form='uuid' gives as a uuid.UUID: uuidv7's text is
#: the UUID string, ulid and typeid have a 'uuid' form.
_UUIDFormat = Literal["uuidv7", "ulid", "typeid"]
#: A point in time for epoch=: Unix ms, an aware datetime, or a text (RFC 3339,
#: Unix ms, or one of the format's named epochs such as "discord").
_Epoch = Union[int, datetime.datetime, str]
#: An ID as inspect() and convert() read it: a text, its bytes, its value or a UUID.
_AnyID = Union[str, bytes, bytearray, int, uuid.UUID]
# A node id, or "host", "ordinal", "ordinal+N" (see mintid_lookup_node in mintid.h).
_Node = Union[int, str, None]
_TextForm = Literal["text", "hex", "padded", "core"]
#: The type of the IDs a Generator mints, as its form= says.
_ID = TypeVar("_ID", str, int, bytes, uuid.UUID)

class Error(Exception):
    """A status of libmintid; .status is its (negative) code."""

    status: int

# One class per class of the library's statuses, finer ones below it.
class ArgumentError(Error, ValueError): ...
class InvalidID(ArgumentError): ...
class UnknownFormat(ArgumentError): ...
class ArgumentTypeError(Error, TypeError): ...
class ClockError(Error): ...
class Timeout(ClockError): ...
class Exhausted(Error): ...
class HostError(Error): ...
class Forked(Error): ...

@overload
def gen(
    format: FormatName,
    n: None = ...,
    *,
    node: _Node = ...,
    epoch: Optional[_Epoch] = ...,
    form: _TextForm = ...,
    prefix: Optional[str] = ...,
) -> str: ...
@overload
def gen(
    format: FormatName,
    n: None = ...,
    *,
    node: _Node = ...,
    epoch: Optional[_Epoch] = ...,
    form: Literal["int"],
    prefix: Optional[str] = ...,
) -> int: ...
@overload
def gen(
    format: FormatName,
    n: None = ...,
    *,
    node: _Node = ...,
    epoch: Optional[_Epoch] = ...,
    form: Literal["bytes"],
    prefix: Optional[str] = ...,
) -> bytes: ...
@overload
def gen(
    format: _UUIDFormat,
    n: None = ...,
    *,
    node: _Node = ...,
    epoch: Optional[_Epoch] = ...,
    form: Literal["uuid"],
    prefix: Optional[str] = ...,
) -> uuid.UUID: ...
@overload
def gen(
    format: FormatName,
    n: int,
    *,
    node: _Node = ...,
    epoch: Optional[_Epoch] = ...,
    form: _TextForm = ...,
    prefix: Optional[str] = ...,
) -> List[str]: ...
@overload
def gen(
    format: FormatName,
    n: int,
    *,
    node: _Node = ...,
    epoch: Optional[_Epoch] = ...,
    form: Literal["int"],
    prefix: Optional[str] = ...,
) -> List[int]: ...
@overload
def gen(
    format: FormatName,
    n: int,
    *,
    node: _Node = ...,
    epoch: Optional[_Epoch] = ...,
    form: Literal["bytes"],
    prefix: Optional[str] = ...,
) -> List[bytes]: ...
@overload
def gen(
    format: _UUIDFormat,
    n: int,
    *,
    node: _Node = ...,
    epoch: Optional[_Epoch] = ...,
    form: Literal["uuid"],
    prefix: Optional[str] = ...,
) -> List[uuid.UUID]: ...

@final
class Generator(Generic[_ID]):
    """Strictly increasing IDs of one format; thread-safe. shared=True: the
    host-wide sequence (a forked child goes on with it); shared=False: the
    process's own (mintid.Forked in a forked child). Its IDs are str, int,
    bytes or uuid.UUID, as form= says: Generator[str], Generator[int], ..."""

    @overload
    def __init__(
        self: Generator[str],
        format: FormatName,
        node: _Node = ...,
        epoch: Optional[_Epoch] = ...,
        shared: bool = ...,
        *,
        form: _TextForm = ...,
        overflow: Literal["wait", "fail"] = ...,
        prefix: Optional[str] = ...,
    ) -> None: ...
    @overload
    def __init__(
        self: Generator[int],
        format: FormatName,
        node: _Node = ...,
        epoch: Optional[_Epoch] = ...,
        shared: bool = ...,
        *,
        form: Literal["int"],
        overflow: Literal["wait", "fail"] = ...,
        prefix: Optional[str] = ...,
    ) -> None: ...
    @overload
    def __init__(
        self: Generator[bytes],
        format: FormatName,
        node: _Node = ...,
        epoch: Optional[_Epoch] = ...,
        shared: bool = ...,
        *,
        form: Literal["bytes"],
        overflow: Literal["wait", "fail"] = ...,
        prefix: Optional[str] = ...,
    ) -> None: ...
    @overload
    def __init__(
        self: Generator[uuid.UUID],
        format: _UUIDFormat,
        node: _Node = ...,
        epoch: Optional[_Epoch] = ...,
        shared: bool = ...,
        *,
        form: Literal["uuid"],
        overflow: Literal["wait", "fail"] = ...,
        prefix: Optional[str] = ...,
    ) -> None: ...
    @property
    def format(self) -> str: ...
    @property
    def node(self) -> Optional[int]: ...
    @property
    def epoch(self) -> int: ...
    @property
    def shared(self) -> bool: ...
    @property
    def path(self) -> Optional[str]: ...
    # The type prefix of its IDs' text ('' for none).
    @property
    def prefix(self) -> str: ...
    def next(self) -> _ID: ...
    def next_many(self, n: int, /) -> List[_ID]: ...
    def __iter__(self) -> Iterator[_ID]: ...
    def __next__(self) -> _ID: ...
    # mintid.Generator[int] at run time too, in an annotation.
    @classmethod
    def __class_getitem__(cls, item: Any, /) -> GenericAlias: ...

def inspect(
    id: _AnyID,
    format: Optional[FormatName] = ...,
    *,
    epoch: Optional[_Epoch] = ...,
    from_form: Optional[str] = ...,
) -> dict[str, Any]: ...
@overload
def convert(
    id: _AnyID,
    to: _TextForm,
    format: Optional[FormatName] = ...,
    *,
    from_form: Optional[str] = ...,
    prefix: Optional[str] = ...,
) -> str: ...
@overload
def convert(
    id: _AnyID,
    to: Literal["int"],
    format: Optional[FormatName] = ...,
    *,
    from_form: Optional[str] = ...,
    prefix: Optional[str] = ...,
) -> int: ...
@overload
def convert(
    id: _AnyID,
    to: Literal["bytes"],
    format: Optional[FormatName] = ...,
    *,
    from_form: Optional[str] = ...,
    prefix: Optional[str] = ...,
) -> bytes: ...
@overload
def convert(
    id: _AnyID,
    to: Literal["uuid"],
    format: Optional[FormatName] = ...,
    *,
    from_form: Optional[str] = ...,
    prefix: Optional[str] = ...,
) -> uuid.UUID: ...
@overload
def range(
    format: FormatName,
    start: datetime.datetime,
    end: Optional[datetime.datetime] = ...,
    *,
    epoch: Optional[_Epoch] = ...,
    form: _TextForm = ...,
    prefix: Optional[str] = ...,
) -> Tuple[str, str]: ...
@overload
def range(
    format: FormatName,
    start: datetime.datetime,
    end: Optional[datetime.datetime] = ...,
    *,
    epoch: Optional[_Epoch] = ...,
    form: Literal["int"],
    prefix: Optional[str] = ...,
) -> Tuple[int, int]: ...
@overload
def range(
    format: FormatName,
    start: datetime.datetime,
    end: Optional[datetime.datetime] = ...,
    *,
    epoch: Optional[_Epoch] = ...,
    form: Literal["bytes"],
    prefix: Optional[str] = ...,
) -> Tuple[bytes, bytes]: ...
@overload
def range(
    format: _UUIDFormat,
    start: datetime.datetime,
    end: Optional[datetime.datetime] = ...,
    *,
    epoch: Optional[_Epoch] = ...,
    form: Literal["uuid"],
    prefix: Optional[str] = ...,
) -> Tuple[uuid.UUID, uuid.UUID]: ...
def formats() -> dict[str, dict[str, Any]]: ...
