"""The classes of the project's other modules, read with Python's ast (analysis/imported_classes.py)."""
from __future__ import annotations

import astroid

from npu_lint.analysis.imported_classes import class_of_receiver, imported_cuda_builder, modules_read


def _receiver(tree, user_text: str):
    user = tree / "pkg" / "user.py"
    user.write_text(user_text)
    module = astroid.parse(user_text, module_name="user", path=str(user))
    call = next(node for node in module.nodes_of_class(astroid.nodes.Call)
                if isinstance(node.func, astroid.nodes.Attribute) and node.func.attrname == "cuda")
    return class_of_receiver(call.func.expr)


def _package(tmp_path, classes_text: str, init_text: str = ""):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text(init_text)
    (package / "classes.py").write_text(classes_text)
    return tmp_path


def test_bases_are_read_through_the_modules_own_imports(tmp_path):
    tree = _package(tmp_path, "import torch.nn as tnn\nfrom torch.nn import Module as Base\n"
                              "class A(tnn.Module):\n    pass\nclass B(Base):\n    pass\n"
                              "class C(object):\n    pass\nclass D(A):\n    pass\nclass Module:\n    pass\n"
                              "class E(Module):\n    pass\n")
    found = {name: _receiver(tree, f"from pkg.classes import {name}\n{name}().cuda()\n") for name in "ABCDE"}
    assert found["A"].torch_module and found["B"].torch_module
    assert found["C"].plain and not found["C"].torch_module
    # a base of the project, or a class of its own named Module: neither plain nor torch's
    assert not (found["D"].plain or found["D"].torch_module)
    assert not (found["E"].plain or found["E"].torch_module)


def test_a_cuda_override_that_adds_nothing_is_no_override(tmp_path):
    tree = _package(tmp_path, "from torch import nn\n"
                              "class Plain(nn.Module):\n    def cuda(self, device=None):\n"
                              "        self.body.cuda(device)\n        return super().cuda(device)\n"
                              "class Teacher(nn.Module):\n    def cuda(self, device=None):\n"
                              "        self.teacher[0].cuda(device)\n        return super().cuda(device)\n")
    assert not _receiver(tree, "from pkg.classes import Plain\nm = Plain()\nm.cuda()\n").cuda_adds_work
    assert _receiver(tree, "from pkg.classes import Teacher\nTeacher().cuda()\n").cuda_adds_work


def test_one_reexport_is_followed_and_recorded(tmp_path):
    tree = _package(tmp_path, "class Trial(object):\n    def cuda(self):\n        return self\n",
                    init_text="from .classes import *\n")
    assert _receiver(tree, "from pkg import Trial\nTrial().cuda()\n").plain
    read = modules_read(str(tree / "pkg" / "user.py"), (tree / "pkg" / "user.py").read_bytes())
    assert read == sorted([str(tree / "pkg" / "__init__.py"), str(tree / "pkg" / "classes.py")])
    # no `.cuda(` in the text: nothing to read, nothing to record
    assert modules_read(str(tree / "pkg" / "user.py"), b"from pkg import Trial\n") == []


def test_a_library_or_an_unknown_name_is_no_project_class(tmp_path):
    tree = _package(tmp_path, "")
    assert _receiver(tree, "from torchvision.models import resnet18\nresnet18().cuda()\n") is None
    assert _receiver(tree, "from pkg.classes import Missing\nMissing().cuda()\n") is None


def test_a_class_that_compiles_cuda_when_made_is_a_builder(tmp_path):
    """ParlAI's `NGramRepeatBlock`: its `__init__` loads `.cu` sources; importing it builds nothing."""
    tree = _package(tmp_path, "import torch\nfrom torch.utils.cpp_extension import load\n"
                              "class Block(torch.nn.Module):\n    def __init__(self):\n"
                              "        self.ext = load(name='b', sources=['b.cpp', 'b_kernel.cu'])\n"
                              "class Host(torch.nn.Module):\n    def __init__(self):\n"
                              "        self.ext = load(name='h', sources=['h.cpp'])\n"
                              "def build():\n    return torch.utils.cpp_extension.load_inline('k', '', cuda_sources='')\n",
                    init_text="from .classes import Block\n")
    user_text = ("import torch\nfrom pkg import Block\nfrom pkg.classes import Host, build\n"
                 "if torch.cuda.is_available():\n    Block(), Host(), build()\n")
    user = tree / "pkg" / "user.py"
    user.write_text(user_text)
    module = astroid.parse(user_text, module_name="user", path=str(user))
    callees = {node.func.name: imported_cuda_builder(node.func) for node in module.nodes_of_class(astroid.nodes.Call)
               if isinstance(node.func, astroid.nodes.Name)}
    assert callees == {"Block": "Block", "Host": None, "build": "build"}
    # a CUDA test but no `.cuda(`: the modules are read, so the result cache records them
    read = modules_read(str(user), user.read_bytes())
    assert str(tree / "pkg" / "classes.py") in read


def test_a_base_that_stores_its_own_strings_names_those_attributes(tmp_path):
    """nlpaug 0.0.15's Augmenter: `self.device = device` of a parameter `device='cpu'` is the
    program's own string; an attribute also stored from anything else is not. A subclass's module
    that compares a quoted "cuda" reads the base's module, so a kept result goes stale with it."""
    tree = _package(tmp_path, "class Augmenter:\n"
                              "    def __init__(self, name, device='cpu', size=None):\n"
                              "        self.name = name\n        self.device = device\n"
                              "        self.kind = 'text'\n        self.size = size\n"
                              "    def bind(self, batch):\n        self.kind = batch.kind\n")
    found = _receiver(tree, "from pkg.classes import Augmenter\nAugmenter('a').cuda()\n")
    assert found.text_attributes == frozenset({"device"})
    user = tree / "pkg" / "flow.py"
    user.write_text("from pkg.classes import Augmenter\nclass Flow(Augmenter):\n"
                    "    def run(self):\n        return self.device == 'cuda'\n")
    assert modules_read(str(user), user.read_bytes()) == [str(tree / "pkg" / "classes.py")]


def test_a_model_stored_on_the_instance_and_a_base_from_a_star_import(tmp_path):
    """trankit 1.1.2: `self.model = None if flag else Seq2SeqModel(...)`, then `self.model.cuda()`;
    the class's module gets `nn` from a star import of the project's module that imports it."""
    tree = _package(tmp_path, "from .torch_imports import *\n"
                              "class Seq2Seq(nn.Module):\n    def cuda(self):\n"
                              "        super().cuda()\n        self.use_cuda = True\n")
    (tree / "pkg" / "torch_imports.py").write_text("import torch\nimport torch.nn as nn\n")
    user = ("from pkg.classes import Seq2Seq\nclass Trainer:\n    def __init__(self, flag):\n"
            "        self.model = None if flag else Seq2Seq()\n        self.model.cuda()\n")
    found = _receiver(tree, user)
    assert found.name == "Seq2Seq" and found.torch_module and found.cuda_adds_work
    read = modules_read(str(tree / "pkg" / "user.py"), user.encode())
    assert read == sorted([str(tree / "pkg" / "classes.py"), str(tree / "pkg" / "torch_imports.py")])
    # also stored from something else: not known to be that class
    assert _receiver(tree, user.replace("        self.model.cuda()\n",
                                        "        self.model.cuda()\n    def swap(self, m):\n"
                                        "        self.model = m\n")) is None
