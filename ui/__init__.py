"""Every user interface: the ``vgm`` command line (``ui.cli``: ``app``, ``main``) and the web app (``ui.web``)."""
