"""DI-engine 0.5.3's own EDAC on a dataset given as arrays, under the protocol of
`edac_vs_di_engine.py` (which runs this file in DI-engine's venv, made by `venvs.py di_engine`).

The pipeline is DI-engine's `ding/example/edac.py` at the config it imports
(`dizoo/d4rl/config/halfcheetah_medium_edac_config.py`), with three changes, as on our side:
the data is the local file's, in the form DI-engine's `D4RLDataset` gives (one dict of tensors per
transition); its `interaction_evaluator` (on D4RL's gym env, which needs the `d4rl` package) is
replaced by the protocol's evaluation (offline_eval.py, gymnasium's MuJoCo env), at the head of
the chain; and the checkpoint and logger middleware are left out. The CPU trains (the config asks
for CUDA), on one torch thread. The timed call is `task.run()`; evaluations are clocked apart.

    .venvs/di_engine/bin/python edac_di_engine_runner.py --npz DATA.npz --env-id HalfCheetah-v5 \\
        --updates 6000 --eval-every 500 --seed 1000 --out LOG.json
"""
import argparse
import copy
import json
import tempfile
import time
from typing import Any, Dict, List

import numpy as np

from offline_eval import evaluate


def transitions(npz: str) -> List[Dict[str, Any]]:
    """The file's columns as DI-engine's D4RLDataset holds them: a list of per-transition dicts."""
    import torch
    data = np.load(npz)
    obs, next_obs, action = (torch.from_numpy(np.ascontiguousarray(data[k], np.float32))
                             for k in ('obs', 'next_obs', 'action'))
    reward, done = data['reward'].astype(np.float32), data['done'].astype(bool)
    return [{'obs': obs[i], 'next_obs': next_obs[i], 'action': action[i], 'reward': torch.tensor(reward[i]),
             'done': bool(done[i])} for i in range(len(reward))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--npz', required=True)
    p.add_argument('--env-id', default='HalfCheetah-v5')
    p.add_argument('--updates', type=int, default=6000)
    p.add_argument('--eval-every', type=int, default=500)
    p.add_argument('--episodes', type=int, default=10)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--out', required=True)
    args = p.parse_args()

    import ding
    import torch
    from ding.config import compile_config
    from ding.framework import task
    from ding.framework.context import OfflineRLContext
    from ding.framework.middleware import offline_data_fetcher, trainer
    from ding.model import EDAC  # its example imports the name QACEnsemble, which 0.5.3 does not export
    from ding.policy import EDACPolicy
    from ding.utils import set_pkg_seed
    from dizoo.d4rl.config.halfcheetah_medium_edac_config import main_config
    torch.set_num_threads(1)
    main = copy.deepcopy(main_config)
    main.policy.cuda = False
    main.exp_name = tempfile.mkdtemp(prefix='di_engine_edac_')
    # no create_config: its env type ('d4rl') imports D4RL's gym env, which this runner does not use
    cfg = compile_config(main, policy=EDACPolicy, seed=args.seed, auto=False, save_cfg=False)
    set_pkg_seed(args.seed, use_cuda=False)
    dataset = transitions(args.npz)
    policy = EDACPolicy(cfg.policy, model=EDAC(**cfg.policy.model))

    def act(obs: np.ndarray) -> np.ndarray:
        out = policy.eval_mode.forward({0: torch.as_tensor(np.asarray(obs, np.float32))})
        return out[0]['action'].numpy()

    rows: List[dict] = []
    clock = {'start': None, 'eval_s': 0.0}

    def protocol_evaluation(ctx: Any) -> None:
        if ctx.train_iter == 0 or ctx.train_iter % args.eval_every:
            return
        t0 = time.perf_counter()
        policy.eval_mode.reset()
        ret = evaluate(act, args.env_id, args.episodes)
        rows.append({'updates': int(ctx.train_iter), 'train_s': t0 - clock['start'] - clock['eval_s'], 'return': ret})
        clock['eval_s'] += time.perf_counter() - t0
        print(json.dumps(rows[-1]), flush=True)
        if ctx.train_iter >= args.updates:
            task.finish = True

    with task.start(async_mode=False, ctx=OfflineRLContext()):
        task.use(protocol_evaluation)
        task.use(offline_data_fetcher(cfg, dataset))
        task.use(trainer(cfg, policy.learn_mode))
        clock['start'] = time.perf_counter()
        task.run()
    with open(args.out, 'w') as f:
        json.dump({'framework': 'di_engine', 'version': ding.__version__, 'torch': torch.__version__,
                   'batch_size': int(cfg.policy.learn.batch_size), 'ensemble_num': int(cfg.policy.model.ensemble_num),
                   'rows': rows}, f)


if __name__ == '__main__':
    main()
