#!/usr/bin/env python3
"""Prints every pair of core/ rooms that include each other (core/a includes core/b and core/b includes core/a) and
exits 1 when there is one. The rooms are layered (docs/architecture.md): a room includes only rooms below it, so
that each can be read, tested and changed without the ones above. Run by the core test tst_room_layers too."""
import collections
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "core")
edges = collections.defaultdict(set)
for folder, _, files in os.walk(root):
    room = os.path.relpath(folder, root).split(os.sep)[0]
    for name in files:
        if not name.endswith((".h", ".cpp")):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            for other, header in re.findall(r'#include "core/([^"/]+)/([^"]+)"', f.read()):
                if room not in (".", other):
                    edges[(room, other)].add(f"core/{os.path.relpath(os.path.join(folder, name), root)} -> "
                                             f"core/{other}/{header}")
cycles = sorted((a, b) for (a, b) in edges if (b, a) in edges and a < b)
for a, b in cycles:
    print(f"core/{a} <-> core/{b}:")
    for line in sorted(edges[(a, b)]) + sorted(edges[(b, a)]):
        print(f"  {line}")
sys.exit(1 if cycles else 0)
