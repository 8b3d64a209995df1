"""A new method is its own file plus one line in the registry: a toy method added so, in a copy of
the engine, is found by the command line (``--method`` choices and ``--help``), by the Launch
form's method list (the page itself, through Streamlit's AppTest), by the list the parametrised
method tests iterate (``METHODS``) and, torch-free, with its label and citation
(``vocab.methods``), though nothing but its file says them."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

TOY = '''"""ToyFL: FedAvg's objective under another name, with one parameter (a test's method)."""
from dataclasses import dataclass

from .base import LocalObjective, param


@dataclass(frozen=True, kw_only=True)
class ToyParams:
    weight: float = param(0.5, help="a toy weight", max=1.0)


class Toy(LocalObjective):
    name = "toy"
    label = "ToyFL"
    Params = ToyParams
    citation = "Nobody, A Toy Method, 2026"
'''

PROBE = r'''
import contextlib, io, json, sys
import fedquad_core
out = {"engine": fedquad_core.__file__}
from fedquad_core.vocab.methods import method_words
out["torch_free"] = "torch" not in sys.modules
out["words"] = [method_words()["toy"].label, method_words()["toy"].citation]
from fedquad_core.cli.main import build_parser
parser = build_parser()
out["choices"] = parser.parse_args(["run", "--method", "toy"]).method
buf = io.StringIO()
with contextlib.redirect_stdout(buf), contextlib.suppress(SystemExit):
    parser.parse_args(["run", "--help"])
out["help"] = buf.getvalue()
from fedquad_core.methods import METHODS
out["parametrised"] = list(METHODS)
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=90)
at.run()
at.switch_page("views/launch.py")
at.run()
box = at.multiselect(key="l_methods")
out["launch"] = list(box.options)
box.set_value(["toy"]).run()
out["launch_exception"] = bool(at.exception)
out["subheaders"] = [s.value for s in at.subheader]
out["widget"] = any(w.key == "l_toy_weight" for w in at.main)
print("PROBE " + json.dumps(out))
'''


def _engine_with_toy(tmp_path: Path) -> Path:
    copy = tmp_path / "engine"
    shutil.copytree(ROOT / "fedquad_core", copy / "fedquad_core", ignore=shutil.ignore_patterns("__pycache__"))
    methods = copy / "fedquad_core" / "methods"
    (methods / "toy.py").write_text(TOY)
    registry = methods / "__init__.py"
    text = registry.read_text()
    assert "from .triplet import Triplet\n" in text and "Quadruplet, FedQuad)" in text
    text = text.replace("from .triplet import Triplet\n", "from .triplet import Triplet\nfrom .toy import Toy\n")
    registry.write_text(text.replace("Quadruplet, FedQuad)", "Quadruplet, FedQuad, Toy)"))  # the one registry line
    return copy


def test_a_toy_method_in_its_own_file_is_found_everywhere(tmp_path):
    copy = _engine_with_toy(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy), str(ROOT)]), "OMP_NUM_THREADS": "1",
           "FEDQUAD_RUNS_DIR": str(tmp_path / "runs")}
    run = subprocess.run([sys.executable, "-c", PROBE, str(ROOT / "app" / "main.py")], capture_output=True, text=True,
                         cwd=tmp_path, env=env, timeout=300)
    line = next((x for x in run.stdout.splitlines() if x.startswith("PROBE ")), None)
    assert line, run.stdout[-2000:] + run.stderr[-4000:]
    out = json.loads(line.removeprefix("PROBE "))
    assert Path(out["engine"]).is_relative_to(copy)  # the copy with the toy, not the checkout
    assert out["torch_free"] and out["words"] == ["ToyFL", "Nobody, A Toy Method, 2026"]
    assert out["choices"] == "toy" and "toy" in out["help"]
    assert out["parametrised"][-1] == "toy"
    assert out["launch"][-1] == "ToyFL" and not out["launch_exception"]  # the options as shown, by label
    assert "ToyFL parameters" in out["subheaders"]  # the form names it by the label its file gives
    assert out["widget"]  # and offers its parameter, from the metadata in its file


def test_the_checkout_has_no_toy():
    from fedquad_core.methods import METHODS
    from fedquad_core.vocab.methods import method_words
    assert "toy" not in METHODS and list(method_words()) == list(METHODS)
