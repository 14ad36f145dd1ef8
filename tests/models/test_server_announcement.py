"""Shared local servers are found only where they were announced (``VGM_RUNTIME_DIR``).

The test suite announces its servers in a folder of its own, so a run never queues behind the
busy server of another job of the same user.
"""
from __future__ import annotations

import http.server
import os
import threading

from pipelines.llm.serve import LocalServer, ServerConfig


class _Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server API
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_a_server_announced_in_one_runtime_folder_is_borrowed_there_and_not_elsewhere(tmp_path, monkeypatch):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)  # a healthy stand-in for llama.cpp's server
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        config = ServerConfig.for_model(tmp_path / "model.gguf", threads=1)
        monkeypatch.setenv("VGM_RUNTIME_DIR", str(tmp_path / "this-run"))
        ours = LocalServer(config)
        ours.pid, ours.base_url = os.getpid(), f"http://127.0.0.1:{httpd.server_address[1]}"
        ours.announce()
        borrower = LocalServer(config)
        assert borrower.borrow() and borrower.base_url == ours.base_url and not borrower.owned
        monkeypatch.setenv("VGM_RUNTIME_DIR", str(tmp_path / "another-job"))
        assert not LocalServer(config).borrow()
    finally:
        httpd.shutdown()
        httpd.server_close()
