"""The Gradio web app: Rate (blind study), Play (GM chat), Compare (MOE leaderboard), Beliefs (probe viewer).

``vgm ui [--study study.db]`` serves it on 127.0.0.1; from Python: ``create_app(study=...)``.
"""
from ._common import AppContext  # noqa: F401  (sets the offline environment before gradio loads)
from ._app import build_blocks, create_app, serve
from ._address import check_address
from ._table import Seats, TableFault, TableRoom, links_path
from ._table_app import create_table_app, serve_table

__all__ = ["AppContext", "build_blocks", "create_app", "serve",
           "TableRoom", "TableFault", "Seats", "links_path", "check_address", "create_table_app", "serve_table"]
