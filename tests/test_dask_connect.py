"""``--backend dask --scheduler`` pointed at something that is not a Dask scheduler (a review, 2026-11-27).

An HTTP server's reply ended the command in a numpy memory error's traceback from distributed's protocol; a port
that accepts and says nothing held it for good. Each is now one line, exit 2, within the connect limit.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator

import pytest

pytest.importorskip("distributed")

from sim import dispatch  # after the skip: dask is optional
from sim.cli import main


def serve(reply: Callable[[socket.socket], None]) -> Iterator[str]:
    """A local server that answers each connection with ``reply``; yields its address."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:  # closed: the test is over
                return
            held.append(connection)  # kept open: a silent server must not close on the client
            reply(connection)

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for connection in held:
            connection.close()


def http_400(connection: socket.socket) -> None:
    connection.recv(65536)
    connection.sendall(b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n")


@pytest.fixture
def http_server() -> Iterator[str]:
    yield from serve(http_400)


@pytest.fixture
def silent_server() -> Iterator[str]:
    yield from serve(lambda connection: None)


def run(tmp_path, address: str) -> int:
    return main(["simulate", "--seats", "luna:5", "--games", "20", "--backend", "dask", "--scheduler", address,
                 "--out", str(tmp_path / "run"), "--quiet"])


def test_an_http_server_as_scheduler_was_a_numpy_memory_traceback(tmp_path, capsys, http_server):
    assert run(tmp_path, http_server) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"luna-balance: --scheduler: no Dask scheduler answers at {http_server!r}")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_silent_port_as_scheduler_waited_for_ever(tmp_path, capsys, silent_server, monkeypatch):
    monkeypatch.setattr(dispatch, "SCHEDULER_TIMEOUT", 1, raising=False)
    raised: list[BaseException] = []

    def connect() -> None:  # what a run does first with --backend dask (the command itself must run on the main
        try:                # thread, for its signal handlers)
            list(dispatch.ordered_results(abs, [(-1,)], 1, "dask", silent_server))
        except Exception as error:
            raised.append(error)

    waiting = threading.Thread(target=connect, daemon=True)
    waiting.start()
    waiting.join(30)  # in a thread: a connection that waits for good fails the test instead of hanging it
    assert not waiting.is_alive(), "still waiting for the silent port after 30 s"
    assert [type(error).__name__ for error in raised] == ["ConfigError"]
    assert run(tmp_path, silent_server) == 2
    err = capsys.readouterr().err
    assert err == (f"luna-balance: --scheduler: no Dask scheduler answers at {silent_server!r} within 1 s "
                   "(TimeoutError)\n")
    assert list(tmp_path.iterdir()) == []


def test_a_scheduler_is_reached_from_inside_a_running_event_loop():
    # Jupyter runs an event loop on the main thread: the handshake's asyncio.run raised there ("cannot be called
    # from a running event loop"), which read as "no Dask scheduler answers" for a scheduler that does
    import asyncio

    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        async def notebook_cell() -> None:
            client = dispatch.connect(cluster.scheduler_address)
            client.close()

        asyncio.run(notebook_cell())
