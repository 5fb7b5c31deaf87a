# torch loaded by importlib under a literal name, in a module that never imports it by statement
# (an optional-dependency device resolver): its torch.cuda calls are ported like an import's.
import importlib


def resolve_device():
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        return "cpu"
    if not torch.cuda.is_available():
        return "cpu"
    torch.cuda.empty_cache()
    return "gpu"
