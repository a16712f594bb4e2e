# SPDX-License-Identifier: MIT
"""Types of the mintid module (its functions are in the C extension mintid._mintid)."""
import datetime
from typing import Any, Iterator, List, Literal, Optional, Tuple, Union, final, overload

__version__: str

# (Names with a leading underscore are the stub's own, not the module's.)
#: A point in time for epoch=: Unix ms, an aware datetime, or a text (RFC 3339,
#: Unix ms, or one of the format's named epochs such as "discord").
_Epoch = Union[int, datetime.datetime, str]
#: An ID as inspect() and convert() read it: a text, its bytes or its value.
_AnyID = Union[str, bytes, bytearray, int]
_TextForm = Literal["text", "hex", "padded", "core", "uuid"]

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
    format: str,
    n: None = ...,
    *,
    node: Union[int, Literal["host"], None] = ...,
    epoch: Optional[_Epoch] = ...,
    form: _TextForm = ...,
    prefix: Optional[str] = ...,
) -> str: ...
@overload
def gen(
    format: str,
    n: None = ...,
    *,
    node: Union[int, Literal["host"], None] = ...,
    epoch: Optional[_Epoch] = ...,
    form: Literal["int"],
    prefix: Optional[str] = ...,
) -> int: ...
@overload
def gen(
    format: str,
    n: None = ...,
    *,
    node: Union[int, Literal["host"], None] = ...,
    epoch: Optional[_Epoch] = ...,
    form: Literal["bytes"],
    prefix: Optional[str] = ...,
) -> bytes: ...
@overload
def gen(
    format: str,
    n: int,
    *,
    node: Union[int, Literal["host"], None] = ...,
    epoch: Optional[_Epoch] = ...,
    form: _TextForm = ...,
    prefix: Optional[str] = ...,
) -> List[str]: ...
@overload
def gen(
    format: str,
    n: int,
    *,
    node: Union[int, Literal["host"], None] = ...,
    epoch: Optional[_Epoch] = ...,
    form: Literal["int"],
    prefix: Optional[str] = ...,
) -> List[int]: ...
@overload
def gen(
    format: str,
    n: int,
    *,
    node: Union[int, Literal["host"], None] = ...,
    epoch: Optional[_Epoch] = ...,
    form: Literal["bytes"],
    prefix: Optional[str] = ...,
) -> List[bytes]: ...

@final
class Generator:
    """Strictly increasing IDs of one format; thread-safe. shared=True: the
    host-wide sequence (a forked child goes on with it); shared=False: the
    process's own (mintid.Forked in a forked child)."""

    def __init__(
        self,
        format: str,
        node: Union[int, Literal["host"], None] = ...,
        epoch: Optional[_Epoch] = ...,
        shared: bool = ...,
        *,
        form: Literal["text", "hex", "padded", "core", "uuid", "int", "bytes"] = ...,
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
    # str, int or bytes, as form= said.
    def next(self) -> Any: ...
    def next_many(self, n: int, /) -> List[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __next__(self) -> Any: ...

def inspect(
    id: _AnyID, format: Optional[str] = ..., *, epoch: Optional[_Epoch] = ..., from_form: Optional[str] = ...
) -> dict[str, Any]: ...
@overload
def convert(
    id: _AnyID, to: _TextForm, format: Optional[str] = ..., *, from_form: Optional[str] = ..., prefix: Optional[str] = ...
) -> str: ...
@overload
def convert(
    id: _AnyID, to: Literal["int"], format: Optional[str] = ..., *, from_form: Optional[str] = ..., prefix: Optional[str] = ...
) -> int: ...
@overload
def convert(
    id: _AnyID, to: Literal["bytes"], format: Optional[str] = ..., *, from_form: Optional[str] = ..., prefix: Optional[str] = ...
) -> bytes: ...
@overload
def range(
    format: str,
    start: datetime.datetime,
    end: Optional[datetime.datetime] = ...,
    *,
    epoch: Optional[_Epoch] = ...,
    form: _TextForm = ...,
    prefix: Optional[str] = ...,
) -> Tuple[str, str]: ...
@overload
def range(
    format: str,
    start: datetime.datetime,
    end: Optional[datetime.datetime] = ...,
    *,
    epoch: Optional[_Epoch] = ...,
    form: Literal["int"],
    prefix: Optional[str] = ...,
) -> Tuple[int, int]: ...
@overload
def range(
    format: str,
    start: datetime.datetime,
    end: Optional[datetime.datetime] = ...,
    *,
    epoch: Optional[_Epoch] = ...,
    form: Literal["bytes"],
    prefix: Optional[str] = ...,
) -> Tuple[bytes, bytes]: ...
def formats() -> dict[str, dict[str, Any]]: ...
