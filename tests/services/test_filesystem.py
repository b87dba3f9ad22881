"filesystem: every tool's success case and each error it can return; paths never leave the allowed directory."
import base64
import pytest
from sample_services.filesystem import service as svc
from svc_testkit import check_err, check_ok


@pytest.fixture(scope="module")
def s():
    return svc.initial_state(0)

def some_text(s): return next(f for f in s.files.values() if not f.binary and f.id.endswith(".md") and "/projects/" in f.id)
def some_png(s): return next(f for f in s.files.values() if f.binary)


def test_allowed_and_listing(s):
    assert check_ok(svc, s, "list_allowed_directories", {})[1] == [s.root]
    top = check_ok(svc, s, "list_directory", {"path": s.root})[1]
    assert top == sorted(top, key=lambda x: x.split(" ", 1)[1]) and "[FILE] todo.md" in top and "[DIR] projects" in top
    assert check_ok(svc, s, "list_directory", {"path": "."})[1] == top == check_ok(svc, s, "list_directory", {"path": "~"})[1]
    d = check_ok(svc, s, "list_directory_with_sizes", {"path": "data/exports", "sortBy": "size"})[1]
    sizes = [e["size"] for e in d["entries"]]
    assert sizes == sorted(sizes, reverse=True) and d["total_size"] == sum(sizes) and d["total_files"] == 30
    tree = check_ok(svc, s, "directory_tree", {"path": "data", "excludePatterns": ["*-0?.csv"]})[1]
    assert [e["name"] for e in tree] == ["exports"] and len(tree[0]["children"]) == 20

@pytest.mark.parametrize("tool,args,code,arg", [
    ("list_directory", {"path": "/etc"}, 422, "path"), ("list_directory", {"path": "../.."}, 422, "path"),
    ("list_directory", {"path": "nope"}, 404, "path"), ("list_directory", {"path": "todo.md"}, 422, "path"),
    ("list_directory_with_sizes", {"path": "nope"}, 404, "path"), ("directory_tree", {"path": "/tmp"}, 422, "path"),
    ("list_directory", {"path": " "}, 400, "path"), ("list_directory_with_sizes", {"path": ".", "sortBy": "date"}, 400, "sortBy")])
def test_listing_errors(s, tool, args, code, arg):
    check_err(svc, s, tool, args, code, arg)

def test_reading(s):
    f = some_text(s)
    assert check_ok(svc, s, "read_text_file", {"path": f.id})[1] == f.content == check_ok(svc, s, "read_file", {"path": f.id})[1]
    lines = f.content.splitlines(keepends=True)
    assert check_ok(svc, s, "read_text_file", {"path": f.id, "head": 2})[1] == "".join(lines[:2])
    assert check_ok(svc, s, "read_text_file", {"path": f.id, "tail": 1})[1] == lines[-1]
    assert check_ok(svc, s, "read_text_file", {"path": f.id, "tail": 0})[1] == ""
    many = check_ok(svc, s, "read_multiple_files", {"paths": [f.id, "nope.txt", some_png(s).id]})[1]
    assert many[0]["content"] == f.content and "no such file" in many[1]["error"] and "binary" in many[2]["error"]
    png = check_ok(svc, s, "read_media_file", {"path": some_png(s).id})[1]["content"][0]
    assert png["type"] == "image" and png["mimeType"] == "image/png" and base64.b64decode(png["data"]).startswith(b"\x89PNG")
    txt = check_ok(svc, s, "read_media_file", {"path": f.id})[1]["content"][0]
    assert txt["type"] == "resource" and base64.b64decode(txt["resource"]["blob"]).decode() == f.content

@pytest.mark.parametrize("tool,args,code,arg", [
    ("read_text_file", {"path": "nope.md"}, 404, "path"), ("read_text_file", {"path": "projects"}, 422, "path"),
    ("read_text_file", {"path": "/etc/passwd"}, 422, "path"), ("read_text_file", {"path": "todo.md", "head": 1, "tail": 1}, 422, "head"),
    ("read_text_file", {"path": "todo.md", "head": -1}, 422, "head"), ("read_file", {"path": "todo.md", "tail": -2}, 422, "tail"),
    ("read_media_file", {"path": "nope.png"}, 404, "path"), ("read_multiple_files", {"paths": []}, 422, "paths"),
    ("get_file_info", {"path": "nope"}, 404, "path")])
def test_reading_errors(s, tool, args, code, arg):
    check_err(svc, s, tool, args, code, arg)

def test_binary_text_read_is_refused(s):
    check_err(svc, s, "read_text_file", {"path": some_png(s).id}, 422, "path")

def test_search_and_info(s):
    readmes = check_ok(svc, s, "search_files", {"path": s.root, "pattern": "**/README.md"})[1]
    assert len(readmes) == 10 and readmes == sorted(readmes)
    assert check_ok(svc, s, "search_files", {"path": s.root, "pattern": "README.md"})[1] == readmes
    csv = check_ok(svc, s, "search_files", {"path": "data", "pattern": "*.csv", "excludePatterns": ["expenses-1*"]})[1]
    assert len(csv) == 20 and not any("expenses-1" in p for p in csv)
    check_err(svc, s, "search_files", {"path": s.root, "pattern": " "}, 422, "pattern")
    f = some_text(s)
    info = check_ok(svc, s, "get_file_info", {"path": f.id})[1]
    assert info["isFile"] and info["size"] == len(f.content.encode()) and info["modified"] == f.modified
    assert check_ok(svc, s, "get_file_info", {"path": "projects"})[1]["isDirectory"]
    assert check_ok(svc, s, "get_file_info", {"path": s.root})[1]["isDirectory"]

def test_write_and_create_directory(s):
    new, d = check_ok(svc, s, "write_file", {"path": "notes/new.txt", "content": "hello\n"})
    assert d == {"path": f"{s.root}/notes/new.txt", "bytes": 6, "created": True} and new.files[d["path"]].content == "hello\n"
    new2, d = check_ok(svc, new, "write_file", {"path": "notes/new.txt", "content": "bye\n"})
    assert not d["created"] and new2.files[d["path"]].created == new.files[d["path"]].created
    check_err(svc, s, "write_file", {"path": "no/such/dir/x.txt", "content": "x"}, 404, "path")
    check_err(svc, s, "write_file", {"path": "projects", "content": "x"}, 422, "path")
    check_err(svc, s, "write_file", {"path": "/etc/x", "content": "x"}, 422, "path")
    new, d = check_ok(svc, s, "create_directory", {"path": "a/b/c"})
    assert d["created"] == [f"{s.root}/a", f"{s.root}/a/b", f"{s.root}/a/b/c"]
    new2, d = check_ok(svc, new, "create_directory", {"path": "a/b"})
    assert d["created"] == []
    check_err(svc, s, "create_directory", {"path": "todo.md"}, 409, "path")
    check_err(svc, s, "create_directory", {"path": "todo.md/x"}, 409, "path")

def test_edit_file(s):
    new, d = check_ok(svc, s, "edit_file", {"path": "todo.md", "edits": [{"oldText": "# Todo", "newText": "# TODO"}], "dryRun": True})
    assert d["applied"] is False and "-# Todo" in d["diff"] and "+# TODO" in d["diff"] and new.files == s.files
    new, d = check_ok(svc, s, "edit_file", {"path": "todo.md", "edits": [{"oldText": "# Todo", "newText": "# TODO"}, {"oldText": "# TODO", "newText": "# Done"}]})
    assert new.files[f"{s.root}/todo.md"].content.startswith("# Done")
    for args, code, arg in [({"edits": [{"oldText": "absent", "newText": "x"}]}, 422, "edits.0.oldText"), ({"edits": []}, 422, "edits"),
                            ({"edits": [{"oldText": "", "newText": "x"}]}, 422, "edits.0.oldText"),
                            ({"edits": [{"old": "a", "newText": "x"}]}, 400, "edits.0.oldText")]:
        check_err(svc, s, "edit_file", {"path": "todo.md", **args}, code, arg)
    check_err(svc, s, "edit_file", {"path": some_png(s).id, "edits": [{"oldText": "a", "newText": "b"}]}, 422, "path")

def test_move_file(s):
    new, d = check_ok(svc, s, "move_file", {"source": "projects", "destination": "archive/projects"})
    n = sum(1 for k in s.files if k.startswith(f"{s.root}/projects/")) + sum(1 for k in s.directories if k.startswith(f"{s.root}/projects"))
    assert d["moved"] == n and not any(k.startswith(f"{s.root}/projects") for k in new.files)
    new, d = check_ok(svc, s, "move_file", {"source": "todo.md", "destination": "archive/todo-old.md"})
    assert new.files[f"{s.root}/archive/todo-old.md"].content == s.files[f"{s.root}/todo.md"].content
    for args, code, arg in [({"source": "nope", "destination": "x"}, 404, "source"), ({"source": "todo.md", "destination": "notes"}, 409, "destination"),
                            ({"source": "todo.md", "destination": "no/dir/x"}, 404, "destination"), ({"source": ".", "destination": "x"}, 422, "source"),
                            ({"source": "projects", "destination": "projects/inner"}, 422, "destination"), ({"source": "todo.md", "destination": "/tmp/x"}, 422, "destination")]:
        check_err(svc, s, "move_file", args, code, arg)
