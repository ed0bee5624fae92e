# Loaded by every Jupyter server the tests start with Voila as its extension (dashboard_helpers.voila_env
# puts this folder on JUPYTER_CONFIG_PATH): counts each notebook Voila executes (tests/notebook_runs.py).
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import notebook_runs

notebook_runs.patch_voila()
