"""One rank of a two-rank gloo group running a task pipeline whose every step makes a
collective (as data-parallel learners do). Rank 0 alone sets `task.finish` on step 3; the
other rank is never told except through the group. Each rank writes how many steps it ran
and how many all-reduces it made to OUT_DIR/rank<r>.txt."""
import os
import sys

import torch


def main(out_dir: str) -> None:
    import torch.distributed as dist

    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.utils import DDPContext, get_rank
    torch.set_num_threads(1)
    counts = {'steps': 0, 'reduces': 0}
    with DDPContext('gloo', timeout_s=float(os.environ.get('DDP_TIMEOUT_S', 30))):
        rank = get_rank()

        def learner(ctx):
            counts['steps'] += 1
            dist.all_reduce(torch.ones(1))  # a gradient sync: every rank must be here
            counts['reduces'] += 1
            if rank == 0 and counts['steps'] == 3:
                task.finish = True  # e.g. this rank's termination_checker; no router tells the peer

        with task.start(ctx=OnlineRLContext()):
            task.use(learner)
            task.run(max_step=50)
            finished = task.finish
    with open(os.path.join(out_dir, f'rank{rank}.txt'), 'w') as f:
        f.write(f"{counts['steps']} {counts['reduces']} {finished}")


if __name__ == '__main__':
    main(sys.argv[1])
