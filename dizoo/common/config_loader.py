"""Compile a dizoo config module for one run: a fresh copy per call (entries mutate it), the
seed in the run name, and a caller's overrides merged on top."""
import copy
import importlib
from typing import Any, Mapping, Optional

from ding.config import compile_config
from ding.utils.dicts import deep_merge


def load_config(module_name: str, seed: int, exp_name: Optional[str] = None, overrides: Optional[Mapping] = None,
                save_cfg: bool = True) -> Any:
    """The compiled `main_config`/`create_config` of `module_name`; the run is named `exp_name`
    or the config's `..._seed0` name with this seed."""
    module = importlib.import_module(module_name)
    main_config = deep_merge(copy.deepcopy(module.main_config), overrides or {})
    main_config.exp_name = exp_name or main_config.exp_name.replace('seed0', f'seed{seed}')
    return compile_config(main_config, create_cfg=copy.deepcopy(module.create_config), auto=True, seed=seed,
                          save_cfg=save_cfg)
