"""What every settings part and every composition of parts shares: the ``NOMOS_*`` names, reading the environment,
and one flat namespace over nested parts.

Settings are nested models beside the layers that use them (issue 48): the cluster's and the node's in
:mod:`nomos.opensearch.settings`, retrieval's in :mod:`nomos.retrieval.settings`, the LLM's in
:mod:`nomos.retrieval.llm.settings`, the portal's in :mod:`nomos.portal.settings`. Each constructor takes only its own
part (``make_client(settings.cluster)``); a layer that composes others composes their parts one floor above them
(:class:`~nomos.retrieval.settings.SearchSettings`, :class:`~nomos.stages.settings.StageSettings`, and the top
:class:`nomos.settings.Settings`). This module sits on the lowest floor, so every layer can define its part.

A part is a :class:`SettingsPart`: field ``x`` is read from ``NOMOS_X`` unless its ``validation_alias`` names others.
A composition is a :class:`Composed`: it holds parts as fields and answers every part's field by its flat name, as
the one settings object always did (``settings.http_port``, ``Settings(http_port=…)``, ``with_overrides(…)``,
``model_copy(update={"http_port": …})``, ``Settings.from_env()`` reading ``NOMOS_HTTP_PORT``), so the names of the
environment, the flags and the Python API stay as they were.
"""

from __future__ import annotations

import logging
import os
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Mapping

from dotenv import dotenv_values
from pydantic import AliasChoices, AliasGenerator, BaseModel, ConfigDict, ValidationError, model_validator
from typing_extensions import Self

ENV_PREFIX = "NOMOS_"
ENV_FILE_VAR = "NOMOS_ENV_FILE"  # names the .env file from_env() reads (default: .env in the current directory)
log = logging.getLogger(__name__)

CONFIG = ConfigDict(
    frozen=True,  # a changed copy comes from with_overrides or model_copy(update=...)
    extra="forbid",  # Settings(typo=…) fails
    populate_by_name=True,  # Settings(http_port=…) by field name; the environment by the names below
    # a field x is read from NOMOS_X; the fields that say validation_alias= are read from the names they list
    alias_generator=AliasGenerator(validation_alias=lambda name: ENV_PREFIX + name.upper()),
)


def env(*names: str) -> Any:  # pydantic's AliasChoices
    """The variables a field is read from, first found wins (``Settings(field=…)`` still works by field name)."""
    return AliasChoices(*names)


def comma_list(v: object) -> object:
    """"a, b" in the environment, a tuple in Python; blank: none."""
    return tuple(x.strip() for x in v.split(",") if x.strip()) if isinstance(v, str) else v


def one_of(v: str, allowed: tuple[str, ...]) -> str:
    """A field with a fixed set of values names them when given another."""
    if v not in allowed:
        raise ValueError(f"must be one of {', '.join(allowed)}")
    return v


def env_names(model: type[BaseModel], field: str) -> tuple[str, ...]:
    """The variables ``model``'s ``field`` is read from, in the order they are tried."""
    alias = model.model_fields[field].validation_alias
    if isinstance(alias, AliasChoices):
        return tuple(str(choice) for choice in alias.choices)
    return (str(alias),) if alias else (ENV_PREFIX + field.upper(),)


class SettingsPart(BaseModel):
    """One layer's settings. ``flat`` names the properties a composition answers by their flat name too."""

    model_config = CONFIG
    flat: ClassVar[tuple[str, ...]] = ()


class Composed(BaseModel):
    """Parts (fields whose type is a :class:`SettingsPart`) and fields of its own, under one flat namespace."""

    model_config = CONFIG

    # -------------------------------------------------------------------------------------- the flat namespace
    @classmethod
    def parts(cls) -> dict[str, type[SettingsPart]]:
        """Field name -> part class, in the order the fields are declared."""
        return _parts(cls)

    @classmethod
    def flat_index(cls) -> dict[str, str]:
        """Every part's field (and ``flat`` property) by its own name -> the part that holds it."""
        return _flat_index(cls)

    @model_validator(mode="before")
    @classmethod
    def _route(cls, data: Any) -> Any:
        """``Settings(http_port=9201)`` -> ``Settings(cluster={"http_port": 9201, …})``; a part given whole and
        some of its fields by name: the fields change that part."""
        if not isinstance(data, Mapping):
            return data
        index = cls.flat_index()
        out: dict[str, Any] = {}
        nested: dict[str, dict[str, Any]] = {}
        for key, value in data.items():
            if key in index and key not in cls.model_fields:
                nested.setdefault(index[key], {})[key] = value
            else:
                out[key] = value
        for part, values in nested.items():
            given = out.get(part)
            if isinstance(given, BaseModel):
                given = {name: getattr(given, name) for name in type(given).model_fields}
            out[part] = {**(given if isinstance(given, Mapping) else {}), **values}
        return out

    def __getattr__(self, name: str) -> Any:
        """A part's field by its flat name (``settings.http_port`` is ``settings.cluster.http_port``)."""
        part = type(self).flat_index().get(name)
        if part is None:
            return super().__getattr__(name)  # type: ignore[misc]  # pydantic's: private attributes, else AttributeError
        return getattr(getattr(self, part), name)

    # ------------------------------------------------------------------------------------------ building
    def with_overrides(self, **changes: object) -> Self:
        """A copy with the given fields changed and validated; ``None`` values are ignored (unset CLI flags)."""
        kept = {k: v for k, v in changes.items() if v is not None}
        if not kept:
            return self
        return type(self)(**{**{k: getattr(self, k) for k in type(self).model_fields}, **kept})

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """pydantic's copy (unvalidated), with a part's fields named flat changed in that part."""
        if not update:
            return super().model_copy(deep=deep)
        index = type(self).flat_index()
        own = {k: v for k, v in update.items() if k not in index or k in type(self).model_fields}
        by_part: dict[str, dict[str, Any]] = {}
        for key, value in update.items():
            if key not in own:
                by_part.setdefault(index[key], {})[key] = value
        for part, values in by_part.items():
            own[part] = own.get(part, getattr(self, part)).model_copy(update=values)
        return super().model_copy(update=own, deep=deep)

    # ------------------------------------------------------------------------------------------ the environment
    @classmethod
    def env_table(cls) -> list[tuple[tuple[str, ...], str, Any]]:
        """(variables, where it lives, default) for every setting: the one table of names and defaults
        (``python -m nomos.settings`` prints it)."""
        rows: list[tuple[tuple[str, ...], str, Any]] = []
        for name, info in cls.model_fields.items():
            part = cls.parts().get(name)
            if part is None:
                rows.append((env_names(cls, name), name, info.get_default(call_default_factory=True)))
                continue
            for field, pinfo in part.model_fields.items():
                rows.append((env_names(part, field), f"{name}.{field}", pinfo.get_default(call_default_factory=True)))
        return rows

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, env_file: str | Path | None = None) -> Self:
        """Read ``OPENSEARCH_URL`` and the ``NOMOS_*`` variables; a bad value fails with the variable's name.

        ``env`` None: the process environment over the ``.env`` file (``env_file``, else ``$NOMOS_ENV_FILE``,
        else ``./.env``; a missing file is no error). ``env`` given: that mapping alone, unless ``env_file``.
        Empty values count as unset; names are exact (``NOMOS_INDEX``, not ``nomos_index``).
        """
        if env is None:
            env = os.environ
            env_file = env_file or os.environ.get(ENV_FILE_VAR) or ".env"
        values: dict[str, Any] = {}
        source: dict[str, str] = {}  # field -> the variable it was read from
        if env_file is not None and Path(env_file).is_file():
            from_file = {k: v for k, v in dotenv_values(env_file).items() if v is not None}
            read = cls._read(from_file, values, source)
            log.info("settings: %d from %s (%s)", len(read), env_file, ", ".join(sorted(read)) or "none")
        cls._read(env, values, source)
        try:
            return cls(**values)
        except ValidationError as exc:
            raise ValueError(_name_the_variable(exc, values, source)) from None

    @classmethod
    def _read(cls, given: Mapping[str, str | None], values: dict[str, Any], source: dict[str, str]) -> list[str]:
        """The settings ``given`` sets, by field name into ``values`` (over what is there); the variables read."""
        read = []
        for names, where, _ in cls.env_table():
            field = where.rsplit(".", 1)[-1]
            for var in names:
                raw = given.get(var)
                if raw:  # NOMOS_X= means unset
                    values[field], source[field] = raw, var
                    read.append(var)
                    break
        return read


@cache
def _parts(cls: type[Composed]) -> dict[str, type[SettingsPart]]:
    out = {}
    for name, info in cls.model_fields.items():
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, SettingsPart):
            out[name] = kind
    return out


@cache
def _flat_index(cls: type[Composed]) -> dict[str, str]:
    index: dict[str, str] = {}
    for name, part in _parts(cls).items():
        for flat in (*part.model_fields, *part.flat):
            if flat in index or flat in cls.model_fields:
                raise TypeError(f"{cls.__name__}: {flat!r} is in both {index.get(flat, 'its own fields')} and {name}")
            index[flat] = name
    return index


def _name_the_variable(exc: ValidationError, values: Mapping[str, Any], source: Mapping[str, str]) -> str:
    """``environment variable NOMOS_HTTP_PORT='abc': Input should be a valid integer…``, one line per bad value."""
    lines = []
    for err in exc.errors():
        field = next((str(x) for x in err["loc"] if str(x) in source), None)
        var = source[field] if field else ".".join(str(x) for x in err["loc"]) or "?"
        raw = values[field] if field else err.get("input")
        msg = err["msg"].removeprefix("Value error, ")
        lines.append(f"environment variable {var}={raw!r}: {msg}")
    return "; ".join(lines)
