"""The data-flow model (disclosure-risk.md A1): actors, datastores with their schemas,
and ordered flows, some of which are ``anon`` steps. Read from JSON (no extra
dependency; the format is described in ``resources/pseudonymization/README.md``).

A field of a schema is *personal* and/or *sensitive*; a personal field that is not
sensitive is a quasi-identifier unless it says ``"qi": false``. ``F.anon`` names the
pseudonymised copy of field F that an ``anon`` step writes; it inherits F's flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tklscore.core.errors import InputError, existing_file
from tklscore.core.files.json_file import read_json

ACTIONS = ("collect", "create", "read", "disclose", "anon", "delete")
ANON = ".anon"


def base_field(name: str) -> str:
    return name[:-len(ANON)] if name.endswith(ANON) else name


@dataclass(frozen=True)
class FieldSpec:
    name: str
    personal: bool = True
    sensitive: bool = False
    qi: bool = True

    @property
    def is_qi(self) -> bool:
        return self.personal and not self.sensitive and self.qi


@dataclass
class Datastore:
    id: str
    schema: dict[str, FieldSpec]


@dataclass(frozen=True)
class Flow:
    order: int
    source: str
    target: str
    fields: tuple[str, ...]
    purpose: str = ""
    action: str = ""          # empty: derived from the endpoints (read / create / disclose)
    by: str | None = None     # the actor performing an anon step between datastores
    index: int = 0            # position in the file (1-based), for messages


@dataclass
class DataFlowModel:
    name: str
    actors: list[str]
    datastores: dict[str, Datastore]
    flows: list[Flow]
    access: dict[str, set[str]] = field(default_factory=dict)
    file: str = "<model>"

    def fields(self) -> dict[str, FieldSpec]:
        """Every field named by any schema (``F.anon`` included), with its flags."""
        result: dict[str, FieldSpec] = {}
        for store in self.datastores.values():
            result.update(store.schema)
        for name in list(result):
            if name.endswith(ANON) and base_field(name) in result:
                result[name] = FieldSpec(name, *_flags(result[base_field(name)]))
        for flow in self.flows:
            if flow.action == "anon":
                for f in flow.fields:
                    spec = result.get(f)
                    if spec is not None:
                        result.setdefault(f + ANON, FieldSpec(f + ANON, *_flags(spec)))
        return result

    def action(self, flow: Flow) -> str:
        if flow.action:
            return flow.action
        if flow.source in self.datastores:
            return "read"
        return "create" if flow.target in self.datastores else "disclose"

    def readers(self, store: str) -> set[str]:
        return {f.target for f in self.flows if f.source == store and f.target in self.actors}

    def access_rights(self, actor: str) -> set[str]:
        """Fields the actor may access: the model's ``access`` list for it, else every field
        a flow delivers to it."""
        if actor in self.access:
            return set(self.access[actor])
        rights = set()
        for flow in self.flows:
            if flow.target == actor:
                rights.update(flow.fields)
            if flow.action == "anon" and (flow.by == actor or flow.source == actor):
                rights.update(f + ANON for f in flow.fields)
        return rights

    @classmethod
    def load(cls, path) -> "DataFlowModel":
        path = existing_file(path, "data-flow model")
        return cls.from_dict(read_json(path, "data-flow model"), str(path))

    @classmethod
    def from_dict(cls, data, file: str = "<model>") -> "DataFlowModel":
        def fail(message: str, hint: str | None = None):
            raise InputError(message, file=file, hint=hint)

        if not isinstance(data, dict):
            fail("a data-flow model is a JSON object with actors, datastores and flows")
        actors = data.get("actors")
        if not isinstance(actors, list) or not actors or not all(isinstance(a, str) and a for a in actors):
            fail("'actors' must be a non-empty list of names")
        if len(set(actors)) != len(actors):
            fail(f"an actor is listed twice: {', '.join(actors)}")
        stores = {}
        for position, entry in enumerate(data.get("datastores") or [], start=1):
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
                fail(f"datastore {position} needs an 'id' and a 'schema'")
            store_id = entry["id"]
            if store_id in stores or store_id in actors:
                fail(f"datastore '{store_id}' clashes with another actor or datastore of that name")
            schema = {}
            for item in entry.get("schema") or []:
                if isinstance(item, str):
                    item = {"field": item}
                if not isinstance(item, dict) or not isinstance(item.get("field"), str):
                    fail(f"datastore '{store_id}': each schema entry is a field name or "
                         "{\"field\": NAME, \"personal\": bool, \"sensitive\": bool}")
                spec = FieldSpec(item["field"], bool(item.get("personal", True)),
                                 bool(item.get("sensitive", False)), bool(item.get("qi", True)))
                schema[spec.name] = spec
            if not schema:
                fail(f"datastore '{store_id}' has an empty schema")
            stores[store_id] = Datastore(store_id, schema)
        if not stores:
            fail("the model has no datastore", "list them under 'datastores' with their schemas")
        nodes = set(actors) | set(stores)
        known_fields = {name for store in stores.values() for name in store.schema}
        flows = []
        for position, entry in enumerate(data.get("flows") or [], start=1):
            where = f"flow {position}"
            if not isinstance(entry, dict):
                fail(f"{where} must be an object with from, to, fields, purpose and order")
            source, target = entry.get("from"), entry.get("to")
            for end, name in (("from", source), ("to", target)):
                if name not in nodes:
                    fail(f"{where} goes {end} '{name}', which is neither an actor nor a datastore",
                         f"actors: {', '.join(actors)}; datastores: {', '.join(stores)}")
            fields = entry.get("fields")
            if isinstance(fields, str):
                fields = [f.strip() for f in fields.split(",")]
            if not isinstance(fields, list) or not fields:
                fail(f"{where} carries no fields")
            action = str(entry.get("action", "") or "").lower()
            if action and action not in ACTIONS:
                fail(f"{where} has action '{action}', not one of {', '.join(ACTIONS)}")
            for name in fields:
                allowed = stores[source].schema if source in stores else known_fields | {
                    f + ANON for f in known_fields}
                if name not in allowed:
                    owner = f"datastore '{source}'s schema" if source in stores else "any schema"
                    fail(f"{where} carries field '{name}', which is not in {owner}",
                         f"known there: {', '.join(sorted(allowed))}")
            if action == "anon":
                if target not in stores:
                    fail(f"{where} is an anon step to '{target}', which is not a datastore")
                missing = [f + ANON for f in fields if f + ANON not in stores[target].schema]
                if missing:
                    fail(f"{where} writes {', '.join(missing)} to '{target}', whose schema lacks them")
            by = entry.get("by")
            if by is not None and by not in actors:
                fail(f"{where} is performed by '{by}', which is not an actor")
            try:
                order = int(entry.get("order", position))
            except (TypeError, ValueError):
                fail(f"{where} has order '{entry.get('order')}', not an integer")
            flows.append(Flow(order, source, target, tuple(fields), str(entry.get("purpose", "") or ""),
                              action, by, position))
        if not flows:
            fail("the model has no flows")
        access = {}
        for actor, fields in (data.get("access") or {}).items():
            if actor not in actors:
                fail(f"access rights given for '{actor}', which is not an actor")
            unknown = [f for f in fields if f not in known_fields and base_field(f) not in known_fields]
            if unknown:
                fail(f"access rights of '{actor}' name unknown field(s) {', '.join(unknown)}")
            access[actor] = set(fields)
        flows.sort(key=lambda f: (f.order, f.index))
        return cls(str(data.get("name", "") or Path(file).stem), list(actors), stores, flows, access, file)


def _flags(spec: FieldSpec) -> tuple[bool, bool, bool]:
    return spec.personal, spec.sensitive, spec.qi
