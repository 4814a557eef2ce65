"""The child process that lays out the HTML written in the admin (layout.py says why a child),
run as `python -I layout_child.py <max CPU seconds> <max memory bytes>`. Isolated mode leaves
the environment out and the project off the path; the project's root is put back on it by hand
for layout.py and what it imports (page_text.py and the modules it names), so that the child
runs the same code as the process that lays out the shipped template, without Django or the
settings."""

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from notifications.documents.layout import child_main

    child_main(int(sys.argv[1]), int(sys.argv[2]))
