"""The acting copies of a policy's model, and how they follow the learner's weights.

Acting (collect, eval) runs on private copies of the learner's model. The learner bumps a
version after every update; an acting mode copies the newest weights at the start of its next
forward, under the lock the learner holds while it updates. So a collector in another thread
(async mode) always acts on a whole optimizer step, never half of one, and never blocks the
learner for long. An evaluation round can hold its copy at one version (`hold_acting_weights`)
and save exactly those weights afterwards (`acting_state`).
"""
import contextlib
import copy
import threading
from typing import Any, Dict, Optional, Tuple

import torch


class ActingWeights:
    """Mixin of `Policy`: expects `self._model`, `self._fields` and `_state_dict_learn()`."""

    def _init_acting_weights(self) -> None:
        self._weights_lock = threading.RLock()
        self._weights_version = 0
        self._modes: Dict[str, Any] = {}  # mode -> [model, version, dst tensors, src tensors]
        self._held_modes: set = set()  # acting modes kept at their version (see hold_acting_weights)
        self._acting_models: Dict[str, torch.nn.Module] = {}  # set by a subclass's `_init_collect/_init_eval`

    def acting_model(self, mode: str) -> torch.nn.Module:
        """The private copy of the model that `mode` acts with, refreshed to the newest weights."""
        entry = self._modes.get(mode)
        if entry is None:
            with self._weights_lock:
                model = copy.deepcopy(self._model)
                model.eval()
                # (destination, source) tensor lists, built once: a refresh is one fused copy.
                dst = [*model.parameters(), *model.buffers()]
                src = [*self._model.parameters(), *self._model.buffers()]
                entry = self._modes[mode] = [model, self._weights_version, dst, src]
        if entry[1] != self._weights_version and mode not in self._held_modes:
            with self._weights_lock, torch.no_grad():
                torch._foreach_copy_(entry[2], entry[3])
                entry[1] = self._weights_version
        return entry[0]

    @contextlib.contextmanager
    def hold_acting_weights(self, mode: str):
        """Refresh `mode`'s acting copy once, then keep it at that version inside the block:
        an evaluation round plays one set of weights even while a learner in another thread
        publishes new ones, and those exact weights can be saved after it. Yields the model."""
        model = self.acting_model(mode)
        self._held_modes.add(mode)
        try:
            yield model
        finally:
            self._held_modes.discard(mode)

    def acting_state(self, mode: str) -> Dict[str, Any]:
        """A checkpoint of the weights `mode`'s acting copy holds (e.g. those just evaluated):
        the whole learner state when the learner is still at that version (always so in sync
        mode), else, as the learner has moved on, those model weights alone."""
        with self._weights_lock:
            model, version = self._modes[mode][0], self._modes[mode][1]
            if version == self._weights_version and 'learn' in self._fields:
                return copy.deepcopy(self._state_dict_learn())
            return {'model': {k: v.detach().clone() for k, v in model.state_dict().items()}}

    @property
    def _collect_model(self) -> torch.nn.Module:
        model = self._acting_models.get('collect')
        return model if model is not None else self.acting_model('collect')

    @_collect_model.setter
    def _collect_model(self, model: torch.nn.Module) -> None:
        # a subclass's `_init_collect` sets its own acting model (a wrapper sharing the learner's weights)
        self._acting_models['collect'] = model

    @property
    def _eval_model(self) -> torch.nn.Module:
        model = self._acting_models.get('eval')
        return model if model is not None else self.acting_model('eval')

    @_eval_model.setter
    def _eval_model(self, model: torch.nn.Module) -> None:
        self._acting_models['eval'] = model

    def publish_weights(self) -> None:
        """Say the learner's model changed (called after every update and on load)."""
        self._weights_version += 1

    def acting_weights(self, mode: str, seen_version: Optional[int] = None) -> Optional[Tuple[int, Dict[str, Any]]]:
        """(version, state_dict of `mode`'s acting copy, refreshed), or None when the learner's
        weights are still at `seen_version`: what a sampler publishes to its env workers."""
        if seen_version is not None and seen_version == self._weights_version and mode in self._modes:
            return None
        model = self.acting_model(mode)
        return self._modes[mode][1], model.state_dict()
