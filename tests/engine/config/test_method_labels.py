"""The torch-free method words (``vocab.methods``, read from each method's own file) agree with the
method registry, and the dashboard's first modules import no torch."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fedquad_core.vocab.methods import citations, labels, method_label
from fedquad_core.methods import METHODS


def test_the_table_is_the_registrys_labels():
    assert labels() == {name: cls.label for name, cls in METHODS.items()}
    assert citations() == {name: cls.citation for name, cls in METHODS.items()}
    assert list(labels()) == list(METHODS)  # the registry's order (the sidebar lists them so)
    assert method_label("fedquad") == "FedQuad" and method_label("nope") == "nope"


def test_the_apis_methods_are_the_registrys():
    """``api.methods()``: one record per method, in the registry's order, its params the registry's."""
    import dataclasses

    from fedquad_core import api
    methods = api.methods()
    assert list(methods) == list(METHODS)
    for name, cls in METHODS.items():
        m = methods[name]
        assert (m.name, m.label, m.citation) == (name, cls.label, cls.citation)
        assert [p[:2] for p in m.params()] == [(f.name, f.default) for f in dataclasses.fields(cls.Params)]
    assert dict(methods["fedquad"].params()[0][2]) == dict(dataclasses.fields(METHODS["fedquad"].Params)[0].metadata)


def test_the_dashboards_first_modules_import_without_torch():
    code = ("import sys; import fedquad_core.vocab.methods, fedquad_core.config.stored, fedquad_core.api, app.service, app.studies.catalog, "
            "app.figures.study; print('torch' in sys.modules)")
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ["PYTHONPATH"]])})
    assert out.stdout.strip().splitlines()[-1] == "False", out.stdout + out.stderr
