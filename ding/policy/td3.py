"""TD3 (Fujimoto et al. 2018): DDPG with clipped double Q (twin critics), target policy
smoothing and delayed actor/target updates. Only the defaults differ from `DDPGPolicy`."""
from ding.policy.ddpg import DDPGPolicy
from ding.utils.registry import POLICY_REGISTRY


@POLICY_REGISTRY.register('td3')
class TD3Policy(DDPGPolicy):
    config = dict(
        type='td3',
        model=dict(twin_critic=True),
        learn=dict(actor_update_freq=2, noise=True, noise_sigma=0.2, noise_range=dict(min=-0.5, max=0.5)),
    )
