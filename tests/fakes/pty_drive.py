"""Runs a program in a pseudo-terminal, as a user at a terminal would: waits for each
expected text in its output, then types the answer. Prints the whole transcript and
exits with the program's exit status. Usage: pty_drive.py STEPS_JSON PROGRAM ARGS...
where STEPS_JSON is [[expected text, answer], ...]."""

import json
import os
import pty
import select
import sys

steps = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])

transcript = b""
seen = 0  # where in the transcript the next expected text is looked for


def read_some():
    global transcript
    ready, _, _ = select.select([fd], [], [], 120)
    if not ready:
        raise SystemExit("no output for 120 s:\n" + transcript.decode(errors="replace"))
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        chunk = b""
    transcript += chunk
    return chunk


for expected, answer in steps:
    while expected.encode() not in transcript[seen:]:
        if not read_some():
            sys.stdout.write(transcript.decode(errors="replace"))
            raise SystemExit(f"the program ended before '{expected}'")
    seen = transcript.index(expected.encode(), seen) + len(expected)
    os.write(fd, answer.encode())

while read_some():
    pass
_, status = os.waitpid(pid, 0)
sys.stdout.write(transcript.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))
