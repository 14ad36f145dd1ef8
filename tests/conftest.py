"""Shared test settings: no network, no analytics, and a fresh response cache per run.

The response cache lives in a temporary folder so that a test marked ``slow`` really asks
the local model instead of replaying an answer cached by an earlier run; the model weights
(``VGM_MODELS_DIR``) stay where ``vgm models install`` put them.
"""
import os
import tempfile

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("VGM_CACHE_DIR", tempfile.mkdtemp(prefix="vgm-test-cache-"))
