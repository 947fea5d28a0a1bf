"""A Ray cluster of two one-CPU nodes (``ray.cluster_utils``) in a process of its own, so that a
test can take its head away without touching the Ray the test process is joined to (removing a
head and shutting a ``Cluster`` down reset the process's own Ray client state).

    python -m tests.kernel.two_nodes    # prints the address; then reads commands: "head" (kill
                                        # the head node), "stop" (shut down and exit)"""

import sys

from ray.cluster_utils import Cluster


def main() -> None:
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        print(cluster.address, flush=True)
        for line in sys.stdin:
            if line.strip() == "head" and cluster.head_node is not None:
                cluster.remove_node(cluster.head_node, allow_graceful=False)
                print("gone", flush=True)
            elif line.strip() == "stop":
                break
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    main()
