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
#   screen.py fits ERR FROM COLS
#                           the bytes from offset FROM on (after a resize to
#                           COLS columns): exit 1 if a segment, blanks
#                           included, is wider than COLS - 1, but for the
#                           first (a line drawn before the command saw the
#                           resize); prints the number of the others that
#                           are not all blanks (lines drawn at the new width)
import sys

mode, path = sys.argv[1], sys.argv[2]
raw = open(path, "rb").read()
if mode == "fits":
    raw = raw[int(sys.argv[3]):]
data = raw.decode("utf-8", "replace")
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
elif mode == "fits":
    cols, bad = int(sys.argv[4]), 0
    for s in segs[1:]:
        if len(s) > cols - 1:
            print("wider than %d columns: %r" % (cols - 1, s), file=sys.stderr)
            bad = 1
    print(sum(1 for s in segs[1:] if s.strip()))
    sys.exit(bad)
elif mode == "cleared":
    sys.exit(0 if not last and pos == 0 else 1)
else:
    sys.exit(2)
