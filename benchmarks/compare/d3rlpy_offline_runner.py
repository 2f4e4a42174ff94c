"""d3rlpy's TD3+BC, CQL or IQL on a Pendulum dataset given as arrays, under the protocol of
`d3rlpy_offline.py` (which runs this file in d3rlpy's own venv, made by `venvs.py d3rlpy`).

The evaluation is offline_eval.py's, the same on our side.

    .venvs/d3rlpy/bin/python d3rlpy_offline_runner.py --algo cql --npz DATA.npz --updates 6000 --out LOG.json
"""
import argparse
import json
import time
from typing import List

import numpy as np

from offline_eval import evaluate


def make_algo(name: str) -> object:
    """d3rlpy's reproduction settings for each algo (its `reproductions/offline/*.py`), minus what
    only matters at 500k+ updates (IQL's cosine learning-rate schedule)."""
    import d3rlpy
    if name == 'td3_bc':
        return d3rlpy.algos.TD3PlusBCConfig(actor_learning_rate=3e-4, critic_learning_rate=3e-4, batch_size=256,
                                            target_smoothing_sigma=0.2, target_smoothing_clip=0.5, alpha=2.5,
                                            update_actor_interval=2,
                                            observation_scaler=d3rlpy.preprocessing.StandardObservationScaler())
    if name == 'cql':
        encoder = d3rlpy.models.encoders.VectorEncoderFactory([256, 256])
        return d3rlpy.algos.CQLConfig(actor_learning_rate=1e-4, critic_learning_rate=3e-4, temp_learning_rate=1e-4,
                                      alpha_learning_rate=0.0, actor_encoder_factory=encoder,
                                      critic_encoder_factory=encoder, batch_size=256, n_action_samples=10,
                                      conservative_weight=5.0)
    if name == 'iql':
        return d3rlpy.algos.IQLConfig(actor_learning_rate=3e-4, critic_learning_rate=3e-4, batch_size=256,
                                      weight_temp=3.0, max_weight=100.0, expectile=0.7,
                                      reward_scaler=d3rlpy.preprocessing.ReturnBasedRewardScaler(multiplier=1000.0))
    raise ValueError(f'unknown algo {name!r}; known: td3_bc, cql, iql')


def main() -> None:
    import d3rlpy
    import torch
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--algo', default='td3_bc')
    p.add_argument('--npz', required=True)
    p.add_argument('--updates', type=int, default=6000)
    p.add_argument('--eval-every', type=int, default=500)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--out', required=True)
    args = p.parse_args()
    torch.set_num_threads(1)
    d3rlpy.seed(args.seed)
    data = np.load(args.npz)
    dataset = d3rlpy.dataset.MDPDataset(observations=data['obs'], actions=data['action'], rewards=data['reward'],
                                        terminals=data['done'], timeouts=data['truncated'])
    algo = make_algo(args.algo).create(device='cpu:0')
    rows: List[dict] = []
    clock = {'start': None, 'eval_s': 0.0}

    def on_epoch(algo_: object, epoch: int, total_step: int) -> None:
        t0 = time.perf_counter()
        ret = evaluate(lambda obs: algo.predict(np.asarray(obs, dtype=np.float32)[None])[0])
        t1 = time.perf_counter()
        rows.append({'updates': total_step, 'train_s': t0 - clock['start'] - clock['eval_s'], 'return': ret})
        clock['eval_s'] += t1 - t0
        print(json.dumps(rows[-1]), flush=True)

    algo.build_with_dataset(dataset)
    clock['start'] = time.perf_counter()
    algo.fit(dataset, n_steps=args.updates, n_steps_per_epoch=args.eval_every, show_progress=False,
             logger_adapter=d3rlpy.logging.NoopAdapterFactory(), epoch_callback=on_epoch)
    with open(args.out, 'w') as f:
        json.dump({'framework': 'd3rlpy', 'version': d3rlpy.__version__, 'torch': torch.__version__,
                   'algo': args.algo, 'batch_size': 256, 'rows': rows}, f)


if __name__ == '__main__':
    main()
