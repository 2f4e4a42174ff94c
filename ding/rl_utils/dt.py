"""Decision Transformer's training loss (Chen et al. 2021): supervised prediction of the
dataset's action at every real step of each window, given the returns-to-go, states and
earlier actions (the model's causal mask does the conditioning).

    discrete:   mean over real steps of  CE(logits_t, a_t)
    continuous: mean over real steps of  ||a_hat_t - a_t||^2 / act_dim
Padding steps (mask False) carry no loss.
"""
import torch
import torch.nn.functional as F


def dt_action_loss(action_preds: torch.Tensor, actions: torch.Tensor, mask: torch.Tensor, continuous: bool
                   ) -> torch.Tensor:
    """action_preds [B, K, A] (logits or actions); actions [B, K] int or [B, K, A]; mask [B, K] bool."""
    mask = mask.bool()
    if continuous:
        error = (action_preds - actions.to(action_preds.dtype).reshape(action_preds.shape)).pow(2).mean(-1)
    else:
        error = F.cross_entropy(action_preds.flatten(0, 1), actions.long().reshape(-1), reduction='none')
        error = error.reshape(mask.shape)
    return error[mask].mean()
