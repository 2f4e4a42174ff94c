"""`DecisionTransformer` (Chen et al. 2021): a causal transformer over the interleaved tokens
(R_1, s_1, a_1, R_2, s_2, a_2, ...) of a window of `context_len` steps, R being the
return-to-go. The action at step t is read from the hidden state of the token s_t, which has
seen R_1..R_t, s_1..s_t and a_1..a_{t-1}: acting is conditioned on the return still wanted.

`forward(timesteps, states, actions, returns_to_go, tar=None)` -> (state_preds, action_preds,
return_preds), each [B, K, ...]. Discrete actions (`continuous=False`) are embedded by index and
predicted as logits [B, K, act_dim]; continuous ones are embedded linearly and predicted in
[-1, 1] (tanh).
"""
from typing import Optional, Tuple

import torch
from torch import nn

from ding.utils.registry import MODEL_REGISTRY


@MODEL_REGISTRY.register('dt')
class DecisionTransformer(nn.Module):

    def __init__(self, state_dim: int, act_dim: int, n_blocks: int, h_dim: int, context_len: int, n_heads: int,
                 drop_p: float, max_timestep: int = 4096, state_encoder: Optional[nn.Module] = None,
                 continuous: bool = False) -> None:
        super().__init__()
        if state_encoder is not None:
            raise ValueError('DecisionTransformer supports vector states only (state_encoder=None)')
        self.state_dim, self.act_dim, self.h_dim = int(state_dim), int(act_dim), int(h_dim)
        self.context_len, self.continuous = int(context_len), bool(continuous)
        self.embed_timestep = nn.Embedding(max_timestep, h_dim)
        self.embed_rtg = nn.Linear(1, h_dim)
        self.embed_state = nn.Linear(self.state_dim, h_dim)
        self.embed_action = nn.Linear(act_dim, h_dim) if continuous else nn.Embedding(act_dim, h_dim)
        self.embed_ln = nn.LayerNorm(h_dim)
        layer = nn.TransformerEncoderLayer(h_dim, n_heads, 4 * h_dim, drop_p, activation='gelu', batch_first=True,
                                           norm_first=True)
        self.transformer = nn.TransformerEncoder(layer, n_blocks, enable_nested_tensor=False)
        self.final_ln = nn.LayerNorm(h_dim)
        self.predict_rtg = nn.Linear(h_dim, 1)
        self.predict_state = nn.Linear(h_dim, self.state_dim)
        self.predict_action = nn.Linear(h_dim, act_dim)
        # causal over the 3K interleaved tokens; kept out of the state dict (it follows from K)
        self.register_buffer('causal_mask', nn.Transformer.generate_square_subsequent_mask(3 * self.context_len),
                             persistent=False)

    def forward(self, timesteps: torch.Tensor, states: torch.Tensor, actions: torch.Tensor,
                returns_to_go: torch.Tensor, tar: Optional[torch.Tensor] = None
                ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """timesteps [B, K] int; states [B, K, state_dim]; actions [B, K] (discrete) or [B, K, act_dim];
        returns_to_go [B, K] or [B, K, 1]. K <= context_len."""
        batch, k = states.shape[0], states.shape[1]
        if k > self.context_len:
            raise ValueError(f'DecisionTransformer: window of {k} steps > context_len={self.context_len}')
        time = self.embed_timestep(timesteps.long())
        rtg = self.embed_rtg(returns_to_go.reshape(batch, k, 1).to(states.dtype)) + time
        state = self.embed_state(states) + time
        action = (self.embed_action(actions.to(states.dtype)) if self.continuous else
                  self.embed_action(actions.long().reshape(batch, k))) + time
        tokens = torch.stack([rtg, state, action], dim=2).reshape(batch, 3 * k, self.h_dim)  # R, s, a, R, s, a...
        hidden = self.final_ln(self.transformer(self.embed_ln(tokens), mask=self.causal_mask[:3 * k, :3 * k],
                                                is_causal=True))
        hidden = hidden.reshape(batch, k, 3, self.h_dim)
        return_preds = self.predict_rtg(hidden[:, :, 2]).squeeze(-1)  # from a_t: the return after step t
        state_preds = self.predict_state(hidden[:, :, 2])  # from a_t: s_{t+1}
        action_preds = self.predict_action(hidden[:, :, 1])  # from s_t: a_t
        if self.continuous:
            action_preds = torch.tanh(action_preds)
        return state_preds, action_preds, return_preds
