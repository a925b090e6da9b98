"""The sandbox against hostile bots: what a bot can learn, what it can use, what it leaves behind (SECURITY.md).

Real referees, real bot processes (tests/bots/hostile.py), no mocks. What a bot may see depends on the machine
(``arena.play.sandbox.capabilities``): the strongest assertions need root and namespaces, and are skipped elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from configs import games_per_seating, match_spec, tournament_config, write_config
from helpers import ROOT, SITE, checkout_open_to_others
from sandboxing import described, open_to_bots, started, still_running

from arena.cli import main
from arena.play import cgroups, forkserver, sandbox
from arena.play.botproc import BotCommand, BotProcess, BotStartError
from arena.play.matchspec import BotEntry, GameSpec, MatchSpec
from arena.play.referee import fitted_limits, run_match
from arena.play.sandbox import (
    Capabilities,
    Jail,
    Limits,
    capabilities,
    claim_uid,
    exposures,
    processes_of,
    sweep_uid,
    uid_range,
)
from arena.play.transport import Hub
from arena.tournament.config import ConfigError, TournamentConfig, bot_limits, load_config
from arena.tournament.growth import LEGACY
from arena.tournament.run import resolve_entrants, run_tournament
from arena.tournament.store import Store

BOTS = ROOT / "tests" / "bots"
HOSTILE = [sys.executable, str(BOTS / "hostile.py")]
RAW = [sys.executable, str(BOTS / "raw_random.py")]
CAPS = capabilities()
needs_root = pytest.mark.skipif(not CAPS.root, reason="bots get uids of their own only when the arena runs as root")
needs_view = pytest.mark.skipif(not (CAPS.root and CAPS.mount), reason="no private filesystem view on this machine")


def spare_uids(count: int) -> str:
    """``ARENA_UID_RANGE`` for ``count`` (at most 32) uids near the top of the range in use, where no bot of a
    concurrent test goes (each takes the first free uid): a block of 32 for each test process."""
    assert count <= 32
    first, size = uid_range()
    return f"{first + size - 32 * (1 + os.getpid() % 100)}:{count}"


def hostile(name: str, *args: str | Path) -> BotEntry:
    """A hostile.py bot with these arguments."""
    return BotEntry(name=name, argv=[*HOSTILE, *map(str, args)])


def match(
    tmp_path: Path, bots: list[BotEntry], seatings: list[list[int]], *, shared: bool = True, **settings: Any
) -> MatchSpec:
    """A two-hand match, one game per seating, its logs under ``tmp_path`` (where the bots may write if shared)."""
    limits = settings.pop("limits", None) or Limits()
    limits = open_to_bots(tmp_path, limits) if shared else limits
    return match_spec(bots, games_per_seating(seatings), tmp_path=tmp_path, limits=limits, **settings)


def log_of(spec: MatchSpec, b: int) -> str:
    """Everything bot ``b`` of the match wrote."""
    return (Path(spec.log_dir) / f"{spec.match_id}-bot{b}-{spec.bots[b].name}.log").read_text(errors="replace")


def report(spec: MatchSpec, b: int, tag: str) -> list[str]:
    """The lines ``tag: ...`` bot ``b`` printed, without the tag."""
    return [line.removeprefix(f"{tag}: ") for line in log_of(spec, b).splitlines() if line.startswith(f"{tag}: ")]


def gone(pid: int) -> bool:
    """Whether the process has exited (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def denied(outcome: str) -> bool:
    """Whether an attempt reported by a snooping bot failed for lack of access (not found counts: it is hidden)."""
    return not outcome.startswith("ok")


def digest(path: Path) -> str:
    """The sha256 of a file (to show it was not touched)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---- what a bot can learn ----


@pytest.fixture(scope="module")
def secrets_around(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Results a bot must not read, readable by everyone on the host: a database, a log, a record file."""
    folder = Path(tempfile.mkdtemp(prefix="arena-secrets-"))  # world-traversable, unlike pytest's own directories
    os.chmod(folder, 0o755)
    db = folder / "results.db"
    with Store.open(db):
        pass
    record = folder / "records.jsonl"
    record.write_text('{"hands": [{"deal": {"hands": [["JH", "JD"]]}}]}\n')
    log = folder / "logs" / "referee.log"
    log.parent.mkdir()
    log.write_text("seat 1 holds JH JD\n")
    for path in (db, record, log):
        os.chmod(path, 0o644)
    yield {"db": db, "record": record, "log": log, "folder": folder}
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module", params=["forked", "exec"])
def snooped(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, secrets_around: dict[str, Path]
) -> Iterator[tuple[MatchSpec, list[dict[str, Any]], list[dict[str, Any]]]]:
    """A match of two snooping bots, told where the secrets are; their reports, and the records. Twice: the bots
    forked by the fork server (how Python bots start), and started by fork and exec (every other bot)."""
    tmp = tmp_path_factory.mktemp("snoop")
    looks = [a for p in secrets_around.values() for a in ("--look", str(p))]
    looks += ["--look", str(tmp / "logs"), "--look", "/home", "--look", tempfile.gettempdir() + "/pytest-of-root"]
    bots = [hostile("north", "snoop", *looks), hostile("south", "snoop", *looks)]
    spec = match(tmp, bots, [[0, 1]], shared=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_FORK_SERVER", "1" if request.param == "forked" else "0")
        forked = forkserver.enabled()
        records = run_match(spec)
    reports = [json.loads(report(spec, b, "snoop")[-1]) for b in range(2)]
    assert all(seen["forked"] == forked for seen in reports)
    yield spec, records, reports


def test_a_snooping_bot_plays_on_and_is_charged_nothing(
    snooped: tuple[MatchSpec, list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    _, records, _ = snooped
    (record,) = records
    assert record["violations"] == [] and "forfeit" not in record


def test_a_bot_gets_only_the_documented_environment_its_own_directory_and_no_inherited_descriptors(
    snooped: tuple[MatchSpec, list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    _, _, reports = snooped
    allowed = {"ARENA_ENDPOINT", "ARENA_TOKEN", "PATH", "HOME", "TMPDIR", "LANG", "PYTHONUNBUFFERED", "PYTHONPATH"}
    for seen in reports:
        assert {"ARENA_ENDPOINT", "ARENA_TOKEN", "HOME"} <= set(seen["env"]) <= allowed
        assert seen["home_is_cwd"]
        assert seen["write_home"] == "ok"
        assert seen["fds_at_start"] == [0, 1, 2, 3]  # 3 is the listing's own descriptor
    assert reports[0]["cwd"] != reports[1]["cwd"]


def test_a_bot_runs_under_the_configured_limits(
    snooped: tuple[MatchSpec, list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    spec, _, reports = snooped
    mib, limits = 1024 * 1024, spec.limits
    for seen in reports:
        got = seen["limits"]
        if cgroups.detect().available:  # memory is its cgroup's: no address-space limit to stop a JVM or Node
            assert got["AS"] == [resource.RLIM_INFINITY] * 2
        else:
            assert got["AS"] == [limits.address_space_mb * mib] * 2
        assert got["CPU"] == [limits.cpu_seconds, limits.cpu_seconds + 1]
        assert got["FSIZE"] == [limits.file_size_mb * mib] * 2
        assert got["NOFILE"] == [fitted_limits(spec).open_files] * 2  # at most the spec's: what the referee can hold
        assert fitted_limits(spec).open_files <= limits.open_files
        assert got["CORE"] == [0, 0]
        if CAPS.root:
            assert got["NPROC"] == [limits.processes] * 2


@needs_root
def test_each_bot_runs_under_a_uid_of_its_own_that_cannot_touch_the_referee(
    snooped: tuple[MatchSpec, list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    _, _, reports = snooped
    uids = [seen["uid"] for seen in reports]
    first, count = uid_range()
    assert all(first <= uid < first + count for uid in uids) and uids[0] != uids[1]
    for seen in reports:
        assert seen["gid"] == seen["uid"] and seen["groups"] == []
        # it may not even signal the referee (in a pid namespace of its own it cannot even name it)
        assert seen["signal_parent"].startswith(("PermissionError", "hidden"))
        assert all(denied(outcome) for outcome in seen["parent"].values())  # no /proc/PID/mem, environ, ...
        assert seen["foreign_tokens"] == 0


@needs_root
def test_a_bot_cannot_reach_another_bots_endpoint_or_list_the_matchs_directory(
    snooped: tuple[MatchSpec, list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    _, _, reports = snooped
    for seen in reports:
        assert seen["other_endpoints"] and all(denied(o) for o in seen["other_endpoints"].values())
        assert denied(seen["endpoint_dir"])
        assert "ep0" not in seen["match_dir"] or "ep1" not in seen["match_dir"]


@needs_view
def test_a_bot_sees_no_other_process_no_results_no_logs_no_records_and_no_homes(
    snooped: tuple[MatchSpec, list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    spec, _, reports = snooped
    for seen in reports:
        assert len(seen["pids"]) == 1  # itself: /proc shows nothing else
        assert seen["look"] and all(denied(outcome) for outcome in seen["look"].values()), seen["look"]
        assert seen["write_tmp"] == "ok"  # its private /tmp
    assert spec.log_dir in reports[0]["look"]


@pytest.mark.skipif(not CAPS.network, reason="no network namespaces on this machine")
def test_a_bot_has_no_network(snooped: tuple[MatchSpec, list[dict[str, Any]], list[dict[str, Any]]]) -> None:
    _, _, reports = snooped
    for seen in reports:
        assert denied(seen["network"]) and denied(seen["loopback"]) and denied(seen["abstract"])


def test_bot_logs_are_private_to_the_referees_user(
    snooped: tuple[MatchSpec, list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    spec, _, _ = snooped
    logs = list(Path(spec.log_dir).glob(f"{spec.match_id}-bot*.log"))
    assert len(logs) == 2 and all(p.stat().st_mode & 0o077 == 0 for p in logs)


# ---- what a bot can use, and what it leaves behind ----

# mode and its arguments, limits, match settings, the violation kind in game 0 (None: none), what its log must say
MEMORY_KIND = "memory" if cgroups.detect().available else "crash"
ZOO: list[Any] = [
    pytest.param(["fork-bomb"], Limits(processes=24), {}, None, "fork-bomb", id="fork-bomb"),
    # with a cgroup the kernel kills it at its limit (``memory``); without, its allocations fail (``MemoryError``)
    pytest.param(["hog"], Limits(memory_mb=256, address_space_mb=256), {}, MEMORY_KIND, "hog", id="memory-hog"),
    # a clock far longer than its CPU second: on a loaded machine the hog may get a fifth of a core (5 s: a timeout)
    pytest.param(
        ["cpu-hog"],
        Limits(cpu_seconds=1),
        {"time": "60+1", "max_decision": 60.0},
        "crash",
        None,
        id="cpu-hog",
        marks=pytest.mark.slow,
    ),
    # an increment: with "1+0" a whole game had to fit in a second, 65 decisions a seat (20 ms here, more when loaded)
    pytest.param(["late", "--delay", "2"], None, {"time": "1+0.1"}, "timeout", None, id="sleeps-past-its-bank"),
    pytest.param(["wrong-phase"], None, {}, "illegal", None, id="acts-for-another-phase"),
    pytest.param(["escape"], None, {}, None, None, id="escapes-its-session"),
    pytest.param(["crash", "--act", "7"], None, {}, "crash", None, id="crashes-mid-hand"),
]


@pytest.mark.parametrize(("args", "limits", "settings", "kind", "tag"), ZOO)
def test_a_hostile_bot_gets_its_documented_outcome_and_leaves_nothing_running(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    limits: Limits | None,
    settings: dict[str, Any],
    kind: str | None,
    tag: str | None,
) -> None:
    monkeypatch.setenv("ARENA_UID_RANGE", spare_uids(16))  # its uids are no concurrent test's bots' once given back
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    bots = [hostile("innocent", "polite"), hostile("hostile", *args, "--pid-dir", pid_dir)]
    spec = match(tmp_path, bots, [[0, 1], [1, 0]], limits=limits, **settings)
    records = run_match(spec)
    first, second = records
    if kind is None:
        assert first["violations"] == [] and "forfeit" not in first
    else:
        assert first["forfeit"]["seat"] == 1 and first["forfeit"]["kind"] == kind
        assert {(v["seat"], v["kind"]) for v in first["violations"]} == {(1, kind)}
    assert second["violations"] == [] and "forfeit" not in second  # the match goes on (restarted where needed)
    assert all(entry["strikes"] == 0 for r in records for entry in r["bots"] if entry["name"] == "innocent")
    if args[0] == "fork-bomb":
        (line,) = report(spec, 1, tag or "")
        if CAPS.root and CAPS.hidepid:  # it sees its own tasks only: bounded by its uid's process limit
            assert 3 < int(line.split()[0]) <= spec.limits.processes
    if args[0] == "hog" and MEMORY_KIND == "crash":  # refused at its address-space limit, it said how far it got
        assert all(int(line.split()[2]) < 256 for line in report(spec, 1, "hog"))
    if args[0] == "cpu-hog":
        assert "SIGXCPU" in first["forfeit"]["detail"] or "SIGKILL" in first["forfeit"]["detail"]
    processes = started(pid_dir)
    assert len(processes) >= (2 if args[0] == "escape" else 1)
    assert still_running(processes) == []
    if CAPS.root:  # nothing at all runs under the uids its processes had (forks included)
        assert [processes_of(uid) for uid in set(processes.values())] == [[]] * len(set(processes.values()))


@pytest.mark.slow
def test_a_tournament_with_a_hostile_entrant_plays_the_other_games_as_without_it(tmp_path: Path) -> None:
    """A fork bomb that also spins a CPU, in parallel with the other entrants' match (jobs 2 on two cores).

    A gauntlet of heuristic against the others: the menace meets heuristic alone, in both seatings, where a
    round-robin also played it against random, which proved the same again at a core a match for its spinning thread
    (measured here: the test took 8 processor seconds with four matches of the menace, 5 with two, 3 of them the
    menace's own). The menace plays at once (no second's wait for its bomb to fill up) and its spinner lets its own
    play have the GIL within 0.5 ms: its four games took 7 s, where the other match took 0.6 s, its spinner's core all
    along; it still spins a core from its start, beside that match as before, and forks without end all through."""
    folder = tmp_path / "entrants"
    folder.mkdir()
    wrapper = folder / "menace.py"
    wrapper.write_text(
        "import runpy, sys\n"
        f"sys.argv = [{str(BOTS / 'hostile.py')!r}, 'fork-bomb', '--spin', '--settle', '0']\n"
        f"runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    limits = Limits(processes=16, memory_mb=512, readable=(str(BOTS),))

    def play(entrants: list[str], name: str) -> dict[str, dict[str, Any]]:
        config = tournament_config(
            name=name, entrants=entrants, games_per_pairing=2, games_per_match=4, seed=5, jobs=2, limits=limits,
            format="gauntlet", candidate="heuristic",
        )  # fmt: skip
        with Store.open(tmp_path / f"{name}.db") as store:
            run = run_tournament(
                config, store, resolve_entrants(entrants), jobs=2, log_dir=str(tmp_path / f"{name}-logs")
            )
            assert run.errors == []
            return {key: record for _, key, record in store.records()}

    calm = play(["heuristic", "random"], "calm")
    rough = play(["heuristic", "random", str(wrapper)], "rough")
    assert len(calm) == 4 and len(rough) == 8  # heuristic against random, then against the menace: 2 deals, 2 seatings
    for key, record in calm.items():
        other = rough[key]
        assert other["hands"] == record["hands"] and other["winners"] == record["winners"]
        assert other["violations"] == record["violations"] == []
    menace = [r for k, r in rough.items() if "menace" in k]
    assert len(menace) == 4 and all(r["violations"] == [] for r in menace)  # bounded, it still plays


# ---- bad input at the command line: one clear line, no traceback, nothing overwritten ----


def tournament_file(tmp_path: Path, entrants: list[str] | None = None, **keys: Any) -> Path:
    return write_config(tmp_path / "t.toml", entrants=entrants or ["random", "heuristic"], games_per_pairing=1, **keys)


def foreign_database(path: Path) -> None:
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO customers (name) VALUES ('ada')")


def corrupted_database(path: Path) -> None:
    with Store.open(path):
        pass
    data = bytearray(path.read_bytes())
    data[100:4096] = os.urandom(3996)  # the schema page
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("setup", "config_keys", "entrants", "message"),
    [
        pytest.param(corrupted_database, {}, None, "corrupted", id="corrupted-database"),
        pytest.param(foreign_database, {}, None, "not a Euchre Arena database", id="database-from-something-else"),
        pytest.param(None, {"colour": "red"}, None, "unknown key 'colour'", id="unknown-config-key"),
        pytest.param(None, {"limits": {"memory_mb": "lots"}}, None, "limits.memory_mb", id="bad-limit"),
        pytest.param(None, {"limits": {"readable": ["data"]}}, None, "not an absolute path", id="relative-path"),
        pytest.param(None, {}, ["random", "no-such-bot"], "no bot 'no-such-bot'", id="unknown-bot"),
    ],
)
def test_bad_input_is_one_clear_error_and_nothing_is_overwritten(
    tmp_path: Path, setup: Any, config_keys: dict[str, Any], entrants: list[str] | None, message: str
) -> None:
    config = tournament_file(tmp_path, entrants, **config_keys)
    db = tmp_path / "t.db"
    if setup is not None:
        setup(db)
    before = {p.name: digest(p) for p in tmp_path.iterdir() if p.is_file()}
    result = CliRunner().invoke(main, ["tournament", "run", str(config), "--db", str(db), "--quiet"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert message in result.output and result.output.startswith("Error: ")
    assert len(result.output.strip().splitlines()) == 1
    assert {name: digest(tmp_path / name) for name in before} == before


# ---- the pieces ----


def test_limits_come_from_the_config_and_default_limits_keep_old_fingerprints(tmp_path: Path) -> None:
    path = tournament_file(tmp_path, limits={"memory_mb": 512, "processes": 8})
    config = load_config(path)
    assert bot_limits(config.limits) == Limits(memory_mb=512, processes=8)
    # a config as a results file of those days was played (growth.settle_seed: the defaults of then, where they
    # have changed since)
    plain = TournamentConfig(name="x", entrants=["a", "b"]).model_copy(update=LEGACY)
    added_later = {"limits", "max_hands", "trusted_bots", "format", "candidate", "executor", "deals"}
    added_later |= {"handshake_timeout"}
    old_fields = plain.model_dump(exclude={"jobs", "pin", "rating", "drop_page_cache"} | added_later)
    before_limits = json.dumps(old_fields, sort_keys=True)
    assert plain.fingerprint() == hashlib.sha256(before_limits.encode()).hexdigest()[:16]  # as before these existed
    assert TournamentConfig(name="x", entrants=["a", "b"], limits=Limits(cpu_seconds=5)).fingerprint() != (
        plain.fingerprint()
    )
    with pytest.raises(ConfigError, match=r"limits\.colour"):
        load_config(tournament_file(tmp_path, limits={"colour": 1}))


def test_a_bot_may_reach_its_runtime_program_and_endpoint_and_nothing_of_the_results(tmp_path: Path) -> None:
    program = BOTS / "hostile.py"
    (tmp_path / "ep0").mkdir()
    paths = dict(exposures((sys.executable, str(program)), f"ipc://{tmp_path}/ep0/bot0.sock", Limits()))
    assert str(BOTS) in paths and paths[str(BOTS)] is False
    assert os.path.realpath(sys.base_prefix) in paths
    assert str(tmp_path / "ep0") in paths
    root = ROOT
    assert str(root) not in paths and str(root / "tournaments") not in paths
    script = Path(tempfile.gettempdir()) / "lonely_bot.py"
    script.write_text("pass\n")
    try:  # a program in /tmp itself exposes that file, not the host's /tmp
        paths = dict(exposures((sys.executable, str(script)), "", Limits(writable=(str(tmp_path),))))
        assert os.path.realpath(script) in paths and tempfile.gettempdir() not in paths
        assert paths[str(tmp_path)] is True
    finally:
        script.unlink()


def test_a_match_directory_left_by_a_killed_referee_is_removed_by_the_next_one() -> None:
    stale, reused, alive = (Path(tempfile.mkdtemp(prefix="arena-")) for _ in range(3))
    dead = subprocess.Popen(["true"])
    dead.wait()
    (stale / "referee").write_text(f"{dead.pid} 1")  # that pid, started at boot: gone
    start = Path(f"/proc/{os.getpid()}/stat").read_bytes().rsplit(b")", 1)[1].split()[19].decode()
    (reused / "referee").write_text(f"{os.getpid()} 1")  # a referee whose pid is now this process's (pid reuse)
    (alive / "referee").write_text(f"{os.getpid()} {start}")
    try:
        hub = Hub()
        hub.close()
        assert not stale.exists() and not reused.exists() and alive.exists() and not Path(hub.directory).exists()
    finally:
        for folder in (alive, reused, stale):
            shutil.rmtree(folder, ignore_errors=True)


@needs_root
def test_bot_uids_are_exclusive_while_held_and_reusable_after() -> None:
    held = [claim_uid() for _ in range(3)]
    try:
        assert len({i.uid for i in held}) == 3
    finally:
        for identity in held:
            identity.release()


@needs_root
def test_a_bot_takes_the_first_free_uid_so_a_host_uses_no_more_uids_than_it_runs_bots_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_UID_RANGE", spare_uids(8))
    first, _ = uid_range()
    held: list[sandbox.Identity] = []
    try:
        held += [claim_uid() for _ in range(3)]
        assert [i.uid for i in held] == [first, first + 1, first + 2]
        held[1].release(clean=True)
        held[1] = claim_uid()
        assert held[1].uid == first + 1  # the hole, not a uid no bot had yet (and its keyrings for ever)
    finally:
        for identity in held:
            identity.release(clean=True)


@needs_root
def test_only_a_uid_not_given_back_clean_is_looked_for_in_proc_at_its_claim(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_UID_RANGE", spare_uids(1))
    looked: list[int] = []

    def counted(uid: int) -> list[int]:
        looked.append(uid)
        return processes_of(uid)

    monkeypatch.setattr(sandbox, "processes_of", counted)
    identity = claim_uid()  # looks or not, as the last test to use the uid left it
    try:
        identity.release(clean=True)
        looked.clear()
        identity = claim_uid()
        assert looked == []
        identity.release()  # as a referee that dies holding it gives it back
        identity = claim_uid()
        assert looked == [identity.uid]
        Path(f"/proc/self/fd/{identity.lock}").resolve().write_bytes(b"")  # new, or an older arena's: look too
        identity.release()
        identity = claim_uid()
        assert looked == [identity.uid] * 2
    finally:
        identity.release(clean=True)


@needs_root
@pytest.mark.parametrize("cgroup", [True, False], ids=["cgroup", "no-cgroup"])
def test_a_jail_gives_its_uid_back_clean_only_when_its_cgroup_is_gone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cgroup: bool
) -> None:
    """Without a cgroup, a child that a kill by process group missed (it had not yet made its own) could take the uid
    after the sweep (found by a review): its next claim must look in /proc."""
    if cgroup and not cgroups.detect().available:
        pytest.skip("no cgroups here")
    if not cgroup:
        monkeypatch.setattr(sandbox, "_cgroup_for", lambda limits: None)
    monkeypatch.setenv("ARENA_UID_RANGE", spare_uids(1))
    os.chmod(tmp_path, 0o755)
    jail = Jail(Limits(), workdir=tmp_path)
    assert jail.identity is not None
    lock = Path(f"/proc/self/fd/{jail.identity.lock}").resolve()
    try:
        assert lock.read_bytes() == sandbox.HELD
        program = ("sleep", "600")
        process = subprocess.Popen(program, preexec_fn=jail.confinement(program, "stdio").apply, start_new_session=True)
        jail.sweep(process.pid)
        assert process.wait(timeout=5) == -9
    finally:
        jail.release()
    assert lock.read_bytes() == (sandbox.CLEAN if cgroup else sandbox.HELD)


@needs_root
def test_a_uid_sweep_kills_every_process_of_the_uid_even_in_other_sessions(tmp_path: Path) -> None:
    identity = claim_uid()
    try:
        uid = identity.uid
        started = [
            subprocess.Popen(["sleep", "600"], user=uid, group=uid, extra_groups=[], start_new_session=True)
            for _ in range(3)
        ]
        assert len(processes_of(uid)) == 3
        sweep_uid(uid)
        assert processes_of(uid) == []
        assert all(p.wait(timeout=5) == -9 for p in started)
    finally:
        identity.release()


@needs_root
def test_a_uid_given_back_with_processes_left_is_swept_at_its_next_claim(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_UID_RANGE", spare_uids(1))  # a uid no concurrent test's bot takes once given back
    identity = claim_uid()
    uid = identity.uid
    left = subprocess.Popen(["sleep", "600"], user=uid, group=uid, extra_groups=[], start_new_session=True)
    try:
        identity.release()  # as by a referee that died holding it
        identity = claim_uid()
        assert identity.uid == uid
        assert left.wait(timeout=5) == -9  # the claim killed what was left under the uid
    finally:
        identity.release()
        left.kill()
        left.wait()


@needs_root
@pytest.mark.skipif(not cgroups.detect().available, reason="no cgroups here: every bot's end sweeps its uid")
def test_a_bot_whose_cgroup_is_empty_at_its_end_needs_no_uid_sweep(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    sweeps: list[int] = []

    def counted(uid: int) -> None:
        sweeps.append(uid)
        sweep_uid(uid)

    monkeypatch.setattr(sandbox, "sweep_uid", counted)
    for program, swept in (["/bin/true"], 0), (["sleep", "600"], 1):
        workdir = tmp_path / program[0].replace("/", "")
        workdir.mkdir()
        os.chmod(tmp_path, 0o755)
        jail = Jail(Limits(), workdir=workdir)
        process = subprocess.Popen(
            program, preexec_fn=jail.confinement(tuple(program), "stdio").apply, start_new_session=True
        )
        if program == ["/bin/true"]:
            assert process.wait(timeout=10) == 0  # ended and reaped: its cgroup is empty
        jail.sweep(process.pid)
        assert len(sweeps) == swept and process.wait(timeout=5) in (0, -9)
        assert jail.uid is not None and processes_of(jail.uid) == []  # nothing of it is left either way
        jail.release()


# Looks for a key in its user keyring and in its persistent keyring (which the kernel keeps three days), then
# leaves one in each: what a bot would do to pass its cards on to a later process of its uid.
KEYRING_BOT = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = {"x86_64": (248, 250), "aarch64": (217, 219)}[os.uname().machine]
L = ctypes.c_long
persistent = libc.syscall(L(keyctl), L(22), L(-1), L(-2))  # KEYCTL_GET_PERSISTENT, linked into its process keyring
for ring in (-4, persistent):
    found = libc.syscall(L(keyctl), L(10), L(ring), b"user", b"arena-test-hand", L(0))  # KEYCTL_SEARCH
    added = libc.syscall(L(add_key), b"user", b"arena-test-hand", b"AS KH 9D", ctypes.c_size_t(8), L(ring))
    print("found" if found > 0 else "none", "added" if added > 0 else "refused", end=" ")
"""


@needs_root
@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="the test bot knows these machines' calls")
def test_a_key_left_in_a_uids_keyring_is_gone_for_the_next_process_of_the_uid(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ARENA_UID_RANGE", spare_uids(1))  # both processes get this uid (no concurrent test's bot)
    os.chmod(tmp_path, 0o755)
    said = []
    for run in range(2):
        workdir = tmp_path / f"w{run}"
        workdir.mkdir()
        jail = Jail(Limits(), workdir=workdir)
        argv = (sys.executable, "-c", KEYRING_BOT)
        done = subprocess.run(
            argv, preexec_fn=jail.confinement(argv, "stdio").apply, capture_output=True, text=True, timeout=30
        )
        jail.sweep(0)
        jail.release()
        assert done.returncode == 0, done.stderr
        said.append(done.stdout.split())
    # Refused: a bot may not use keyrings at all (seccomp); before, the second process found the key the first left
    # in its persistent keyring
    assert said == [["none", "refused", "none", "refused"]] * 2


# Tries the channel two bots of different uids met through in an outside check (180 of 180 hands passed on): a
# watch on a system file that every bot may read, its partner opening the file being the signal. As controls, what
# a bot may use: a thread, and locks between its own processes (Python's multiprocessing, on shared futexes: refusing
# those, which would close another channel, hangs it; SECURITY.md).
CHANNELS_BOT = """
import ctypes, errno, fcntl, multiprocessing, os, threading
libc = ctypes.CDLL(None, use_errno=True)
L = ctypes.c_long
inotify_init1, inotify_add_watch = {"x86_64": (294, 254), "aarch64": (26, 27)}[os.uname().machine]
def outcome(result):
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]
said = [outcome(libc.syscall(L(inotify_init1), L(0)))]
said.append(outcome(libc.syscall(L(inotify_add_watch), L(0), b"/etc/passwd", L(0x20))))  # EINVAL, were it allowed
folder = os.open("/etc", os.O_RDONLY)
try:  # dnotify: a signal at each access in the folder
    said.append(outcome(fcntl.fcntl(folder, 1026, 0x80000001)))
except OSError as error:
    said.append(errno.errorcode[error.errno])
with open("leased", "w") as mine:
    mine.write("its own file")
leased = os.open("leased", os.O_RDONLY)
try:  # a lease: a signal when another process opens the file, whose open waits
    said.append(outcome(fcntl.fcntl(leased, 1024, fcntl.F_RDLCK)))
except OSError as error:
    said.append(errno.errorcode[error.errno])
for lock in (lambda: fcntl.flock(leased, fcntl.LOCK_SH | fcntl.LOCK_NB),  # every lock, its own file's too
             lambda: fcntl.lockf(leased, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 0),
             lambda: fcntl.fcntl(leased, fcntl.F_GETLK, bytes(32)),
             lambda: fcntl.fcntl(leased, 36, bytes(32)),  # F_OFD_GETLK
             os.setsid):
    try:
        lock()
        said.append("ok")
    except OSError as error:
        said.append(errno.errorcode[error.errno])
said.append(outcome(libc.syscall(L(451), L(leased), None, None, L(0))))  # cachestat
said.append("flags" if fcntl.fcntl(folder, fcntl.F_GETFD) >= 0 else "no-flags")  # fcntl's other commands work
done = []
thread = threading.Thread(target=done.append, args=(1,))
thread.start()
thread.join()
said.append("thread" if done else "no-thread")
def count(lock, total):
    for _ in range(3000):
        with lock:
            total.value += 1
if __name__ == "__main__":
    lock, total = multiprocessing.Lock(), multiprocessing.Value("i", 0, lock=False)
    workers = [multiprocessing.Process(target=count, args=(lock, total)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    said.append(f"counted {total.value}")
    print(" ".join(said))
"""


@needs_root
@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="the test bot knows these machines' calls")
def test_a_bot_cannot_watch_files_lock_them_or_start_a_session_but_its_threads_and_process_locks_work(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ARENA_UID_RANGE", spare_uids(1))
    os.chmod(tmp_path, 0o755)
    workdir = tmp_path / "w"
    workdir.mkdir()
    bot = tmp_path / "channels.py"
    bot.write_text(CHANNELS_BOT)
    jail = Jail(Limits(), workdir=workdir)
    argv = (sys.executable, str(bot))
    done = subprocess.run(
        argv, preexec_fn=jail.confinement(argv, "stdio").apply, capture_output=True, text=True, timeout=60
    )
    jail.sweep(0)
    jail.release()
    assert done.returncode == 0, done.stderr
    # Before: "ok EINVAL ok ok flags thread counted 6000" (the watches and the lease made; the call on no descriptor
    # reached the kernel); and before locks, sessions and cachestat were refused, "ok ok ok ok ok EFAULT" in their
    # places (locks taken and asked about, a session of its own made; cachestat reached the kernel)
    assert done.stdout.split() == [
        *["EPERM"] * 4,
        *["ENOLCK"] * 4,  # flock, lockf, F_GETLK, F_OFD_GETLK
        "EPERM",  # setsid
        "EPERM",  # cachestat
        "flags",
        "thread",
        "counted",
        "6000",
    ]


SESSION_BOT = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
keyctl = {"x86_64": 250, "aarch64": 219}[os.uname().machine]
size = libc.syscall(ctypes.c_long(keyctl), ctypes.c_long(11), ctypes.c_long(-3), None, ctypes.c_long(0))  # READ @s
print("session keys:", max(size, 0) // 4)
"""

# Fills its uid's key quota (200 keys) in the keyrings the kernel keeps with the uid, so that a later process of
# the uid could not join a session keyring of its own (counted against that quota) and kept its referee's.
QUOTA_BOT = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = {"x86_64": (248, 250), "aarch64": (217, 219)}[os.uname().machine]
L = ctypes.c_long
persistent = libc.syscall(L(keyctl), L(22), L(-1), L(-2))
added = 0
for ring in (-4, persistent):
    while libc.syscall(L(add_key), b"user", b"k%d" % added, b"x" * 90, ctypes.c_size_t(90), L(ring)) > 0:
        added += 1
print("keys added:", added)
"""

# Two bots of different uids would share a keyring by its name: one makes it, opens it to all and leaves a key, the
# other joins it by name (found by a review). The bot tries each key management call and says how each went.
KEY_CALLS_BOT = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
add_key, request_key, keyctl = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}[os.uname().machine]
L = ctypes.c_long
said = []
for name, call in (
    ("join", lambda: libc.syscall(L(keyctl), L(1), b"box")),
    ("add_key", lambda: libc.syscall(L(add_key), b"user", b"note", b"JH JD", ctypes.c_size_t(5), L(-3))),
    ("request_key", lambda: libc.syscall(L(request_key), b"user", b"note", None, L(0))),
):
    said.append(f"{name}:{'ok' if call() >= 0 else os.strerror(ctypes.get_errno())}")
print(*said)
"""

# In a session keyring of its own holding a key (an ssh login, a service, a container), starts each bot named on its
# command line in turn, waits for it to end, and prints the last line of its log.
REFEREE_IN_A_SESSION = """
import ctypes, os, sys
from pathlib import Path
from arena.play.botproc import BotCommand, BotProcess
from arena.play.matchspec import Limits
from arena.play.sandbox import Jail
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = {"x86_64": (248, 250), "aarch64": (217, 219)}[os.uname().machine]
L = ctypes.c_long
assert libc.syscall(L(keyctl), L(1), None) > 0  # a session keyring of its own
assert libc.syscall(L(add_key), b"user", b"referee-key", b"secret", ctypes.c_size_t(6), L(-3)) > 0
folder = Path(sys.argv[1])
for n, script in enumerate(sys.argv[2:]):
    (folder / f"home{n}").mkdir()
    bot = BotProcess(BotCommand("s", (sys.executable, script)), "stdio", folder / f"bot{n}.log",
                     jail=Jail(Limits(), workdir=folder / f"home{n}"))
    bot.process.wait(timeout=30)
    bot.kill()
    print((folder / f"bot{n}.log").read_text().splitlines()[-1])
"""


@pytest.fixture(scope="module", params=["1", "0"])
def key_bots(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """What three bots said, started one after another under one uid by one referee in a session keyring of its own:
    the bot that tries each key call, the bot that fills its uid's key quota, then the bot that reads its session
    keyring (the next process of the uid after the quota bot). Forked by the bots' server ("1"), and by exec ("0").

    One referee for the three tests below, each of which started its own (0.15-0.4 processor seconds each)."""
    folder = tmp_path_factory.mktemp("keys")
    os.chmod(folder, 0o755)
    bots = {"calls": KEY_CALLS_BOT, "quota": QUOTA_BOT, "session": SESSION_BOT}
    if not CAPS.root:  # the bots would have the referee's own uid, whose quota a quota bot let through would fill
        del bots["quota"]
    for name, code in bots.items():
        (folder / f"{name}.py").write_text(code)
    done = subprocess.run(
        [sys.executable, "-c", REFEREE_IN_A_SESSION, folder, *(folder / f"{name}.py" for name in bots)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ARENA_FORK_SERVER": request.param, "ARENA_UID_RANGE": spare_uids(1)},  # one uid
    )
    assert done.returncode == 0, done.stderr
    return dict(zip(bots, done.stdout.splitlines(), strict=True))


@needs_root
@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="the test bot knows these machines' calls")
def test_a_bot_does_not_share_the_session_keyring_of_its_referee(key_bots: dict[str, str]) -> None:
    assert key_bots["session"].split() == ["session", "keys:", "0"]  # not the referee's key (1 before the fix)


@needs_root
@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="the test bot knows these machines' calls")
def test_a_bot_that_fills_its_uids_key_quota_leaves_the_next_process_of_the_uid_its_own_session_keyring(
    key_bots: dict[str, str],
) -> None:
    """Found by a review: a new session keyring counted against the bot uid's quota, and the join's failure was
    ignored, so the next bot of the uid kept the session keyring of its referee (and of the other bots)."""
    assert int(key_bots["quota"].split()[-1]) == 0  # refused (seccomp); before, 195 keys filled the uid's quota
    assert key_bots["session"].split() == ["session", "keys:", "0"]  # the next bot of the uid: not the referee's key


@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="the test bot knows these machines' calls")
def test_a_bot_may_not_use_keyrings_at_all(key_bots: dict[str, str]) -> None:
    refused = os.strerror(1)  # EPERM
    assert key_bots["calls"] == f"join:{refused} add_key:{refused} request_key:{refused}"


def test_the_process_table_tells_running_processes_from_zombies_and_reads_their_uids() -> None:
    zombie = subprocess.Popen(["true"])
    while Path(f"/proc/{zombie.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.001)  # exited, not yet reaped
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        table = {pid: (running, uids) for pid, running, uids in sandbox._processes()}
        assert table[os.getpid()] == (True, os.getresuid())
        assert table[sleeper.pid] == (True, os.getresuid())
        assert table[zombie.pid][0] is False
        assert zombie.pid not in processes_of(os.getuid()) and sleeper.pid in processes_of(os.getuid())
    finally:
        sleeper.kill()
        sleeper.wait()
        zombie.wait()


def test_a_jail_frees_its_uid_and_empties_its_workdir(tmp_path: Path) -> None:
    workdir = tmp_path / "w"
    workdir.mkdir()
    jail = Jail(Limits(), workdir=workdir)
    (workdir / "left-behind").write_text("x")
    jail.sweep(os.getpid() + 10**6)
    jail.release()
    assert not workdir.exists() or list(workdir.iterdir()) == []
    if CAPS.root:
        assert jail.uid is not None


@needs_view
def test_a_bot_in_a_closed_directory_runs_and_sees_its_program_but_not_its_neighbours(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    program = closed / "mine.py"
    shutil.copyfile(BOTS / "hostile.py", program)
    os.chmod(program, 0o600)
    secret = closed / "secret.txt"
    secret.write_text("JH JD")
    bots = [BotEntry(name="mine", argv=[sys.executable, str(program), "snoop", "--look", str(secret)])]
    spec = match(tmp_path, [*bots, hostile("other", "polite")], [[0, 1]], shared=False)
    (record,) = run_match(spec)
    assert record["violations"] == [] and record["bots"][0]["hello"] == "snoop"
    (line,) = report(spec, 0, "snoop")
    assert denied(json.loads(line)["look"][str(secret)])
    assert oct(program.stat().st_mode & 0o777) == "0o600"  # left as it was


@needs_view
@pytest.mark.parametrize("place", ["/var/tmp", "/dev/shm", "a link to /var/tmp"])
@pytest.mark.parametrize("forked", ["forked", "exec"])
def test_a_match_whose_temporary_folder_is_a_link_of_the_view_plays_without_a_violation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, place: str, forked: str
) -> None:
    """With TMPDIR under /var/tmp or /dev/shm (links to its /tmp in a bot's view), the bots' homes and endpoints,
    made there, are built in the view through its links (they used to be built outside it: every bot died); and
    with a TMPDIR reached through a link of the host's (the view shows real paths)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-tmpdir-", dir=place.removeprefix("a link to ")))
    try:
        tmpdir = tmp_path / "tmpdir"
        tmpdir.symlink_to(folder)
        monkeypatch.setattr(tempfile, "tempdir", str(tmpdir if place.startswith("a link") else folder))
        monkeypatch.setenv("ARENA_FORK_SERVER", "1" if forked == "forked" else "0")
        spec = match(tmp_path, [BotEntry(name="a", argv=RAW), BotEntry(name="b", argv=RAW)], [[0, 1]])
        (record,) = run_match(spec)
        assert record["violations"] == [], [log_of(spec, b) for b in range(2)]
        assert list(folder.iterdir()) == []  # the match's folder is gone with it
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@needs_view
@pytest.mark.parametrize("forked", ["forked", "exec"])
def test_a_match_plays_under_a_umask_that_closes_new_folders_to_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: str
) -> None:
    """Under umask 077 (a hardened host's) the view's folders keep the modes they name: bots reach their homes and
    endpoints (they could not: every bot failed to start)."""
    monkeypatch.setenv("ARENA_FORK_SERVER", "1" if forked == "forked" else "0")
    spec = match(tmp_path, [BotEntry(name="a", argv=RAW), BotEntry(name="b", argv=RAW)], [[0, 1]])
    forkserver.reset()  # the bots' fork server, whose children build the views, started under the umask below
    umask = os.umask(0o077)
    try:
        (record,) = run_match(spec)
    finally:
        os.umask(umask)
        forkserver.reset()
    assert record["violations"] == []


@needs_view
@pytest.mark.parametrize("forked", ["forked", "exec"])
def test_a_bot_whose_sandbox_cannot_be_set_up_stops_the_match_with_the_reason_and_is_charged_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: str
) -> None:
    """The arena's own failure (here a mount of its view that cannot be made) is not the bot's: the match stops with
    ``BotStartError`` and the reason, forked or exec'd, where a forked one used to be charged a handshake violation
    ("exited with code 127 before hello") and an exec'd one said only "Exception occurred in preexec_fn"."""
    view = Jail.view

    def broken_view(self: Jail, argv: tuple[str, ...], endpoint: str) -> list[Any]:
        return [*view(self, argv, endpoint), sandbox._Step("bind", "/nowhere", source=str(tmp_path / "missing"))]

    monkeypatch.setattr(Jail, "view", broken_view)
    monkeypatch.setenv("ARENA_FORK_SERVER", "1" if forked == "forked" else "0")
    spec = match(tmp_path, [BotEntry(name="a", argv=RAW), BotEntry(name="b", argv=RAW)], [[0, 1]])
    # either bot: both fail, and the one seen first stops the match
    with pytest.raises(BotStartError, match=r"cannot start bot '[ab]'.*sandbox could not be set up: .*No such file"):
        run_match(spec)


# Says its set-up failed on every descriptor it has, in the log and by its exit code, as a failed set-up does.
FAKER = """
import os, socket, sys
word = b"the sandbox could not be set up: forged"
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        socket.socket(fileno=os.dup(fd)).send(word)
    except OSError:
        try:
            os.write(fd, word)
        except OSError:
            pass
sys.stderr.write("[arena: the sandbox could not be set up: forged]\\n")
os._exit(127)
"""


@pytest.mark.parametrize("forked", ["forked", "exec"])
def test_a_bot_that_exits_as_a_failed_set_up_would_is_charged_as_any_bot_that_dies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: str
) -> None:
    """No bot can pass its own death off as the arena's: the set-up's word is given before the bot's code runs."""
    faker = tmp_path / "faker.py"
    faker.write_text(FAKER)
    monkeypatch.setenv("ARENA_FORK_SERVER", "1" if forked == "forked" else "0")
    bots = [BotEntry(name="faker", argv=[sys.executable, str(faker)]), BotEntry(name="b", argv=RAW)]
    spec = match(tmp_path, bots, [[0, 1]], max_strikes=1)
    (record,) = run_match(spec)
    assert record["forfeit"]["seat"] == 0
    assert record["violations"][0]["detail"] == "bot exited with code 127 before hello"


@needs_root
def test_without_a_private_view_a_bot_whose_runtime_is_closed_to_others_is_refused_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    closed = tmp_path / "closed"
    (closed / "bot").mkdir(parents=True)
    os.chmod(closed, 0o700)
    program = closed / "bot" / "bot.py"
    program.write_text("pass\n")
    no_view = Capabilities(root=True, mount=False, hidepid=False, network=CAPS.network, ipc=CAPS.ipc)
    monkeypatch.setattr(sandbox, "capabilities", lambda: no_view)
    hub_dir = Path(tempfile.mkdtemp(prefix="arena-test-"))
    try:
        os.chmod(hub_dir, 0o711)
        (hub_dir / "w").mkdir()
        jail = Jail(Limits(), workdir=hub_dir / "w")
        assert (hub_dir / "w").stat().st_uid == jail.uid  # its home on the host, its own
        with pytest.raises(BotStartError, match="cannot reach"):
            BotProcess(BotCommand("bot", ("/bin/true", str(program))), "ipc:///nowhere", tmp_path / "log", jail=jail)
        assert jail.identity is not None and jail.identity.lock == -1  # its uid was given back
    finally:
        shutil.rmtree(hub_dir, ignore_errors=True)


# ---- where the arena does not run as root ----

SYSTEM_PYTHON = "/usr/bin/python3.11"
SETPRIV = shutil.which("setpriv")
NOBODY = 65534


@pytest.mark.skipif(
    not (CAPS.root and SETPRIV and os.path.exists(SYSTEM_PYTHON) and sys.version_info[:2] == (3, 11)),
    reason="needs root, setpriv and a system Python 3.11 that an unprivileged user can run",
)
@pytest.mark.skipif(
    not checkout_open_to_others(),
    reason="the checkout or its site-packages is not readable by an unprivileged user (e.g. under a 0700 folder)",
)
def test_not_root_bots_share_the_referees_uid_but_their_forks_are_bounded_and_killed() -> None:
    """The arena as ``nobody``: no uid of their own, no view; a fork bomb is bounded, escapees die at the end."""
    folder = Path(tempfile.mkdtemp(prefix="arena-nobody-"))
    try:
        os.chmod(folder, 0o1777)
        (folder / "pids").mkdir(mode=0o1777)
        os.chmod(folder / "pids", 0o1777)
        script = str(BOTS / "hostile.py")
        bots = [
            BotEntry(name="snoop", argv=[SYSTEM_PYTHON, script, "snoop"]),
            BotEntry(name="bomb", argv=[SYSTEM_PYTHON, script, "fork-bomb"]),
            BotEntry(name="escape", argv=[SYSTEM_PYTHON, script, "escape", "--pid-dir", str(folder / "pids")]),
        ]
        spec = match_spec(
            bots, [(0, [0, 1, 2])], match_id="nobody", variant="three-hand", log_dir=str(folder / "logs"),
            limits=Limits(processes=16, writable=(str(folder / "pids"),)),
        )  # fmt: skip
        (record,) = _as_nobody(folder, spec)
        assert record["violations"] == [] and "forfeit" not in record
        logs = folder / "logs"
        seen = json.loads(
            next(x for x in (logs / "nobody-bot0-snoop.log").read_text().splitlines() if "snoop" in x)[7:]
        )
        assert seen["uid"] == NOBODY and seen["fds_at_start"] == [0, 1, 2, 3]
        bomb = (logs / "nobody-bot1-bomb.log").read_text()
        assert "fork-bomb:" in bomb
        escaped = started(folder / "pids")
        assert len(escaped) == 2 and still_running(escaped) == []
        deadline = time.monotonic() + 5
        while processes_of(NOBODY) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert processes_of(NOBODY) == [], [described(pid) for pid in processes_of(NOBODY)]
        if _userns_works():
            assert denied(seen["network"]) and denied(seen["parent"]["environ"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _as_nobody(folder: Path, spec: MatchSpec) -> list[dict[str, Any]]:
    """Run a match with the referee as ``nobody`` (the system Python, the checkout on its path); its records."""
    site = next(p for p in sys.path if p.endswith("site-packages"))
    root = str(ROOT)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{root}:{site}"}
    privileges = [f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    result = subprocess.run(
        [SETPRIV, *privileges, SYSTEM_PYTHON, "-m", "arena.play.referee"],
        input=json.dumps(spec.to_json()).encode(),
        capture_output=True,
        env=env,
        cwd=folder,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr.decode()
    return [json.loads(line)["record"] for line in result.stdout.splitlines()]


@pytest.mark.skipif(
    not (CAPS.root and SETPRIV and os.path.exists(SYSTEM_PYTHON) and sys.version_info[:2] == (3, 11)),
    reason="needs root, setpriv and a system Python 3.11 that an unprivileged user can run",
)
@pytest.mark.skipif(
    not checkout_open_to_others(),
    reason="the checkout or its site-packages is not readable by an unprivileged user (e.g. under a 0700 folder)",
)
@pytest.mark.slow  # fills a disk quota
@pytest.mark.timeout(120)
def test_not_root_a_bot_can_take_no_other_seat_nor_fill_the_disk() -> None:
    """The arena as ``nobody`` where user namespaces work: a thief that reads environments, an intruder that
    speaks on every endpoint it finds, a bot in the middle that renames the others' sockets and binds its own in
    their place, and a disk hog, against bots that only play."""
    if not _userns_works():
        pytest.skip("no unprivileged user namespaces here: such a host refuses untrusted bots (SECURITY.md)")
    folder = Path(tempfile.mkdtemp(prefix="arena-nobody-"))
    try:
        os.chmod(folder, 0o1777)
        out = folder / "out"
        out.mkdir(mode=0o1777)
        os.chmod(out, 0o1777)
        hostile, adversary = str(BOTS / "hostile.py"), str(BOTS / "adversary.py")
        spoken, hijacked = out / "spoken", out / "hijacked"
        slow = [SYSTEM_PYTHON, hostile, "polite", "--wait-for"]
        bots = [
            BotEntry(name="slow", argv=[*slow, str(spoken)]),
            BotEntry(name="thief", argv=[SYSTEM_PYTHON, hostile, "thief", "--signal", str(spoken)]),
            BotEntry(name="intruder", argv=[SYSTEM_PYTHON, hostile, "intruder"]),
        ]
        spec = match_spec(
            bots, [(0, [0, 1, 2]), (1, [1, 2, 0])], match_id="nobody-seats", variant="three-hand",
            log_dir=str(folder / "logs"), limits=Limits(writable=(str(out),)),
        )  # fmt: skip
        mitm = BotEntry(name="mitm", argv=[SYSTEM_PYTHON, adversary, "mitm", "--out", str(out)])
        victims = [BotEntry(name=f"victim{k}", argv=[*slow, str(hijacked)]) for k in (1, 2)]
        in_the_middle = spec.replace(match_id="nobody-mitm", bots=[mitm, *victims])
        for record in _as_nobody(folder, spec) + _as_nobody(folder, in_the_middle):
            assert record["violations"] == [] and "forfeit" not in record
            hellos = {entry["name"]: entry["hello"] for entry in record["bots"]}
            assert hellos.get("slow", "polite") == hellos.get("victim1", "polite") == "polite"
        hog = BotEntry(name="hog", argv=[SYSTEM_PYTHON, adversary, "disk-hog", "--out", str(out)])
        raw = BotEntry(name="raw", argv=[SYSTEM_PYTHON, str(BOTS / "raw_random.py")])
        before = set(os.listdir("/tmp")) | set(os.listdir("/dev/shm"))
        spec = spec.replace(
            match_id="nobody-disk",
            variant="two-hand",
            bots=[hog, raw],
            games=[GameSpec(seed=0, seating=[0, 1])],
        )
        (record,) = _as_nobody(folder, spec)
        assert record["violations"] == []
        (report,) = [json.loads(p.read_text()) for p in out.glob("*.json")]
        assert sum(report["written"].values()) <= spec.limits.disk_mb * 1024 * 1024
        after = set(os.listdir("/tmp")) | set(os.listdir("/dev/shm"))
        assert not {name for name in after - before if name.startswith(("hog-", "many-"))}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _userns_works() -> bool:
    probe = subprocess.run(["unshare", "--user", "--net", "true"], capture_output=True, user=NOBODY, group=NOBODY)
    return probe.returncode == 0


KILLED_BOT = """
import json, os, sys, threading, time
from pathlib import Path
from arena.play import forkserver
from arena.play.botproc import BotCommand, BotProcess
from arena.play.linux import PPID, children_of, stat_fields
from arena.play.matchspec import Limits
from arena.play.sandbox import Jail
from arena.play.transport import Hub
folder = Path(sys.argv[1])
script = folder / "sleeper.py"
script.write_text("import os, time\\nif os.fork() == 0:\\n    os.setsid()\\ntime.sleep(600)\\n")  # and its child
hub = Hub()
endpoint = hub.open()
jail = Jail(Limits(), workdir=hub.workdir(endpoint))
hub.admit(endpoint, jail.gid)
bot = BotProcess(BotCommand("sleeper", (sys.executable, str(script)), "zmq"), endpoint.address, folder / "bot.log",
                 jail=jail)
monitor, deadline = bot.pid, time.monotonic() + 30
while not (inside := children_of(monitor)):
    assert bot.alive() and time.monotonic() < deadline, (folder / "bot.log").read_text()
    time.sleep(0.01)
(init,) = inside  # the bot, pid 1 of its namespace
parents = []
def watch():  # from before the kill: as root it sweeps the bot's uid, waiting for its processes to go
    deadline = time.monotonic() + 10
    while (fields := stat_fields(init)) is not None and time.monotonic() < deadline:
        parents.append(int(fields[PPID]))
        time.sleep(0.002)
watcher = threading.Thread(target=watch)
watcher.start()
bot.kill()
watcher.join()
hub.close()
print(json.dumps({"forked": isinstance(bot.process, forkserver.ForkedProcess), "monitor": monitor,
                  "parents": sorted(set(parents)), "gone": stat_fields(init) is None}))
"""


@pytest.mark.skipif(not CAPS.pid, reason="bots are pid 1 of namespaces of their own only here")
@pytest.mark.parametrize("user", ["root", "nobody"])
@pytest.mark.parametrize("forked", ["1", "0"])
def test_a_killed_bot_is_reaped_by_its_monitor_not_left_to_the_hosts_pid_1_or_the_referee(
    forked: str, user: str
) -> None:
    """A bot killed with its monitor (one kill of their group) ended after it, a zombie re-parented to the host's pid
    1 (~1 s here; for ever where pid 1 is an arena in a container) or, not root, to the referee (for as long as it
    plays). Both ways a bot starts: forked by the bots' server, and by exec (every bot not in Python)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-killed-"))  # not under pytest's, which nobody may not enter
    os.chmod(folder, 0o777)
    env = {**os.environ, "ARENA_FORK_SERVER": forked}
    if user == "root":
        if not CAPS.root:
            pytest.skip("not root here")
        argv = [sys.executable, "-c", KILLED_BOT, str(folder)]
        env["ARENA_UID_RANGE"] = spare_uids(1)
    else:
        if not (CAPS.root and SETPRIV and os.path.exists(SYSTEM_PYTHON) and sys.version_info[:2] == (3, 11)):
            pytest.skip("needs root, setpriv and a system Python 3.11 that an unprivileged user can run")
        checkout = ROOT
        if not checkout_open_to_others():
            pytest.skip("the checkout or its site-packages is not readable by an unprivileged user")
        privileges = [f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        argv = [SETPRIV, *privileges, SYSTEM_PYTHON, "-c", KILLED_BOT, str(folder)]
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{checkout}:{SITE}", "ARENA_FORK_SERVER": forked}
    try:
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=90, cwd=folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["forked"] == (forked == "1" and forkserver.enabled())
    assert seen["gone"], "the killed bot was never reaped"
    # before: then 1 (the host's pid 1) as root, the referee's pid not root, a zombie for a while or for ever
    assert seen["parents"] in ([], [seen["monitor"]]), seen


def test_a_probe_killed_by_a_signal_is_tried_again_not_read_as_a_host_without_namespaces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A probe child killed on a busy host used to read as "not root, and no user namespaces": a match refused for a
    reason that was not true. It is probed again; killed three times, the error says so."""
    real = sandbox._probe(os.geteuid() == 0)
    answers = [-9, real]
    monkeypatch.setattr(sandbox, "_probe", lambda root: answers.pop(0))
    sandbox.capabilities.cache_clear()
    try:
        found = sandbox.capabilities()
        assert not answers and found.root == bool(real & 16) and found.filtered == bool(real & 128)
        sandbox.capabilities.cache_clear()
        monkeypatch.setattr(sandbox, "_probe", lambda root: -9)
        with pytest.raises(sandbox.SandboxError, match="killed by signal 9, three times"):
            sandbox.capabilities()
    finally:
        sandbox.capabilities.cache_clear()  # the next test probes afresh, for real
