"""A PyTorch training script runs here with only its import line changed
(issue 13): model, loss, optimizer, scheduler, state_dict save/load and
evaluation under ``no_grad``. Given code, run on Task 4.6's layers: Task 4.6's marker.
"""

from __future__ import annotations

import numpy as np
import pytest

# Written for PyTorch; nothing below the first line is changed to run it here.
PYTORCH_SCRIPT = """\
import torch

torch.manual_seed(0)
n = 256
x = torch.randn(n, 2)
y = (x[:, 0] + 2 * x[:, 1] > 0.5).long()


def make_model():
    return torch.nn.Sequential(
        torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)
    )


model = make_model()
loss_fn = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=4, gamma=0.5)
losses = []
for epoch in range(12):
    model.train()
    permutation = torch.randperm(n)
    for start in range(0, n, 64):
        batch = permutation[start:start + 64]
        optimizer.zero_grad()
        loss = loss_fn(model(x[batch]), y[batch])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    scheduler.step()

torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, PATH)
checkpoint = torch.load(PATH)
restored = make_model()
restored.load_state_dict(checkpoint["model"])
optimizer2 = torch.optim.SGD(restored.parameters(), lr=0.2, momentum=0.9)
optimizer2.load_state_dict(checkpoint["optimizer"])

model.eval()
restored.eval()
with torch.no_grad():
    predictions = restored(x).argmax(dim=1)
    accuracy = (predictions == y).float().mean().item()
    same = (model(x) == restored(x)).all().item()
last_lr = scheduler.get_last_lr()[0]
"""


@pytest.mark.task4_6
def test_a_pytorch_training_script_runs_with_only_the_import_changed(tmp_path):
    lines = PYTORCH_SCRIPT.splitlines()
    assert lines[0] == "import torch"
    ours = "\n".join(["import module4_networks as torch"] + lines[1:])
    namespace = {"PATH": str(tmp_path / "checkpoint.pt")}
    exec(compile(ours, "pytorch_script.py", "exec"), namespace)
    assert namespace["accuracy"] > 0.9
    assert bool(namespace["same"])
    assert np.mean(namespace["losses"][-4:]) < 0.5 * np.mean(namespace["losses"][:4])
    assert namespace["last_lr"] == 0.2 * 0.5**3
    assert namespace["optimizer2"].param_groups[0]["lr"] == 0.2 * 0.5**3
    state = namespace["optimizer2"].state
    assert len(state) == 4 and all("momentum_buffer" in s for s in state.values())
