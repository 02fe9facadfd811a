"""Runs `brook serve` on a terminal of its own, hangs the terminal up once the broker listens, and
prints one JSON line: how the process ended within the time given, and the lock files left."""
import glob
import json
import os
import pty
import sys
import time

brook, data_dir, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
pid, terminal = pty.fork()
if pid == 0:
    os.execvp("node", ["node", brook, "serve", "--port", "0", "--data-dir", data_dir])
seen = b""
while b"brook listening on" not in seen:
    seen += os.read(terminal, 4096)
os.close(terminal)
deadline = time.time() + seconds
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        locks = sorted(os.path.basename(p) for p in glob.glob(os.path.join(data_dir, ".lock*")))
        print(json.dumps({"signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None, "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None, "locks": locks}))
        sys.exit(0)
    time.sleep(0.05)
os.kill(pid, 9)
print(json.dumps({"hung": True}))
