#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Run a command with its standard error on a pseudo-terminal (raw: no
# newline translation) and its standard output to a file; the bytes the
# terminal received go to a file. Exits with the command's status.
# Usage: on-tty.py COLS OUT ERR COMMAND...   (COLS 0: the terminal has no size)
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import tty

cols, out, err, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
master, slave = pty.openpty()
tty.setraw(slave)
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24 if cols else 0, cols, 0, 0))
with open(out, "wb") as o:
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=o, stderr=slave)
os.close(slave)
got = bytearray()
while True:
    try:
        b = os.read(master, 65536)
    except OSError:  # EIO: every writer closed the terminal
        break
    if not b:
        break
    got += b
rc = p.wait()
with open(err, "wb") as e:
    e.write(got)
sys.exit(rc)
