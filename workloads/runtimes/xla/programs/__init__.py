"""The xla family: programs by name, each a function of its sizes returning (function,
example arguments), the same shape a user's FILE.py:NAME has."""

from common.programs import getter

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
get = getter(__name__, PROGRAMS)
