#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Run a command with its standard error on a pseudo-terminal (raw: no
# newline translation) and its standard output to a file; the bytes the
# terminal received go to a file. Exits with the command's status.
# Usage: on-tty.py COLS OUT ERR COMMAND...   (COLS 0: the terminal has no size)
# COLS may be FROM:TO: the terminal is resized from FROM to TO columns once
# the command has drawn something, as a window is: the command is stopped
# (SIGSTOP), what it wrote so far is read, the size set (TIOCSWINSZ) and
# SIGWINCH sent, then it continues; the number of bytes the terminal had
# before the resize goes to ERR.mark.
import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import tty


def size(fd, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24 if cols else 0, cols, 0, 0))


spec, out, err, cmd = sys.argv[1].split(":"), sys.argv[2], sys.argv[3], sys.argv[4:]
cols, resize = int(spec[0]), int(spec[1]) if len(spec) > 1 else None
master, slave = pty.openpty()
tty.setraw(slave)
size(slave, cols)
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
    if resize is not None and b"\r" in got:
        # Stopped, the command writes nothing more: all it wrote is
        # in the terminal's buffer, read here, before the resize.
        p.send_signal(signal.SIGSTOP)
        st = os.waitpid(p.pid, os.WUNTRACED)[1]
        if not os.WIFSTOPPED(st):
            # It ended before it stopped: no resize (no ERR.mark).
            p.returncode = os.waitstatus_to_exitcode(st)
            resize = None
            continue
        os.set_blocking(master, False)
        try:
            while b := os.read(master, 65536):
                got += b
        except BlockingIOError:
            pass
        os.set_blocking(master, True)
        with open(err + ".mark", "w") as m:
            print(len(got), file=m)
        size(master, resize)  # the master sets the size as well
        p.send_signal(signal.SIGWINCH)
        p.send_signal(signal.SIGCONT)
        resize = None
rc = p.wait()
with open(err, "wb") as e:
    e.write(got)
sys.exit(rc)
