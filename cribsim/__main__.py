import os
import sys

# ``python -m cribsim`` puts the working directory first on the module path (the console script
# ``cribsim`` does not): a stranger's ``yaml.py`` there would then shadow a module cribsim imports.
# Taken off before anything else is imported (cribsim/__init__.py imports nothing).
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from .cli.main import main  # noqa: E402

sys.exit(main())
