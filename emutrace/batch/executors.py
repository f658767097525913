"""Where a batch's jobs run. Each executor takes job specs and yields (spec, result) as jobs end.

    local   N jobs at a time on this machine, each its own `emutrace` process (a crash, a
            runaway or a memory-hungry sample takes only its own process down); the threads here
            only wait for them.
    ray     Ray tasks (one CPU each) on a Ray cluster: the address from --ray-address, else
            RAY_ADDRESS, else a local Ray instance. Workers need emutrace installed and the
            samples at the same paths; outputs come back to this machine's --out.
"""
from __future__ import annotations

import os
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Iterator, List, Optional, Tuple

from emutrace.batch import worker


class ExecutorError(Exception):
    pass


def local(specs: List[dict], jobs: int, out_dir_of) -> Iterator[Tuple[dict, dict]]:
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    pending = {}
    todo = list(specs)
    try:
        while todo or pending:
            while todo and len(pending) < jobs:
                spec = todo.pop(0)
                pending[pool.submit(worker.run, spec, out_dir_of(spec))] = spec
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                spec = pending.pop(fut)
                yield spec, fut.result()
    finally:
        for fut in pending:
            fut.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def ray(specs: List[dict], jobs: int, address: Optional[str] = None) -> Iterator[Tuple[dict, dict]]:
    try:
        import ray as _ray     # deferred: Ray is optional (emutrace[ray]) and slow to import
    except ImportError:
        raise ExecutorError("--executor ray needs Ray: pip install 'emutrace[ray]'") from None
    if not _ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS")
        try:
            _ray.init(address=address or None, include_dashboard=False, log_to_driver=False,
                      ignore_reinit_error=True)
        except Exception as e:       # noqa: BLE001 (Ray raises many kinds; each is one line here)
            raise ExecutorError(f"cannot reach Ray{' at ' + address if address else ''}: {e}") from None
    task = _ray.remote(num_cpus=1)(worker.run)
    todo = list(specs)
    running = {}
    try:
        while todo or running:
            while todo and len(running) < jobs:
                spec = todo.pop(0)
                running[task.remote(spec, None)] = spec
            done, _ = _ray.wait(list(running), num_returns=1)
            for ref in done:
                spec = running.pop(ref)
                yield spec, _ray.get(ref)
    finally:
        for ref in running:
            _ray.cancel(ref, force=True)
