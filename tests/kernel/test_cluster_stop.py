"""Stopping a Ray cluster one started, and no other (docs/guide-cluster.md): never ``ray stop``,
which ends every Ray of the user on the machine, but the page's own commands, read from it."""

import shutil

import ray

from tests.kernel import own_ray


def test_a_head_of_ones_own_stops_by_its_pid_and_the_suites_cluster_runs_on(ray_cluster):
    """A head started as the page says (a folder of its own, ``--block`` in the background, its
    PID kept) on free ports beside the suite's own two-node cluster, stopped as the page says
    (SIGTERM to that PID): none of its processes is left, and the suite's cluster keeps every
    process and runs tasks on both nodes."""
    theirs = {p.pid for node in ray_cluster.list_all_nodes() for _, p in node.live_processes()}
    head = own_ray.start_blocking()
    try:
        mine = head.processes()
        assert len(mine) >= 5 and not mine & theirs, (mine, theirs)
        own_ray.bash(own_ray.block("ray-stop-own"), head.folder)
        assert own_ray.wait_gone(mine | {head.start_pid}, 45) == set()
    finally:
        if own_ray.running({head.start_pid}):  # a failed check: stop it all the same
            own_ray.bash(own_ray.block("ray-stop-own"), head.folder)
            own_ray.wait_gone({head.start_pid}, 45)
        shutil.rmtree(head.folder, ignore_errors=True)
    assert ray_cluster.remaining_processes_alive() and own_ray.running(theirs) == theirs

    @ray.remote(num_cpus=1, scheduling_strategy="SPREAD")
    def node_of():
        return ray.get_runtime_context().get_node_id()

    alive = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    ran = set(ray.get([node_of.remote() for _ in range(8)], timeout=60))
    assert len(alive) == 2 and ran and ran <= alive
