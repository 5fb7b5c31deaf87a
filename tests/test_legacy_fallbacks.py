"""The torch.cuda.amp fallback of an import from torch.amp runs only on a torch without that name."""
from __future__ import annotations

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine

# hivemind 1.1.12's optim/grad_scaler.py and espnet2's train/trainer.py, shortened
TEXT = """import torch
try:
    from torch.amp import GradScaler
except ImportError:
    from torch.cuda.amp import GradScaler
if hasattr(torch.amp, "autocast"):
    from torch.amp import autocast
else:
    from torch.cuda.amp import autocast
"""


def _codes(settings: Settings) -> list[tuple[int, str]]:
    return [(f.start.line, f.code) for f in Engine(settings).check_text(TEXT, "<string>").findings]


def test_the_newest_target_never_reaches_either_fallback():
    assert _codes(Settings()) == []


def test_torch_2_1_reaches_the_grad_scaler_fallback_only():
    # torch.amp.autocast is in torch 2.1, torch.amp.GradScaler came with torch 2.3
    assert _codes(Settings(target_torch_npu="2.1")) == [(5, "NPU101")]


# mergekit 0.1.5's common.py, shortened: torch.accelerator (torch 2.6) answers "npu" on an Ascend
# host, so the torch.cuda fallback runs only on an older torch. A name the table does not track
# (torch.xpu) says nothing about the target: its fallback stays a finding.
ACCELERATOR_TEXT = """import torch


def get_torch_accelerator_module():
    return (
        getattr(torch, torch.accelerator.current_accelerator().type)
        if hasattr(torch, "accelerator")
        else torch.cuda
    )


def get_torch_accelerator_type():
    if not hasattr(torch, "accelerator"):
        return "cuda"
    return torch.accelerator.current_accelerator().type


def get_xpu_or_cuda():
    return torch.xpu if hasattr(torch, "xpu") else torch.cuda
"""


def _accelerator_codes(settings: Settings) -> list[tuple[int, str]]:
    return [(f.start.line, f.code) for f in Engine(settings).check_text(ACCELERATOR_TEXT, "<string>").findings]


def test_the_newest_target_never_reaches_the_fallback_of_torch_accelerator():
    assert _accelerator_codes(Settings()) == [(19, "NPU101")]


def test_torch_2_1_reaches_the_fallback_of_torch_accelerator():
    assert _accelerator_codes(Settings(target_torch_npu="2.1")) == [(8, "NPU101"), (14, "NPU111"), (19, "NPU101")]


# open_clip 3.3's open_clip_train/main.py, shortened: the handler of a torch.amp call that falls
# back to its torch.cuda.amp twin runs only on a torch without torch.amp.GradScaler (torch 2.3).
SCALER_TEXT = """import torch


def resume(device, checkpoint):
    try:
        scaler = torch.amp.GradScaler(device=device)
    except (AttributeError, TypeError) as e:
        scaler = torch.cuda.amp.GradScaler()
    scaler.load_state_dict(checkpoint)
"""


def _scaler_codes(settings: Settings) -> list[tuple[int, str]]:
    return [(f.start.line, f.code) for f in Engine(settings).check_text(SCALER_TEXT, "<string>").findings]


def test_the_newest_target_never_reaches_the_fallback_of_a_torch_amp_call():
    assert _scaler_codes(Settings()) == []


def test_torch_2_1_reaches_the_fallback_of_a_torch_amp_call():
    assert _scaler_codes(Settings(target_torch_npu="2.1")) == [(8, "NPU101"), (9, "NPU105")]


# x-transformers 2.31's attend.py, shortened: torch_npu pins its torch, so the target decides a test
# of torch's version. The `else` runs only on a torch older than 2.3: with the newest target its
# torch.backends.cuda.sdp_kernel is no part of the port, and with torch_npu 2.1 (torch 2.1) the
# sdpa_kernel branch is the one never taken.
VERSION_TEXT = """import torch
from functools import partial
from packaging import version


class Attend:
    def __init__(self, flash, sdp_kwargs, sdpa_backends):
        torch_version = version.parse(torch.__version__)
        if self.flash:
            if torch_version >= version.parse('{since}'):
                self.sdp_context_manager = partial(torch.nn.attention.sdpa_kernel, sdpa_backends)
            else:
                self.sdp_context_manager = partial(torch.backends.cuda.sdp_kernel, **sdp_kwargs)
"""


def _version_codes(settings: Settings, since: str = "2.3") -> list[tuple[int, str]]:
    text = VERSION_TEXT.replace("{since}", since)
    return [(f.start.line, f.code) for f in Engine(settings).check_text(text, "<string>").findings]


def test_the_newest_target_never_takes_the_branch_of_an_older_torch_version():
    assert _version_codes(Settings()) == [(11, "NPU131")]


def test_torch_2_1_takes_the_branch_of_an_older_torch_version():
    assert _version_codes(Settings(target_torch_npu="2.1")) == [(13, "NPU131")]


def test_a_version_of_the_target_torch_s_own_minor_release_decides_nothing():
    # torch_npu 2.14.0 runs torch 2.14.x: a patch release or a local build could go either way
    assert _version_codes(Settings(), since="2.14") == [(11, "NPU131"), (13, "NPU131")]


def test_a_version_test_by_hand_decides_only_order_against_a_plain_version():
    from astroid import extract_node

    from npu_lint.analysis.torch_versions import decided

    cases = {
        'torch.__version__ >= "2.1"': True,  # TorchVersion compares with a string as a version
        'version.parse(version.parse(torch.__version__).base_version) < version.parse("2.0")': False,
        'not TORCH_2': False,
        'TORCH_2 and flash': None,
        'torch.__version__ < "1.9" or flash': None,
        'torch.__version__ == "2.1"': None,  # equality: a local build is another version
        'torch.__version__ >= "2.3.0rc1"': None,  # a pre-release is no plain version
        'numpy.__version__ >= "2.1"': None,
        'TORCH_VERSION < "2.0"': False,  # from torch import __version__ as TORCH_VERSION
    }
    for test, answer in cases.items():
        node = extract_node(f"""import torch, numpy
from torch import __version__ as TORCH_VERSION
from packaging import version
TORCH_2 = version.parse(torch.__version__) >= version.parse("2.0")
flash = True
{test}  #@
""")
        assert decided(node, None) is answer, test
