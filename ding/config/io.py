"""Reading config files and writing the resolved config of a run.

A python config file defines `main_config` and (usually) `create_config`, as in dizoo. A run
writes `config.yaml` (the resolved config, for people and tools) and, optionally, a python
file with both dicts that `ding -m serial -c <file>` can run again.
"""
import importlib.util
import os
import pprint
import uuid
from typing import Any, Mapping, Tuple

import yaml
from easydict import EasyDict

from ding.utils.fileio import atomic_write_text


def to_plain(obj: Any) -> Any:
    """Nested dicts/lists of str, int, float, bool, None; anything else becomes its repr()."""
    if isinstance(obj, Mapping):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if hasattr(obj, 'item') and getattr(obj, 'ndim', 1) == 0:  # numpy / torch scalars
        return obj.item()
    return repr(obj)


class ConfigFileError(ValueError):
    """A config file that cannot be read as a config (YAML syntax, empty, not a mapping); one line."""


def load_yaml_mapping(path: str) -> dict:
    """The mapping a YAML config file holds; ConfigFileError naming the file, line and cause
    for broken syntax, an empty file or a file holding something other than a mapping."""
    with open(path) as f:
        text = f.read()
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, 'problem_mark', None) or getattr(err, 'context_mark', None)
        where = f' (line {mark.line + 1}, column {mark.column + 1})' if mark is not None else ''
        cause = getattr(err, 'problem', None) or str(err).splitlines()[0]
        raise ConfigFileError(f'{path}: not valid YAML{where}: {cause}') from None
    if data is None:
        raise ConfigFileError(f'{path}: the file is empty (a config file holds a mapping of config keys)')
    if not isinstance(data, Mapping):
        raise ConfigFileError(f'{path}: a config file must hold a mapping of config keys, got '
                              f'{type(data).__name__} {str(data)[:40]!r}')
    return data


def save_config_yaml(cfg: Mapping, path: str) -> None:
    atomic_write_text(path, yaml.safe_dump(to_plain(cfg), sort_keys=False, default_flow_style=False))


def _py_literal(obj: Any) -> str:
    return pprint.pformat(to_plain(obj), indent=1, width=100, sort_dicts=False)


def save_config_py(main_config: Mapping, create_config: Mapping, path: str) -> None:
    """A python file defining `main_config` and `create_config`, readable by `read_config`.
    The env manager's type is written once, in `create_config.env_manager` (the one the run
    built, which a `--config` override may have changed): two copies could be edited apart."""
    main_config, create_config = one_manager_type(main_config, create_config)
    text = ('from easydict import EasyDict\n\n'
            "inf, nan = float('inf'), float('nan')  # pprint writes these bare\n\n"
            f'main_config = EasyDict({_py_literal(main_config)})\n\n'
            f'create_config = EasyDict({_py_literal(create_config)})\n')
    atomic_write_text(path, text)


def one_manager_type(main_config: Mapping, create_config: Mapping) -> Tuple[dict, dict]:
    """(main, create) with the env manager's type only in create_config.env_manager."""
    main, create = to_plain(main_config), to_plain(create_config)
    manager = (main.get('env') or {}).get('manager')
    if isinstance(manager, dict) and 'type' in manager:
        create['env_manager'] = dict(create.get('env_manager') or {}, type=manager.pop('type'))
    return main, create


def check_manager_types_agree(main_config: Mapping, create_config: Mapping, path: str) -> None:
    """A config file naming the env manager twice (`main_config.env.manager.type` and
    `create_config.env_manager.type`, as a total_config.py file does) must name one
    manager: an edit to one copy would otherwise be ignored for the other."""
    in_main = ((main_config.get('env') or {}).get('manager') or {}).get('type')
    in_create = (create_config.get('env_manager') or {}).get('type')
    if in_main and in_create and in_main != in_create:
        from ding.config.validate import ConfigKeyError
        raise ConfigKeyError(f'{path}: main_config.env.manager.type is {in_main!r} but create_config.env_manager.type '
                             f'is {in_create!r}; name the env manager in one of them')


def read_config(path: str) -> Tuple[EasyDict, EasyDict]:
    """(main_config, create_config) from a python config file (create_config may be absent ->
    empty), or from a yaml file holding either a resolved config or both under those names."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f'config file not found: {path}')
    if path.endswith(('.yaml', '.yml')):
        data = load_yaml_mapping(path)
        if 'main_config' not in data:
            return EasyDict(data), EasyDict()
        main, create = data['main_config'], data.get('create_config')
    elif path.endswith('.py'):
        spec = importlib.util.spec_from_file_location(f'_ding_config_{uuid.uuid4().hex}', path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if not hasattr(module, 'main_config'):
            raise AttributeError(f'{path} defines no main_config')
        main, create = module.main_config, getattr(module, 'create_config', None)
    else:
        raise ValueError(f'config file must be .py or .yaml: {path}')
    main, create = EasyDict(main), EasyDict(create or {})
    check_manager_types_agree(main, create, path)
    return main, create
