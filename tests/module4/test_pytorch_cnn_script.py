"""A second PyTorch script runs here with only its import line changed (issue
27): a small CNN trained with an LR scheduler and a frozen layer, ``train()`` /
``eval()``, a ``state_dict`` round trip through ``torch.save``/``torch.load``,
evaluation under ``no_grad`` and ``.to(device)`` calls. Given code, run on Task
4.6's layers: Task 4.6's marker."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pytorch_reference import import_torch

# Written for PyTorch; nothing below the first line is changed to run it here.
PYTORCH_SCRIPT = """\
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_images(n):
    # 1 x 8 x 8 images with a bright row (class 0) or column (class 1), in noise.
    labels = torch.randint(0, 2, (n,))
    rows = torch.randint(1, 7, (n,))
    images = 0.3 * torch.randn(n, 1, 8, 8)
    for i in range(n):
        k = int(rows[i])
        if labels[i].item() == 0:
            images[i, 0, k, :] += 1.5
        else:
            images[i, 0, :, k] += 1.5
    return images, labels


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(1, 6, kernel_size=3, padding=1),
            torch.nn.BatchNorm2d(6),
            torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),
        )
        self.classifier = torch.nn.Sequential(
            torch.nn.Flatten(),
            torch.nn.Dropout(0.1),
            torch.nn.Linear(6 * 4 * 4, 2),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


train_x, train_y = make_images(192)
test_x, test_y = make_images(64)

model = Net().to(device)
# The convolution plays a pretrained feature extractor: frozen.
for p in model.features[0].parameters():
    p.requires_grad = False
frozen_before = model.features[0].weight.detach().clone()
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.Adam(trainable, lr=0.05)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
criterion = torch.nn.CrossEntropyLoss()

history = []
for epoch in range(8):
    model.train()
    permutation = torch.randperm(len(train_x))
    total = 0.0
    for start in range(0, len(train_x), 32):
        batch = permutation[start:start + 32]
        inputs, targets = train_x[batch].to(device), train_y[batch].to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(batch)
    scheduler.step()
    history.append(total / len(train_x))
    lr = scheduler.get_last_lr()[0]
    message = f"epoch {epoch}: loss {history[-1]:.4f}, lr {lr:.4f}"

model.eval()
correct = 0
with torch.no_grad():
    for start in range(0, len(test_x), 16):
        inputs = test_x[start:start + 16].to(device)
        targets = test_y[start:start + 16].to(device)
        correct += (model(inputs).argmax(dim=1) == targets).sum().item()
accuracy = correct / len(test_x)
frozen_unchanged = torch.equal(model.features[0].weight, frozen_before)
frozen_grad = model.features[0].weight.grad

torch.save(model.state_dict(), PATH)
restored = Net()
restored.load_state_dict(torch.load(PATH))
restored = restored.to(device)
restored.eval()
with torch.no_grad():
    same = torch.allclose(restored(test_x.to(device)), model(test_x.to(device)))
    eval_output_requires_grad = model(test_x.to(device)).requires_grad
last_lr = scheduler.get_last_lr()[0]
"""


def _run(module_name: str, tmp_path) -> dict:
    lines = PYTORCH_SCRIPT.splitlines()
    assert lines[0] == "import torch"
    source = "\n".join([f"import {module_name} as torch"] + lines[1:])
    namespace = {"PATH": str(tmp_path / "cnn.pt")}
    exec(compile(source, "pytorch_cnn_script.py", "exec"), namespace)
    return namespace


def _check(namespace: dict) -> None:
    assert namespace["accuracy"] >= 0.9
    history = namespace["history"]
    assert history[-1] < 0.5 * history[0]
    assert bool(namespace["frozen_unchanged"]) and namespace["frozen_grad"] is None
    assert bool(namespace["same"])
    assert not namespace["eval_output_requires_grad"]
    assert namespace["last_lr"] == pytest.approx(0.05 * 0.5 ** (8 // 3))
    assert namespace["message"].startswith("epoch 7: loss ")
    # The frozen convolution stays out of the optimizer, as the script says.
    params = namespace["optimizer"].param_groups[0]["params"]
    assert len(params) == 4  # BatchNorm weight and bias, Linear weight and bias


@pytest.mark.task4_6
def test_a_pytorch_cnn_script_runs_with_only_the_import_changed(tmp_path):
    _check(_run("module4_networks", tmp_path))


def test_the_cnn_script_is_pytorch(tmp_path):
    """The same script and checks under PyTorch itself, where it is installed: the
    script is real PyTorch code and the checks are PyTorch's behaviour."""
    import_torch()
    namespace = _run("torch", tmp_path)
    _check(namespace)
    np.testing.assert_array_equal(
        namespace["frozen_before"].numpy(),
        namespace["model"].features[0].weight.detach().numpy(),
    )
