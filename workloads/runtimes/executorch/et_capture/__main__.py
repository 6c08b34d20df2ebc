import logging
import sys

# torch's pytree warns once about an enum ExecuTorch registers: not the user's concern
logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)

from .cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
