"""A language server that misbehaves on purpose, for the edit-check tests.

It reports one warning when a file is opened, then, when the file
changes, either says nothing ("quiet"), exits ("crash"), or reports the
warning again at once ("echo": a server whose own time is nil, for the
benchmark). Standard library only; speaks LSP over stdio.
"""
import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "quiet"


def read():
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(msg):
    body = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


while True:
    msg = read()
    method = msg.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
    elif method == "exit":
        sys.exit(0)
    elif method == "textDocument/didOpen" or (method == "textDocument/didChange" and MODE == "echo"):
        doc = msg["params"]["textDocument"]
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
            "uri": doc["uri"], "version": doc["version"], "diagnostics": [{
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                "severity": 2, "message": "fake warning", "source": "fakels"}]}})
    elif method == "textDocument/didChange" and MODE == "crash":
        sys.exit(1)
    elif "id" in msg and method is not None:
        send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
