"""The JSON-lines talk of the long-running client scripts: say() prints one object at once, and
stdin closing is the test's signal to finish up."""
import json
import sys
import threading


def say(obj):
    print(json.dumps(obj), flush=True)


def stdin_closed():
    """An Event set when the test closes our stdin."""
    closed = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), closed.set()), daemon=True).start()
    return closed
