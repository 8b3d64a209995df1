"""The engine runs where only torch, torchvision, numpy and scikit-learn exist (a GPU box)."""
import subprocess
import sys

from engine_helpers import tiny_config
from fedquad_core.train.client import TrainData, TrainSettings
from fedquad_core.train.rounds import ClientJob
from fedquad_core.train.runner import SequentialRunner, prepare

BLOCK = """
import importlib, pkgutil, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('streamlit', 'plotly', 'umap', 'kaleido', 'pandas', 'app'):
            raise ImportError('blocked UI import: ' + name)
sys.meta_path.insert(0, Block())
import fedquad_core
for m in pkgutil.walk_packages(fedquad_core.__path__, 'fedquad_core.'):
    if m.name.endswith(('study.ray', '__main__')):
        continue
    importlib.import_module(m.name)
from fedquad_core.cli import main
print('ok')
"""


def test_engine_imports_no_ui_library():
    proc = subprocess.run([sys.executable, "-c", BLOCK], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_moon_keeps_previous_models_only_for_clients_that_trained():
    cfg = tiny_config(method="moon", num_clients=6)
    prep = prepare(cfg)
    from fedquad_core.models import build_model
    import torch

    ds = prep.dataset
    model = build_model("mlp", ds.input_shape, ds.num_classes, proj_dim=16, generator=torch.Generator().manual_seed(0))
    data = TrainData(ds.x_train, ds.y_train, ds.prepare, ds.y_train.numpy(), ds.num_classes)
    runner = SequentialRunner(model, data, cfg, augment=False)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    jobs = [ClientJob(c, 1, prep.parts[c], (0, 1, c), {}) for c in (1, 4)]
    results = runner.run(jobs, state)
    assert [r.client_id for r in results] == [1, 4]
    for r in results:
        prev = r.state["prev_model"]
        assert all(v.device.type == "cpu" for v in prev.values())
        assert all(torch.equal(prev[k], r.weights[k]) for k in prev)
