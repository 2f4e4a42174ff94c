"""Several machines, simulated on one with `ray.cluster_utils.Cluster` (run as a script by
test_cluster.py, in its own process): a head for the learner, a second node offering the
custom resource `collector_host` where the collectors must run, and a third one with the same
resource. Midway the second node is removed: its collectors are rescheduled on the third and
the learner's env_step and train_iter keep rising. Writes the findings as JSON."""
import json
import os
import sys
import threading
import time


def main(out_dir: str) -> None:
    import logging
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(message)s')
    import ray
    from ray.cluster_utils import Cluster

    from ding.framework import Parallel
    from tests.distributed import mains

    cluster = Cluster(initialize_head=True, head_node_args=dict(num_cpus=1, include_dashboard=False,
                                                                resources={'learner_host': 1}))
    second = cluster.add_node(num_cpus=1, resources={'collector_host': 2})
    ray.init(address=cluster.address, namespace='ding')
    report = dict(second=second.node_id)

    outcome = {}

    def run() -> None:  # the launcher in a thread: Ray adds nodes from the main thread only
        try:
            outcome['results'] = Parallel.runner(
                n_parallel_workers=3, topology='mesh', max_restarts=2, timeout_s=200,
                node_resources=[{'learner_host': 1}, {'collector_host': 1}, {'collector_host': 1}])(
                    mains.dqn_main, learner_steps=15, progress_dir=out_dir, restarts_needed=True)
        except BaseException as e:
            outcome['error'] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        # the learner has trained, and both collectors run on the second machine (one may start
        # seconds after the other: removing the machine before would leave it one incarnation)
        while thread.is_alive() and not (os.path.exists(os.path.join(out_dir, 'progress_at_5')) and all(
                any(name.startswith(f'node{n}_') for name in os.listdir(out_dir)) for n in (1, 2))):
            time.sleep(0.1)
        print(time.strftime('%X'), 'removing the second node', flush=True)
        third = cluster.add_node(num_cpus=1, resources={'collector_host': 2})
        report['third'] = third.node_id
        cluster.remove_node(second)
        thread.join(300)
        if 'error' in outcome:
            raise outcome['error']
        results = outcome['results']
        report['learner'] = {k: results[0][k] for k in ('env_step', 'train_iter', 'lost')}
        report['incarnations'] = {str(k): len(v) for k, v in results[0]['incarnations'].items()}
    finally:
        ray.shutdown()
        cluster.shutdown()
    placements = {}
    for name in os.listdir(out_dir):
        if name.startswith('node'):
            placements.setdefault(name.split('_')[0], []).append(open(os.path.join(out_dir, name)).read())
    report['placements'] = placements
    report['progress_at_5'] = open(os.path.join(out_dir, 'progress_at_5')).read()
    with open(os.path.join(out_dir, 'report.json'), 'w') as f:
        json.dump(report, f)


if __name__ == '__main__':
    main(sys.argv[1])
