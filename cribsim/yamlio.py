"""Bounded, strict YAML loading for configs and rules files.

PyYAML's safe loader builds any document it is given: a 10,000-deep nesting overflows the stack,
a "billion laughs" alias bomb is a few hundred bytes that expand to 10^9 values when walked (by
``json.dumps`` for the config hash, say), a duplicate key silently wins, and an integer of 5,000
digits raises a ValueError. Here every limit is checked before anything is built:

* the file is at most ``MAX_BYTES`` (1 MB) and valid UTF-8;
* collections nest at most ``MAX_DEPTH`` (50) deep;
* at most ``MAX_ALIASES`` (100) aliases (``*name``), and the document, with every alias
  expanded, holds at most ``MAX_NODES`` (100,000) values; a recursive alias is refused;
* a key may appear once in a mapping.

Every failure is a :class:`~cribsim.errors.ConfigError` naming the file."""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any, cast

import yaml

from .errors import ConfigError

MAX_BYTES = 1_000_000
MAX_DEPTH = 50
MAX_ALIASES = 100
MAX_NODES = 100_000

_MERGE_TAG = "tag:yaml.org,2002:merge"


class LimitError(yaml.YAMLError):
    def __init__(self, problem: str, mark: Any = None) -> None:
        super().__init__(problem)
        self.problem, self.problem_mark = problem, mark


class _Loader(yaml.SafeLoader):
    """SafeLoader with depth, alias, size and duplicate-key checks."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise LimitError(f"more than {MAX_ALIASES} aliases", self.peek_event().start_mark)
            return super().compose_node(parent, index)
        nests = self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent)
        if nests:
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise LimitError(f"nested more than {MAX_DEPTH} deep", self.peek_event().start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            if nests:
                self._depth -= 1

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        _check_expanded_size(node)
        return self.construct_document(node)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: dict[tuple[str, Any], bool] = {}
            for key, _ in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != _MERGE_TAG:
                    ident = (key.tag, key.value)
                    if ident in seen:
                        raise LimitError(f"duplicate key {key.value!r}", key.start_mark)
                    seen[ident] = True
        return super().construct_mapping(node, deep)



def _check_expanded_size(root: Any) -> int:
    """Values in the document with every alias expanded (each shared node counted as often as
    it is referenced), without expanding anything; a cycle is a recursive alias."""
    size: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        nid = id(node)
        if done:
            active.discard(nid)
            total = 1
            for child in _children(node):
                total += size[id(child)]
                if total > MAX_NODES:
                    raise LimitError(f"more than {MAX_NODES:,} values once aliases are expanded "
                                     "(an alias bomb?)", node.start_mark)
            size[nid] = total
            continue
        if nid in size:
            continue
        if nid in active:
            raise LimitError("a recursive alias (a value that contains itself)", node.start_mark)
        active.add(nid)
        stack.append((node, True))
        for child in _children(node):
            cid = id(child)
            if cid in active:
                raise LimitError("a recursive alias (a value that contains itself)", child.start_mark)
            if cid not in size:
                stack.append((child, False))
    return size[id(root)]


def _children(node: Any) -> Sequence[Any]:
    if isinstance(node, yaml.SequenceNode):
        return cast("Sequence[Any]", node.value)
    if isinstance(node, yaml.MappingNode):
        return [x for pair in node.value for x in pair]
    return ()


def read_text(path: str | PathLike[str], what: str = "file") -> str:
    """The text of a small UTF-8 file: at most MAX_BYTES, read without trusting its size (a FIFO
    or /dev/zero does not hang or fill memory)."""
    p = Path(path)
    try:
        if p.is_dir():
            raise ConfigError(path, None, f"is a folder, not a {what}")
        with open(p, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except ConfigError:
        raise
    except OSError as e:
        raise ConfigError(path, None, f"cannot read {what} ({e.strerror or e})") from None
    if len(data) > MAX_BYTES:
        raise ConfigError(path, None, f"larger than {MAX_BYTES:,} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise ConfigError(path, None, f"not UTF-8 text (byte 0x{data[e.start]:02x} on line {line})") from None
    return text.removeprefix("\ufeff")


def loads(text: str, source: str) -> Any:
    """Parse YAML text within the limits; a ConfigError naming ``source`` on any failure."""
    if len(text) > MAX_BYTES:
        raise ConfigError(source, None, f"larger than {MAX_BYTES:,} bytes")
    try:
        loader = _Loader(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(source, None, f"invalid YAML{where}: {problem}") from None
    except RecursionError:
        raise ConfigError(source, None, f"invalid YAML: nested too deep (at most {MAX_DEPTH})") from None
    except (ValueError, TypeError, OverflowError) as e:  # e.g. an integer of 5,000 digits
        raise ConfigError(source, None, f"invalid YAML: {type(e).__name__}: {str(e).splitlines()[0][:200]}") from None


def read_mapping(path: str | PathLike[str], what: str = "YAML file") -> dict[str, Any]:
    """A YAML file whose top level is a mapping (an empty file is an empty mapping)."""
    data = loads(read_text(path, what), str(path))
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(path, None, "expected a mapping of keys to values at the top level")
    return data


def key_line(path: str | PathLike[str], keys: Sequence[str | int]) -> int | None:
    """The line (1 first) where the value at ``keys`` starts in a YAML file already read with
    :func:`read_mapping` (so within its limits), for messages; None if it is not found."""
    try:
        node = yaml.compose(Path(path).read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return None
    for k in keys:
        if isinstance(node, yaml.MappingNode) and isinstance(k, str):
            node = next((v for kn, v in node.value if getattr(kn, "value", None) == k), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(k, int) and 0 <= k < len(node.value):
            node = node.value[k]
        else:
            return None
        if node is None:
            return None
    return int(node.start_mark.line) + 1
