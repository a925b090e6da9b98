"""A tournament entrant that writes down what it sees and how long it lives, for tests of the schedule's fairness.

It plays a random legal action. Its output folder is named on the script's first line, ``# out: FOLDER`` (an entrant
takes no arguments, and a bot sees its program file but not always the folder around it); the folder must be open to
the bots (tests/sandboxing.py). Each process writes, under a random name:

    NAME.jsonl   a line when it starts ({"start": t}), then one for the first decision of each hand it plays:
                 {"t": t, "seat": s, "name": its entrant's name, "hand_number": n, "cards": [...], "upcard": "JH"}
    NAME.alive   the time it was last seen alive, rewritten every 10 ms by a thread of its own

A copy of the script under another name is another entrant (its name is its file's stem).
"""

import json
import os
import threading
import time
from pathlib import Path

from arena.sdk import Bot, run

OUT = Path(Path(__file__).read_text().splitlines()[0].removeprefix("# out: "))
NAME = os.urandom(12).hex()


def _keep_alive(path: Path) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    while True:
        os.pwrite(fd, f"{time.time():020.6f}".encode(), 0)
        time.sleep(0.01)


class Witness(Bot):
    name = "witness"

    def __init__(self) -> None:
        super().__init__()
        self.log = open(OUT / f"{NAME}.jsonl", "a", buffering=1)  # noqa: SIM115 - for the life of the process
        self.log.write(json.dumps({"start": time.time()}) + "\n")
        self.seen: set[tuple[int, int]] = set()
        threading.Thread(target=_keep_alive, args=(OUT / f"{NAME}.alive",), daemon=True).start()

    def act(self, view, legal):
        games = self.table.game if self.table is not None else -1
        if (games, view.hand_number) not in self.seen:
            self.seen.add((games, view.hand_number))
            line = {
                "t": time.time(),
                "seat": view.seat,
                "name": self.table.players[view.seat] if self.table is not None else None,
                "hand_number": view.hand_number,
                "cards": [str(card) for card in view.hand],
                "upcard": str(view.upcard),
            }
            self.log.write(json.dumps(line) + "\n")
        return self.rng.choice(legal)


if __name__ == "__main__":
    run(Witness())
