"""One rank of a two-rank gloo group running DI-engine's bare `trainer` middleware on a DQNPolicy
with multi_gpu=True, where rank 1 has data on even steps only (a rank whose collectors lag).
Each rank writes its train_iter and a hash of its weights to OUT_DIR/rank<r>.txt."""
import os
import sys

import torch


def main(out_dir: str) -> None:
    from ding.entry.distributed_nodes import params_digest
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import trainer
    from ding.policy import DQNPolicy
    from ding.utils import DDPContext, get_rank
    from tests.distributed.ddp_dqn_worker import batch, make_cfg
    torch.set_num_threads(1)
    with DDPContext('gloo', timeout_s=float(os.environ.get('DDP_TIMEOUT_S', 30))):
        rank = get_rank()
        policy = DQNPolicy(make_cfg(True))

        def feed(ctx):
            ctx.train_data = batch(ctx.total_step, rank) if rank == 0 or ctx.total_step % 2 == 0 else None

        with task.start(ctx=OnlineRLContext()):
            task.use(feed)
            task.use(trainer(None, policy.learn_mode))
            task.run(max_step=6)
            train_iter = task.ctx.train_iter
    with open(os.path.join(out_dir, f'rank{rank}.txt'), 'w') as f:
        f.write(f'{train_iter} {params_digest(policy._model)}')


if __name__ == '__main__':
    main(sys.argv[1])
