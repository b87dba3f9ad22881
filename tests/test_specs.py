"Spec import: all 16 MCP files from ../shared, every quirk, errors that name server/tool/path, and scaffolds."
import copy, json, re
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis_jsonschema import from_schema
from compoworld_nb.core import state_hash
from compoworld_nb.specs import (SpecImportError, add_simulated_tools, conformance, explained, import_spec, import_tool,
                                 load_spec, restore_tool, scaffold_service, spec_slugs)

SLUGS = spec_slugs()
ALL = {slug: import_spec(slug) for slug in SLUGS}
BY = {slug: {t.name: t for t in ts} for slug, ts in ALL.items()}


def _walk(schema, path="$"):
    "Every (path, schema node) of a unified schema, following only schema-holding keys."
    yield path, schema
    if not isinstance(schema, dict): return
    for n, v in schema.get("properties", {}).items(): yield from _walk(v, f"{path}.properties.{n}")
    for k in ("items", "additionalProperties", "propertyNames"):
        if isinstance(schema.get(k), dict): yield from _walk(schema[k], f"{path}.{k}")
    for k in ("anyOf", "oneOf"):
        for i, b in enumerate(schema.get(k, [])): yield from _walk(b, f"{path}.{k}[{i}]")


# --- all 16 files ---------------------------------------------------------------------------------
def test_all_sixteen_files_import():
    assert len(SLUGS) == 16
    assert sum(len(v) for v in ALL.values()) == 318
    assert len({(s if s != "notion-wire" else "notion", t.name) for s, ts in ALL.items() for t in ts}) == 294
    for slug, ts in ALL.items():
        assert [t.name for t in ts] == [t["name"] for t in load_spec(slug)["tools"]]

@pytest.mark.parametrize("slug", SLUGS)
def test_no_silent_loss(slug):
    "The unified view plus the patch gives back the source tool exactly, and every change is noted."
    raw = load_spec(slug)["tools"]
    for it, src in zip(ALL[slug], raw):
        assert restore_tool(it) == src, it.name
        assert explained(it), it.name
        assert (not it.patch) == (it.unified_view() == src)

@pytest.mark.parametrize("slug", SLUGS)
def test_canonical_form(slug):
    "One type per schema, null only as the last anyOf/oneOf branch, no $ref/$defs/$schema/title keywords left."
    for it in ALL[slug]:
        f = it.function()
        assert f["type"] == "function" and re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", f["function"]["name"])
        p = it.parameters
        assert p["type"] == "object" and isinstance(p["properties"], dict) and isinstance(p["required"], list)
        assert "description" not in p
        for schema in [p] + ([it.output_schema] if it.output_schema else []):
            for path, node in _walk(schema):
                assert not ({"$ref", "$defs", "definitions", "$schema", "title", "nullable"} & set(node)), (it.name, path)
                assert not isinstance(node.get("type"), list), (it.name, path)
                for k in ("anyOf", "oneOf"):
                    if k in node:
                        assert {"type": "null"} not in node[k][:-1] and len(node[k]) >= 2, (it.name, path)
                if node.get("type") == "integer":
                    assert abs(node.get("minimum", 0)) != 2**53 - 1 and abs(node.get("maximum", 0)) != 2**53 - 1


# --- the quirks one by one ------------------------------------------------------------------------
def test_refs_inlined_wire_equals_inlined_file():
    wire, flat = BY["notion-wire"], BY["notion"]
    assert all("$defs" in load_spec("notion-wire")["tools"][i]["inputSchema"] for i in range(24))
    for name, t in flat.items():
        assert t.parameters == wire[name].parameters and t.json_text == wire[name].json_text
    assert any(n["kind"] == "ref_inlined" for n in wire["API-post-page"].notes)
    alerts = BY["weather-python"]["get_alerts"].output_schema        # $defs/$ref in an array-rooted output schema
    assert alerts["type"] == "array" and alerts["items"]["required"] == ["event", "area", "severity", "description", "instructions"]

def test_nullable_three_ways_one_form():
    want = {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}]}
    assert {k: v for k, v in BY["github"]["issue_write"].parameters["properties"]["type"].items() if k != "description"} == \
        {"anyOf": [{"minLength": 1, "type": "string"}, {"type": "null"}]}                      # anyOf with null (real)
    rich = BY["notion-wire"]["API-patch-block-children"].parameters                              # type array (real)
    assert '"link": {"type": ["object", "null"]}' in json.dumps(load_spec("notion-wire"))
    assert '"link": {"anyOf": [{"type": "object"}, {"type": "null"}]}' in json.dumps(rich)
    assert BY["trello"]["update_card_details"].parameters["properties"]["dueReminder"]["anyOf"] == [{"type": "integer"}, {"type": "null"}]
    for form in [{"anyOf": [{"type": "null"}, {"type": "string", "minLength": 1}]},          # all three written by hand
                 {"type": ["null", "string"], "minLength": 1},
                 {"type": "string", "minLength": 1, "nullable": True}]:
        t = import_tool({"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {"x": form}}}, "demo")
        assert t.parameters["properties"]["x"] == want, form
        assert restore_tool(t)["inputSchema"]["properties"]["x"] == form
    t = import_tool({"name": "t", "inputSchema": {"properties": {"x": {"type": "string", "nullable": False}}}}, "demo")
    assert t.parameters["properties"]["x"] == {"type": "string"}

def test_type_arrays_without_null():
    v = BY["github"]["issue_write"].parameters["properties"]["issue_fields"]["items"]["properties"]["value"]
    assert v["anyOf"] == [{"type": "string"}, {"type": "number"}, {"type": "boolean"}] and v["description"]

def test_json_text_in_string_parameters():
    pp = BY["notion"]["API-patch-page"]
    assert set(pp.json_text) == {"$.inputSchema.properties.properties", "$.inputSchema.properties.icon", "$.inputSchema.properties.cover"}
    assert pp.parameters["properties"]["icon"]["required"] == ["emoji"]
    ch = BY["notion"]["API-patch-block-children"]
    items = ch.parameters["properties"]["children"]["items"]                 # the block union itself, unwrapped
    assert "$.inputSchema.properties.children.items" in ch.json_text and [b["properties"]["type"]["enum"] for b in items["anyOf"]] == [["paragraph"], ["bulleted_list_item"]]
    ce = BY["google-calendar"]["create-event"]
    assert {"$.inputSchema.properties.start", "$.inputSchema.properties.end"} <= set(ce.json_text_hints)
    assert ce.parameters["properties"]["start"]["type"] == "string" and not ce.json_text    # the tool's own business
    le = BY["google-calendar"]["list-events"]
    assert "$.inputSchema.properties.calendarId" in le.json_text_hints
    assert [b["type"] for b in le.parameters["properties"]["calendarId"]["anyOf"]] == ["string", "array"]
    # only OpenAPI converters wrap: the same shape from a hand-written server is a real union
    t = import_tool({"name": "t", "inputSchema": {"properties": {"x": {"anyOf": [{"type": "object"}, {"type": "string"}]}}}}, "demo")
    assert t.parameters["properties"]["x"]["anyOf"] == [{"type": "object"}, {"type": "string"}] and not t.json_text

def test_keyword_named_properties():
    for name in ("API-patch-page", "API-post-page", "API-create-a-data-source"):
        assert "properties" in BY["notion"][name].parameters["properties"], name
    assert BY["notion"]["API-post-page"].parameters["properties"]["parent"]
    t = BY["filesystem"]["read_media_file"].output_schema
    branch = t["properties"]["content"]["items"]["anyOf"][1]
    assert branch["properties"]["type"] == {"type": "string", "const": "resource"}
    assert "title" in BY["linear"]["linear_create_issue"].parameters["properties"]          # a parameter named title survives
    assert "title" not in BY["weather-python"]["get_alerts"].parameters["properties"]["state"]   # a pydantic title goes

def test_names_kept_verbatim():
    assert "API-retrieve-a-page-property" in BY["notion"] and "list-events" in BY["google-calendar"]
    assert "get-alerts" in BY["weather-typescript"]
    camel = {p for t in ALL["github"] for p in t.parameters["properties"] if re.search(r"[a-z][A-Z]", p)}
    snake = {p for t in ALL["github"] for p in t.parameters["properties"] if "_" in p}
    assert {"perPage", "per_page"} <= camel | snake and "issue_number" in snake
    assert "account_id" in BY["google-calendar"]["manage-accounts"].parameters["properties"]

def test_root_descriptions_and_cleaned_docstrings():
    gm = ALL["gmail"]
    roots = [t for t in gm if any(n["kind"] == "root_description" for n in t.notes)]
    assert len(roots) == 10
    src = {t["name"]: t for t in load_spec("gmail")["tools"]}
    for t in roots: assert t.description == src[t.name]["description"]   # they repeat it: nothing appended
    fc = BY["weather-python"]["get_forecast"]
    assert not fc.description.endswith(" ") and "\n    Args" not in fc.description and "Args:" in fc.description
    t = import_tool({"name": "t", "description": "Do it.", "inputSchema": {"type": "object", "description": "More detail."}}, "demo")
    assert t.description == "Do it.\n\nMore detail." and restore_tool(t)["description"] == "Do it."

def test_output_schema_and_extra_keys_kept():
    mem = BY["memory"]["create_entities"]
    assert mem.output_schema["additionalProperties"] is False and mem.meta["execution"] == {"taskSupport": "forbidden"}
    assert set(mem.meta["annotations"]) >= {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
    src = {t["name"]: t for t in load_spec("github")["tools"]}
    icons = [t for t in ALL["github"] if "icons" in t.meta]
    metas = [t for t in ALL["github"] if "_meta" in t.meta]
    assert len(icons) == 6 and len(metas) == 5
    for t in icons + metas: assert {k: t.meta[k] for k in ("icons", "_meta") if k in t.meta} == {k: src[t.name][k] for k in ("icons", "_meta") if k in src[t.name]}
    assert BY["github"]["get_me"].read_only is True and BY["memory"]["create_entities"].read_only is False
    wt = BY["weather-typescript"]["get-alerts"].output_schema
    assert wt["properties"]["result"]["type"] == "array" and "$schema" not in json.dumps(wt)

def test_empty_properties_and_required():
    for slug, name in [("github", "get_me"), ("sqlite", "list_tables"), ("memory", "read_graph"), ("filesystem", "list_allowed_directories"),
                       ("gmail", "list_email_labels"), ("trello", "get_health")]:
        p = BY[slug][name].parameters
        assert p["properties"] == {} and p["required"] == [], (slug, name)
    assert any(n["kind"] == "required_added" for n in BY["slack"]["slack_list_channels"].notes)

def test_zod_integer_bounds_and_exclusive_minimum():
    assert BY["google-calendar"]["get-freebusy"].parameters["properties"]["groupExpansionMax"] == \
        {"description": "Maximum number of calendars to expand per group (max 100)", "type": "integer", "maximum": 100}
    ex = [(t.name, p) for t in ALL["trello"] for p, s in t.parameters["properties"].items() if "exclusiveMinimum" in json.dumps(s)]
    assert len(ex) == 1
    name, p = ex[0]
    sch = BY["trello"][name].parameters["properties"][p]
    assert '"exclusiveMinimum": 0' in json.dumps(sch)
    t = import_tool({"name": "t", "inputSchema": {"properties": {"x": {"type": "number", "minimum": 0, "exclusiveMinimum": True}}}}, "demo")
    assert t.parameters["properties"]["x"] == {"type": "number", "exclusiveMinimum": 0}


# --- what cannot be represented -------------------------------------------------------------------
def _tool(x, **extra): return {"name": "t-1", "description": "d", "inputSchema": {"type": "object", "properties": {"x": x}, **extra}}

@pytest.mark.parametrize("tool,path,words", [
    (_tool({"type": "dict"}), "$.inputSchema.properties.x.type", "unknown type 'dict'"),
    (_tool({"allOf": [{"type": "string"}, {"type": "integer"}]}), "$.inputSchema.properties.x.allOf[1].type", "allOf branches disagree"),
    (_tool({"not": {"type": "string"}}), "$.inputSchema.properties.x.not", "`not`"),
    (_tool({"type": "array", "items": [{"type": "string"}]}), "$.inputSchema.properties.x.items", "tuple arrays"),
    (_tool({"$ref": "https://example.com/s.json"}), "$.inputSchema.properties.x.$ref", "external $ref"),
    (_tool({"$ref": "#/$defs/Nope"}), "$.inputSchema.properties.x.$ref", "points at nothing"),
    (_tool({"type": "object", "if": {}}), "$.inputSchema.properties.x.if", "conditional"),
    (_tool({"type": ["string", "null"], "items": {}}), "$.inputSchema.properties.x.items", "applies to none of the types"),
    (_tool(False), "$.inputSchema.properties.x", "accepts nothing"),
    ({"name": "t-1", "inputSchema": {"type": "array"}}, "$.inputSchema", "one object schema"),
    ({"name": "has space", "inputSchema": {}}, "$.name", "not a valid function name"),
    (_tool({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"], "additionalProperties": False}),
     "$.inputSchema.properties.x.required", "not among the properties"),
])
def test_unrepresentable_raises_with_server_tool_path(tool, path, words):
    with pytest.raises(SpecImportError) as e: import_tool(tool, "acme")
    assert (e.value.server, e.value.path) == ("acme", path) and words in str(e.value)
    assert e.value.tool == tool["name"] and f"acme: tool {tool['name']!r} at {path}" in str(e.value)

def test_duplicate_tool_names_raise():
    spec = {"server": "acme", "tools": [{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]}
    with pytest.raises(SpecImportError, match=r"acme: tool 'a' at \$\.tools\[1\]\.name"): import_spec(spec, strict=True)
    its = import_spec(spec)                                   # not strict: the first is kept, the repeat reported
    assert [t.name for t in its] == ["a"] and [e.path for e in its.skipped] == ["$.tools[1].name"]

def test_errors_inside_real_files_name_the_real_place():
    spec = copy.deepcopy(load_spec("notion-wire"))
    spec["tools"][5]["inputSchema"]["$defs"]["richTextRequest"]["properties"]["text"]["properties"]["link"]["type"] = ["object", "dict"]
    with pytest.raises(SpecImportError) as e: import_spec(spec, strict=True)
    assert e.value.server == "notion-wire" and e.value.tool == "API-patch-block-children"
    its = import_spec(spec)                                           # not strict: the rest of the server imports
    assert len(its) == len(spec["tools"]) - 1 and [x.tool for x in its.skipped] == ["API-patch-block-children"]
    assert e.value.path.startswith("$.inputSchema.properties.children.items") and e.value.path.endswith(".link.type")
    assert "unknown type 'dict'" in str(e.value)


# --- scaffolds ------------------------------------------------------------------------------------
@pytest.mark.parametrize("slug", SLUGS)
def test_every_spec_scaffolds_with_every_tool_simulated(slug):
    svc = scaffold_service(slug)
    assert list(svc.tools) == [t.name for t in ALL[slug]]
    s = svc.initial_state(0)
    for name, tool in svc.tools.items():
        assert tool.simulated and tool.schema()["function"]["parameters"] == {**BY[slug][name].parameters, "additionalProperties": False}
        new, o = svc.call(s, name, {"not_a_parameter_of_any_tool": 1})
        assert new is s and o["error"]["code"] == 400
        assert o["error"]["argument"] == (tool.required[0] if tool.required else "not_a_parameter_of_any_tool")
        if not tool.required:
            new, o = svc.call(s, name, {})
            assert new is s and o["error"]["code"] == 501 and name in o["error"]["message"]

def test_scaffold_deterministic_tools_and_argument_checks():
    def create(state, args):
        state.counters = {**state.counters, "n": state.counters.get("n", 0) + 1}
        return {"got": args}
    svc = scaffold_service("google-calendar", implementations={"create-event": create}, domain="productivity & collaboration")
    assert not svc.tools["create-event"].simulated and svc.tools["list-events"].simulated
    s = svc.initial_state(3)
    args = {"calendarId": "primary", "summary": "Standup", "start": "2025-03-04T10:00:00", "end": "2025-03-04T10:15:00"}
    new, o = svc.call(s, "create-event", args)
    assert o == {"ok": True, "data": {"got": args}} and new.counters == {"n": 1} and s.counters == {}
    new, o = svc.call(s, "create-event", {**args, "colorId": None})          # null for an optional argument = not given
    assert o["data"]["got"] == args
    h = state_hash(s)
    for bad, arg in [({k: v for k, v in args.items() if k != "summary"}, "summary"), ({**args, "summary": 3}, "summary"),
                     ({**args, "account": "Not Valid!"}, "account"), ({**args, "reminders": {"useDefault": "yes"}}, "reminders")]:
        new, o = svc.call(s, "create-event", bad)
        assert new is s and o["error"]["code"] == 400 and o["error"]["argument"] == arg, o
    assert state_hash(s) == h
    with pytest.raises(KeyError, match="create-evnt"): scaffold_service("google-calendar", implementations={"create-evnt": create})

def test_scaffold_decodes_json_text_where_the_converter_wrapped():
    svc = scaffold_service("notion", implementations={"API-patch-page": lambda s, a: a, "API-patch-block-children": lambda s, a: a})
    s = svc.initial_state()
    _, o = svc.call(s, "API-patch-page", {"page_id": "p1", "icon": '{"emoji": "🎉"}', "properties": {"Name": {"title": []}}})
    assert o["data"]["icon"] == {"emoji": "🎉"} and o["data"]["properties"] == {"Name": {"title": []}}
    _, o = svc.call(s, "API-patch-page", {"page_id": "p1", "icon": "not json"})
    assert o["error"]["code"] == 400 and o["error"]["argument"] == "icon"
    _, o = svc.call(s, "API-patch-page", {"page_id": "p1", "icon": '{"emoji": 5}'})
    assert o["error"]["code"] == 400 and "icon.emoji" in o["error"]["message"]
    block = {"type": "paragraph", "paragraph": {"rich_text": [{"type": "text", "text": {"content": "hi"}}]}}
    _, o = svc.call(s, "API-patch-block-children", {"block_id": "b1", "children": [json.dumps(block)]})
    assert o["ok"] and o["data"]["children"] == [block]

def test_add_simulated_tools_fills_the_rest_of_a_spec():
    from sample_services.linear import service as linear
    svc = scaffold_service("gmail", implementations={"read_email": lambda s, a: a})
    svc.tools = {k: v for k, v in svc.tools.items() if not v.simulated}
    svc.spec = "gmail"
    added = add_simulated_tools(svc)
    assert len(added) == 18 and "read_email" not in added and len(svc.tools) == 19
    assert add_simulated_tools(svc) == []
    assert conformance(linear) == []

def test_library_services_conform():
    from sample_services import load_library
    for svc in load_library().values():
        if svc.spec: assert conformance(svc) == [], svc.name

_SMALL = [("time", "convert_time"), ("slack", "slack_post_message"), ("weather-typescript", "get-forecast"),
          ("trello", "update_card_details"), ("memory", "create_entities"), ("gitlab", "create_issue")]

@pytest.mark.parametrize("slug,name", _SMALL)
def test_scaffold_accepts_what_the_schema_accepts(slug, name):
    "Arguments generated from the unified schema never get a 400 (they reach the 501 of the simulated tool)."
    svc = scaffold_service(slug)
    s = svc.initial_state()
    schema = {**BY[slug][name].parameters, "additionalProperties": False}    # the project refuses unknown arguments

    @settings(max_examples=6, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(from_schema(schema))
    def check(args):
        from hypothesis import assume
        from compoworld_nb.service import bound_arguments
        assume(bound_arguments(args) is None)      # within the documented argument limits (ARG_LIMITS); beyond them is a 400
        _, o = svc.call(s, name, args)
        assert o["error"]["code"] == 501, (args, o)
    check()


# --- issue 21: schema shapes of servers the importer has never seen (written by us, modelled on published tool lists) ---
from hypothesis import given, settings, strategies as st
from compoworld_nb.specs import explained, restore_tool, scaffold_service

_FASTMCP_OUT = {"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"], "x-fastmcp-wrap-result": True}
CORPUS = {
    # FastMCP: vendor keywords in outputSchema, pydantic $defs/$ref, titles, anyOf with null, defaults
    "fastmcp_output_vendor": {"inputSchema": {"type": "object", "properties": {"q": {"type": "string", "title": "Q"}}, "required": ["q"]},
                              "outputSchema": _FASTMCP_OUT},
    "pydantic_defs_ref": {"inputSchema": {"type": "object", "$defs": {"Item": {"type": "object", "title": "Item", "properties": {
        "sku": {"type": "string"}, "qty": {"type": "integer", "default": 1}}, "required": ["sku"]}},
        "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}, "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}},
        "required": ["items"]}},
    "allof_objects": {"inputSchema": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                                                {"$ref": "#/$defs/B"}], "$defs": {"B": {"type": "object", "properties": {"b": {"type": "number"}}}}}},
    "oneof_null_mixed_enum_const": {"inputSchema": {"type": "object", "properties": {
        "mode": {"oneOf": [{"const": "fast"}, {"const": "slow"}, {"type": "null"}]}, "level": {"enum": [1, "high", None, True]},
        "kind": {"const": "k"}}}},
    "format_pattern_js": {"inputSchema": {"type": "object", "properties": {
        "when": {"type": "string", "format": "date-time"}, "date": {"type": "string", "pattern": "^(?<y>\\d{4})-(?<m>\\d{2})$"},
        "name": {"type": "string", "pattern": "^[\\p{L} ]+$"}}}},
    "prefix_items": {"inputSchema": {"type": "object", "properties": {"point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]}}}},
    "recursive_tree": {"inputSchema": {"type": "object", "$defs": {"Node": {"type": "object", "properties": {
        "label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}, "properties": {"root": {"$ref": "#/$defs/Node"}}}},
    "missing_type": {"inputSchema": {"properties": {"x": {"description": "anything"}, "y": {"enum": ["a", "b"]}}}},
    "vendor_everywhere": {"inputSchema": {"type": "object", "x-google-meta": {"a": 1}, "properties": {"x": {"type": "string", "x-order": 2,
        "examples": ["e"], "deprecated": False}}}, "annotations": {"readOnlyHint": True}, "_meta": {"x-vendor": 1}},
    "output_not_representable": {"inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "if": {}, "then": {}}},
}

def _corpus_spec(extra=()):
    return {"server": "corpus", "tools": [{"name": n, "description": n.replace("_", " "), **t} for n, t in CORPUS.items()] + list(extra)}

def test_corpus_of_real_world_shapes_imports_fully_and_restores_exactly():
    its = import_spec(_corpus_spec())
    assert [t.name for t in its] == list(CORPUS) and its.skipped == []
    by = {t.name: t for t in its}
    src = {t["name"]: t for t in _corpus_spec()["tools"]}
    for t in its:
        assert restore_tool(t) == src[t.name], t.name            # nothing is lost: the source comes back exactly
        assert explained(t), (t.name, t.patch, t.notes)          # every change is noted
    assert by["allof_objects"].parameters["properties"].keys() == {"a", "b"} and by["allof_objects"].parameters["required"] == ["a"]
    assert by["fastmcp_output_vendor"].output_schema == {k: v for k, v in _FASTMCP_OUT.items() if not k.startswith("x-")}
    assert by["output_not_representable"].output_schema is None and "output_schema_dropped" in {n["kind"] for n in by["output_not_representable"].notes}
    assert by["format_pattern_js"].parameters["properties"]["date"]["pattern"] == "^(?P<y>\\d{4})-(?P<m>\\d{2})$"
    assert "pattern" not in by["format_pattern_js"].parameters["properties"]["name"]
    assert by["prefix_items"].parameters["properties"]["point"] == {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
    assert by["recursive_tree"].parameters["properties"]["root"]["properties"]["children"]["items"] == {}

def test_every_imported_corpus_tool_is_callable_and_validates():
    "The scaffold of the corpus: every tool takes a valid call (patterns compile, schemas validate) and refuses a wrong type with a 400."
    svc = scaffold_service(_corpus_spec())
    s0 = svc.initial_state(0)
    assert sorted(svc.tools) == sorted(CORPUS)
    ok = {"format_pattern_js": {"date": "2025-03", "name": "Ünïcode name"}, "prefix_items": {"point": [1, 2]},
          "pydantic_defs_ref": {"items": [{"sku": "a"}]}, "fastmcp_output_vendor": {"q": "x"}, "allof_objects": {"a": "x", "b": 1.5}}
    for name, args in ok.items():
        o = svc.call(s0, name, args)[1]
        assert o["ok"] or o["error"]["code"] == 501, (name, o)     # simulated without a world model: 501, never 400/500
    assert svc.call(s0, "format_pattern_js", {"date": "25-3"})[1]["error"]["code"] == 400
    assert svc.call(s0, "prefix_items", {"point": [1, 2, 3]})[1]["error"]["code"] == 400

def test_one_odd_tool_never_blocks_the_rest_of_a_server():
    odd = [{"name": "odd_not", "inputSchema": {"type": "object", "properties": {"x": {"not": {"type": "string"}}}}},
           {"name": "bad name!", "inputSchema": {}}, {"name": "odd_array_root", "inputSchema": {"type": "array"}}]
    its = import_spec(_corpus_spec(odd))
    assert len(its) == len(CORPUS) and [(e.tool, e.path) for e in its.skipped] == [
        ("odd_not", "$.inputSchema.properties.x.not"), ("bad name!", "$.name"), ("odd_array_root", "$.inputSchema")]
    assert len(scaffold_service(_corpus_spec(odd)).tools) == len(CORPUS)
    with pytest.raises(SpecImportError): import_spec({"server": "s", "tools": odd})      # nothing imports: an error

@settings(max_examples=60, deadline=None)
@given(key=st.text(min_size=1, max_size=12).map(lambda k: "x-" + k), val=st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5), lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3), max_leaves=5),
    where=st.sampled_from(["root", "prop", "items", "output"]))
def test_vendor_keywords_anywhere_never_fail_an_import(key, val, where):
    schema = {"type": "object", "properties": {"x": {"type": "array", "items": {"type": "string"}}}}
    tool = {"name": "t", "inputSchema": copy.deepcopy(schema), "outputSchema": copy.deepcopy(schema)}
    node = {"root": tool["inputSchema"], "prop": tool["inputSchema"]["properties"]["x"], "items": tool["inputSchema"]["properties"]["x"]["items"],
            "output": tool["outputSchema"]}[where]
    node[key] = val
    it = import_tool(tool, "s")
    assert it.parameters["properties"]["x"] == {"type": "array", "items": {"type": "string"}}
    assert restore_tool(it) == tool and explained(it)


def test_a_live_server_tools_list_is_read_through_the_sdk_client():
    import sys
    from compoworld_nb.specs import server_spec
    import sample_services
    live = server_spec([sys.executable, "-m", "compoworld_nb.serve", "--services", "weather,crm"])
    lib = sample_services.load_library()
    assert live["server"] == "compoworld" and len(live["tools"]) == len(lib["weather"].tools) + len(lib["crm"].tools)
    its = import_spec(live)
    assert its.skipped == [] and {t.name for t in its} == {t["name"] for t in live["tools"]}
    one = next(t for t in its if t.name.startswith("weather__"))
    assert one.parameters == lib["weather"].tools[one.name.split("__", 1)[1]].parameters
    with pytest.raises(ValueError, match="could not be read"): server_spec([sys.executable, "-c", "print('not a server')"], timeout=30)
    with pytest.raises(ValueError, match="could not be read"): server_spec("http://127.0.0.1:9/mcp", timeout=30)
