"""A re-run Dask task hands on the games its earlier attempt delivered, even when they come through the queue after
the task has ended: the coordinator waits for them, so none is lost.

An attempt that died after sending some or all of its match's games (counted in the scheduler's metadata) leaves
them in the run's queue; here they are put there only once the re-run task has finished on the scheduler, as a
slow queue would bring them. ``DaskExecutor.run`` must return with every game of the match passed on, once each.
A ``LocalCluster`` in this process; the match is played by ``Replaying`` (no referee: what is tested is the
executor's bookkeeping).
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

import pytest
from configs import rerun_cluster

if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask") is None:
    pytest.skip("could not import 'distributed': the dask extra is not installed", allow_module_level=True)

pytestmark = pytest.mark.timeout(120)


class Replaying:
    """Plays no game: hands back a record for each game it is given."""

    given: list[list[int]] = []

    def run(self, spec: Any, on_game: Any) -> str | None:
        Replaying.given.append([game.seed for game in spec.games])
        for index, game in enumerate(spec.games):
            on_game({"game_index": index, "seed": game.seed})
        return None

    def cancel(self) -> None:
        """Nothing runs."""


@pytest.mark.parametrize("sent", [2, 4], ids=["half-sent", "all-sent"])
def test_games_of_an_earlier_attempt_that_arrive_after_the_rerun_ended_are_passed_on(tmp_path: Path, sent: int) -> None:
    from arena.tournament.dask_executor import DaskExecutor
    from arena.tournament.dask_worker import progress_key

    with rerun_cluster(tmp_path) as (spec, local_cluster, client):
        executor = DaskExecutor(client, pin=False, make_executor=Replaying)
        task = f"arena-{executor.run_id}-match-m1"
        ended = threading.Event()

        def deliver_late() -> None:
            """The earlier attempt's games, put in the queue once the re-run task has ended and its own games were
            passed on (or the run has returned), and a moment later: a run that does not wait for them is over."""
            scheduler = local_cluster.scheduler
            while not ended.is_set():
                state = scheduler.tasks.get(task)
                done = state is not None and state.state in ("memory", "erred")
                if done and len(games) == len(spec.games) - sent:
                    ended.wait(0.5)
                    break
                ended.wait(0.005)
            executor.queue.put(["m1", [[index, {"game_index": index, "seed": 10 + index}] for index in range(sent)]])

        games: list[Any] = []
        try:
            client.set_metadata(progress_key(executor.run_id, "m1"), sent)  # counted, not yet in the queue
            Replaying.given = []
            late = threading.Thread(target=deliver_late)
            late.start()
            error = executor.run(spec, games.append)
            passed_on = [(g["game_index"], g["seed"]) for g in games]  # as the run returned: what it will store
            ended.set()
            late.join()
        finally:
            executor.close()
    assert error is None
    assert Replaying.given == ([[12, 13]] if sent == 2 else [])  # the re-run played only the rest of the match
    assert sorted(passed_on) == [(0, 10), (1, 11), (2, 12), (3, 13)]  # every game, once each
