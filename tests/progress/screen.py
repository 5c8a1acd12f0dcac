#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# What a terminal shows after the bytes of ERR (carriage returns redraw a
# line, each character overwrites the one at the cursor), and what was
# drawn: every segment between two carriage returns (a line redrawn in
# place; what a newline ends is printed, not drawn).
#   screen.py show ERR      the screen's lines, trailing blanks dropped; a
#                           last line left with anything on it too
#   screen.py lines ERR     each drawn segment that is not all blanks,
#                           trailing blanks (over a longer one) dropped
#   screen.py cleared ERR   exit 0 when the bytes end with the cursor at the
#                           start of an empty line (nothing left drawn)
import sys

mode, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read().decode("utf-8", "replace")
lines, cur, pos = [], [], 0
segs, seg = [], None
for ch in data:
    if ch == "\r":
        if seg is not None:
            segs.append(seg)
        seg, pos = "", 0
    elif ch == "\n":
        lines.append("".join(cur).rstrip())
        seg, cur, pos = None, [], 0
    else:
        if pos < len(cur):
            cur[pos] = ch
        else:
            cur.append(ch)
        pos += 1
        if seg is not None:
            seg += ch
if seg is not None:
    segs.append(seg)
last = "".join(cur).rstrip()
if mode == "show":
    for line in lines + ([last] if last else []):
        print(line)
elif mode == "lines":
    for s in segs:
        if s.strip():
            print(s.rstrip())
elif mode == "cleared":
    sys.exit(0 if not last and pos == 0 else 1)
else:
    sys.exit(2)
