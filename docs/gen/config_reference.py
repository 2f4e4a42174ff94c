"""The config reference page: every registered policy type with each key of its
`default_config()`, the default and the values `compile_config` accepts (ding/config/schema.py),
read from the classes themselves."""
from typing import Any, Iterator, Mapping, Tuple

from docgen_common import md_cell


def flat_items(cfg: Mapping, prefix: str = '') -> Iterator[Tuple[str, Any]]:
    """('learn.batch_size', 64), ...: nested dicts as dotted keys; an empty dict stays a leaf."""
    for key, value in cfg.items():
        if isinstance(value, Mapping) and value:
            yield from flat_items(value, f'{prefix}{key}.')
        else:
            yield f'{prefix}{key}', value


def policy_classes():
    """(type name, class) for every policy type `ding.policy` declares, in declaration order."""
    import ding.policy  # noqa: F401  declares the types
    from ding.utils.registry import POLICY_REGISTRY
    return [(name, POLICY_REGISTRY.lookup(name)) for name in POLICY_REGISTRY.lazy]


def _summary(cls: type) -> str:
    doc = (cls.__doc__ or '').strip()
    return md_cell(doc.split('\n\n')[0]) if doc else ''


def render() -> str:
    from ding.config.schema import as_key, declared, describe
    from ding.policy.policy import Policy
    base = dict(flat_items(Policy.default_config()))
    classes = policy_classes()
    lines = ['# Config reference', '',
             'Generated at build time from each policy class\'s `default_config()`. A run\'s `policy:` section is '
             'merged over these defaults by `compile_config`; a key that is not here is refused with the nearest '
             'valid name, and a value outside "valid" is refused naming the key. **Bold** defaults differ from '
             'the base `Policy`\'s.', '',
             '| `policy.type` | class | |', '|---|---|---|']
    lines += [f'| [`{name}`](#{name}) | `{cls.__module__}.{cls.__name__}` | {_summary(cls)} |' for name, cls in classes]
    for name, cls in classes:
        lines += ['', f'## {name}', '', f'`{cls.__module__}.{cls.__name__}`', '',
                  '| key | default | valid |', '|---|---|---|']
        valid = dict(flat_items(declared(cls)))
        for key, value in flat_items(cls.default_config()):
            if key == 'cfg_type':  # DI-engine's bookkeeping name, not a setting
                continue
            shown = f'`{value!r}`'
            if key not in base or base[key] != value:
                shown = f'**{shown}**'
            kind = describe(as_key(valid[key])) if not isinstance(valid.get(key), Mapping) else 'a mapping'
            lines.append(f'| `policy.{key}` | {md_cell(shown)} | {md_cell(kind)} |')
    return '\n'.join(lines) + '\n'
