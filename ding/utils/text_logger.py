"""`build_logger(path, name)`: a pair of a text logger (console and `<path>/<name>_logger.txt`)
and a tensorboard writer (`<path>/<name>_tb_logger`, tensorboardX imported only when asked for)."""
import logging
import os
from typing import Any, Optional, Tuple, Union


def build_logger(path: str, name: Optional[str] = None, need_tb: bool = True, need_text: bool = True,
                 text_level: Union[int, str] = logging.INFO) -> Tuple[Optional[logging.Logger], Optional[Any]]:
    name = name or 'default'
    os.makedirs(path, exist_ok=True)
    logger = None
    if need_text:
        logger = logging.getLogger(f'ding.build_logger.{os.path.abspath(path)}.{name}')
        logger.setLevel(text_level)
        target = os.path.abspath(os.path.join(path, f'{name}_logger.txt'))
        # Calling it twice for the same file must not log every line twice.
        if not any(getattr(h, 'baseFilename', None) == target for h in logger.handlers):
            handler = logging.FileHandler(target)
            handler.setFormatter(logging.Formatter('[%(asctime)s][%(levelname)s] %(message)s'))
            logger.addHandler(handler)
    tb_logger = None
    if need_tb:
        from tensorboardX import SummaryWriter
        tb_logger = SummaryWriter(os.path.join(path, f'{name}_tb_logger'))
    return logger, tb_logger
