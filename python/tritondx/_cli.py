"""The `tritondx` console command of the package: runs the bundled engine with this Python as
the bridge's interpreter."""
import os
import sys

from tritondx import _engine


def main():
    try:
        binary = _engine.binary()
    except FileNotFoundError as e:
        print(f"tritondx: {e}", file=sys.stderr)
        return 3
    os.execve(str(binary), [str(binary), *sys.argv[1:]], _engine.environment())


if __name__ == "__main__":
    sys.exit(main())
