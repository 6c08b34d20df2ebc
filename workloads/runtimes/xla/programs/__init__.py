"""The xla family: programs by name, each a function of its sizes returning (function,
example arguments), the same shape a user's FILE.py:NAME has."""

import importlib
import inspect

# name -> (module, function, the requirements group that installs what it imports)
PROGRAMS = {
    "gpt2-forward": ("gpt2", "gpt2_forward", "xla"),
    "gpt2-decode": ("gpt2", "gpt2_decode", "xla"),
    "gpt2-train": ("gpt2", "gpt2_train", "xla"),
    "penzai-llama-forward": ("penzai_models", "penzai_llama_forward", "xla-penzai"),
    "penzai-llama-decode": ("penzai_models", "penzai_llama_decode", "xla-penzai"),
    "penzai-gptneox-forward": ("penzai_models", "penzai_gptneox_forward", "xla-penzai"),
    "llama-decode": ("llama", "llama_decode", "xla"),
}


def get(name):
    module, function, _ = PROGRAMS[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), function)


def sizes(fn):
    """The sizes a program takes, with their defaults."""
    return {k: p.default for k, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty}
