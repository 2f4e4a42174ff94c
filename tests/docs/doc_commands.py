"""The command examples of README.md and docs/*.md, read out of their fences and run.

Fences say what they hold: ```console is commands (lines starting `$ `) each followed by its
output, ```bash is commands only, ```text is output or a listing no test runs. An unlabelled
fence is an error, so a new example has to say which it is.

A command's printed output is compared by shape, not by value: each shown line must match a line
the command prints once numbers are ignored (see `shape`), and the exit status must agree with the
output (`ding: error:` shown means a non-zero exit, otherwise 0). Commands no test can run (Ray
clusters, signals, installs) are listed in NOT_RUN with why; their `ding` ones still go through
the argument parser, so a renamed flag fails there too. So does every flag that prose names in
an inline `ding SUB --flag` or an indented usage line (`stale_flags`), and every indented
`python -m MODULE --flag` line: the module's `--help` must name the flag (`stale_module_commands`).
"""
import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = ['README.md'] + sorted(os.path.join('docs', name) for name in os.listdir(os.path.join(ROOT, 'docs'))
                               if name.endswith('.md'))
DOC_CWD = '/tmp/demo'  # the directory the examples were recorded in; the test's own temp dir stands for it
DOC_ROOT = '/work/main'  # the checkout they were recorded with (`ding list` prints where the tuned configs are)
CAP = 1500  # env steps: a `ding train` example that trains runs at most this many (the random warm-up is 1000)
LANGS = {'console', 'bash', 'text', 'python', 'py', 'yaml', 'diff'}

# A command that contains one of these is not run; the reason says why, and what covers it instead.
NOT_RUN: Dict[str, str] = {
    'make ': 'builds a venv and installs packages (CI runs `make test` itself)',
    'pip install': 'installs packages; needs the network',
    # one dash: with two, tests/foundation/test_ray_grouping.py takes this file for one that starts Ray
    '-collectors ': 'a Ray run with N collectors; tests/distributed/test_train_cli.py runs one',
    'ray start': 'starts a Ray cluster on two machines',
    'ditask ': 'a 4-process Ray run; tests/distributed/test_ditask.py runs it',
    'cd ': 'changes into a user\'s folder of a distributed example',
    'kill -9': 'kills a run mid-way; tests/resume/test_checkpoint_kill.py does',
    'killed_run': 'resumes after a SIGKILL; tests/resume/test_checkpoint_kill.py covers it',
    'interrupted_run': 'needs a SIGINT mid-run; tests/entry/test_interrupt.py covers it',
    'echo $?': 'the exit status of every command run is asserted here',
    '# the disk fills up': 'needs a full disk; tests/entry/test_cli_disk_errors.py fakes ENOSPC',
    'ding tune': 'three Optuna trials take minutes; tests/entry/test_tune.py runs small studies',
}

# Files an example assumes are there before it runs (the doc says so in a comment).
SETUP: Dict[str, Callable[[str], None]] = {
    'ding train -f my_dqn.yaml': lambda cwd: _write(cwd, 'my_dqn.yaml', 'algo: dqn\nenv: {CartPole-v1\n'),
    'ding eval cartpole_dqn/ckpt/bad.pth.tar': lambda cwd: _truncate(
        cwd, 'cartpole_dqn/ckpt/final.pth.tar', 'cartpole_dqn/ckpt/bad.pth.tar', 100),
    '--exp-name afile/run': lambda cwd: _write(cwd, 'afile', ''),
}


def _write(cwd: str, name: str, text: str) -> None:
    with open(os.path.join(cwd, name), 'w') as f:
        f.write(text)


def _truncate(cwd: str, source: str, target: str, size: int) -> None:
    with open(os.path.join(cwd, source), 'rb') as f:
        data = f.read(size)
    with open(os.path.join(cwd, target), 'wb') as f:
        f.write(data)


@dataclass
class Command:
    path: str  # the page, relative to the repository root
    line: int  # 1-based line of the command in the page
    text: str  # as written, without the `$ ` prompt
    output: List[str] = field(default_factory=list)  # the lines the page shows it printing

    @property
    def where(self) -> str:
        return f'{self.path}:{self.line}'

    @property
    def argv(self) -> List[str]:
        argv = shlex.split(self.text, comments=True)
        return argv[:-1] if argv[-1:] == ['&'] else argv  # a background job: the command is the same

    @property
    def not_run_reason(self) -> Optional[str]:
        for key, reason in NOT_RUN.items():
            if key in self.text:
                return reason
        return None

    @property
    def expects_error(self) -> bool:
        return any(line.startswith('ding: error:') for line in self.output)


class DocError(Exception):
    """An example that is stale or malformed; the message starts with its file:line."""


def fences(path: str, text: str) -> List[Tuple[str, int, List[str]]]:
    """(language, line of the first content line, content lines) of each fenced block."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        match = re.match(r'^```(\S*)\s*$', lines[i])
        if not match:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != '```':
            end += 1
        if end == len(lines):
            raise DocError(f'{path}:{i + 1}: a fence that is never closed')
        blocks.append((match.group(1), i + 2, lines[i + 1:end]))
        i = end + 1
    return blocks


def commands(path: str, text: str) -> List[Command]:
    """The commands of a page's ```console and ```bash blocks, each with the output shown after it."""
    found = []
    for lang, first, body in fences(path, text):
        if lang not in LANGS:
            raise DocError(f'{path}:{first - 1}: fence language {lang!r} is not one of {sorted(LANGS)} '
                           f'(```console for commands with output, ```bash for commands, ```text for output)')
        if lang == 'console':
            for offset, line in enumerate(body):
                if line.startswith('$ '):
                    found.append(Command(path, first + offset, line[2:]))
                elif not found or found[-1].line < first:
                    raise DocError(f'{path}:{first + offset}: a ```console block must start with a `$ ` command')
                else:
                    found[-1].output.append(line)
            for command in found:
                while command.output and not command.output[-1].strip():
                    command.output.pop()
        elif lang == 'bash':
            pending, start = '', 0
            for offset, line in enumerate(body):
                if not pending:
                    start = offset
                pending += line + '\n'
                try:
                    shlex.split(pending, comments=True)
                except ValueError:  # an open quote: the command goes on on the next line
                    continue
                if pending.strip():
                    found.append(Command(path, first + start, pending.strip()))
                pending = ''
    return found


def page_commands(pages=PAGES, root=ROOT) -> List[Command]:
    found = []
    for page in pages:
        with open(os.path.join(root, page)) as f:
            found += commands(page, f.read())
    return found


def shape(line: str) -> Tuple[str, ...]:
    """The words of a line, without its numbers: `eval 9.40 | ETA -` and `eval 12.30 | ETA 0:00:00`
    have one shape, a renamed field or a changed message does not."""
    return tuple(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', line))


def cap_steps(argv: List[str]) -> List[str]:
    """A `ding train` that would train runs at most CAP env steps; a negative value shown to be
    rejected stays as written."""
    argv = list(argv)
    if argv[:2] != ['ding', 'train'] or '--dataset' in argv:  # an offline run is bounded by its updates
        return argv
    if '--max-env-step' in argv:
        i = argv.index('--max-env-step') + 1
        if argv[i].isdigit() and int(argv[i]) > CAP:
            argv[i] = str(CAP)
        return argv
    return argv + ['--max-env-step', str(CAP)]


def parse_only(command: Command) -> None:
    """The command's arguments go through `ding`'s parser: a renamed or removed flag fails."""
    from ding.entry.cli import build_parser
    argv = command.argv
    if argv[0] != 'ding':
        return
    from ding.entry.arguments import UsageError
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            build_parser().parse_args(argv[1:])
    except UsageError as err:  # ding's parser raises this instead of exiting
        raise DocError(f'{command.where}: `{command.text}` no longer parses: {err}')
    except SystemExit as exc:
        if exc.code:
            raise DocError(f'{command.where}: `{command.text}` no longer parses: {stderr.getvalue().strip()}')


def run(command: Command, cwd: str) -> Tuple[int, List[str]]:
    """Runs the command in `cwd`; returns its exit status and its stdout + stderr lines, with `cwd`
    written as the docs' DOC_CWD."""
    for key, setup in SETUP.items():
        if key in command.text:
            setup(cwd)
    argv = cap_steps(command.argv)
    if argv[0] == 'ding' and (command.expects_error or argv[1] not in ('train', 'resume')):
        code, out = _run_in_process(argv[1:], cwd)  # an error or a short command: no interpreter to start
    elif argv[0] == 'ding':
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''), OMP_NUM_THREADS='1')
        proc = subprocess.run([sys.executable, '-m', 'ding.entry.cli'] + argv[1:], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300)
        code, out = proc.returncode, proc.stdout + proc.stderr
    elif argv[0] in ('ls', 'head'):
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=30)
        code, out = proc.returncode, proc.stdout + proc.stderr
    else:
        raise DocError(f'{command.where}: `{argv[0]}` is neither run by this check nor listed in NOT_RUN')
    out = out.replace(os.path.realpath(cwd), DOC_CWD).replace(cwd, DOC_CWD).replace(ROOT, DOC_ROOT)
    return code, out.splitlines()


def _run_in_process(argv: List[str], cwd: str) -> Tuple[int, str]:
    from ding.entry.cli import main
    out, here = io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse's errors
                code = exc.code
    finally:
        os.chdir(here)
    return int(code or 0), out.getvalue()


def check(command: Command, code: int, printed: List[str]) -> None:
    """Raises DocError when the run disagrees with the page: exit status, or a shown line whose
    shape the command no longer prints."""
    shown = '\n'.join(printed[-15:])
    if command.expects_error and code == 0:
        raise DocError(f'{command.where}: `{command.text}` shows an error but exited 0; it printed:\n{shown}')
    if not command.expects_error and code != 0:
        raise DocError(f'{command.where}: `{command.text}` exited {code}; it printed:\n{shown}')
    if command.argv[0] == 'ls':  # columns depend on the terminal: compare the names
        missing = {w for line in command.output for w in line.split() if not w.endswith(':')} - {
            w for line in printed for w in line.split()}
        if missing:
            raise DocError(f'{command.where}: `{command.text}` no longer lists {sorted(missing)}')
        return
    printed_shapes = {shape(line) for line in printed}
    for offset, line in enumerate(command.output):
        if '...' in line or not shape(line):  # elided, or numbers only (a CSV row)
            continue
        if shape(line) not in printed_shapes:
            raise DocError(f'{command.where}: output line {offset + 1} of `{command.text}` is stale: the page shows\n'
                           f'  {line}\nbut the command printed:\n{shown}')


def check_pages(cwd: str, pages=PAGES, root=ROOT) -> Dict[str, int]:
    """Checks every command of `pages` in `cwd` (in page order: a page's later commands use the run
    its earlier ones made); identical commands run once. Returns counts: run, parsed only."""
    counts, results, stale = {'run': 0, 'parsed': 0}, {}, []
    for command in page_commands(pages, root):
        try:
            if command.not_run_reason:
                parse_only(command)
                counts['parsed'] += 1
                continue
            if not command.expects_error:  # a flag shown being rejected is rejected by the parser on purpose
                parse_only(command)
            if command.text not in results:
                results[command.text] = run(command, cwd)
            check(command, *results[command.text])
            counts['run'] += 1
        except DocError as err:  # every stale example in one report
            stale.append(str(err))
    if stale:
        raise DocError(f'{len(stale)} stale example(s):\n' + '\n\n'.join(stale))
    return counts


def flag_mentions(path: str, text: str) -> List[Tuple[str, str, str]]:
    """(file:line, subcommand, flag) for each flag that a `ding SUB ...` inline code span or an
    indented usage line (`    ding train --algo ... [--seed N]`) names."""
    found, sub = [], None
    for number, line in enumerate(text.splitlines(), 1):
        spans = re.findall(r'`(ding [a-z][\w-]*[^`]*)`', line)
        usage = re.match(r'^    (ding \S+.*)', line)
        if usage:
            spans.append(usage.group(1))
        elif sub and line.startswith(' ' * 5) and line.strip().startswith('['):
            spans.append(f'ding {sub} {line.strip()}')  # a usage line wrapped onto the next
        sub = None
        for span in spans:
            words = span.split()
            if words[1].startswith('-'):  # `ding -m serial ...`, `ding -v COMMAND`: DI-engine's form, its own parser
                continue
            sub = words[1] if usage else sub
            for flag in re.findall(r'(?<![\w-])(--?[a-zA-Z][\w-]*)', ' '.join(words[2:])):
                found.append((f'{path}:{number}', words[1], flag))
    return found


def stale_flags(pages=PAGES, root=ROOT) -> List[str]:
    """The flag mentions that `ding SUB` no longer takes, each with its file:line."""
    import argparse
    from ding.entry.cli import build_parser
    (sub_action, ) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    options = {name: {flag for action in parser._actions for flag in action.option_strings}
               for name, parser in sub_action.choices.items()}
    stale = []
    for page in pages:
        with open(os.path.join(root, page)) as f:
            for where, sub, flag in flag_mentions(page, f.read()):
                if sub not in options:
                    stale.append(f'{where}: `ding {sub}` is not a ding command')
                elif flag not in options[sub]:
                    stale.append(f'{where}: `ding {sub}` takes no {flag}')
    return stale


# Runs each `python -m MODULE --help` of argv[1:] in this one interpreter and prints the help texts
# between markers: one interpreter start for all of a page's module commands.
_HELP_DRIVER = '''
import contextlib, io, runpy, sys
for module in sys.argv[1:]:
    out = io.StringIO()
    sys.argv = [module, '--help']
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_module(module, run_name='__main__', alter_sys=True)
        except SystemExit:
            pass
    print('=== ' + module)
    print(out.getvalue())
'''


def module_commands(pages=PAGES, root=ROOT) -> List[Tuple[str, str, List[str]]]:
    """(file:line, module, flags) of each indented `python -m MODULE --flag ...` line of the pages."""
    found = []
    for page in pages:
        with open(os.path.join(root, page)) as f:
            for number, line in enumerate(f.read().splitlines(), 1):
                match = re.match(r'^    python -m ([\w.]+)(.*)$', line)
                if match:
                    flags = re.findall(r'(?<![\w-])(--[a-zA-Z][\w-]*)', match.group(2))
                    found.append((f'{page}:{number}', match.group(1), flags))
    return found


def stale_module_commands(pages=PAGES, root=ROOT) -> List[str]:
    """The `python -m MODULE --flag` lines whose module is gone or whose `--help` lacks a flag shown."""
    found = module_commands(pages, root)
    modules = sorted({module for _, module, _ in found})
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''), OMP_NUM_THREADS='1')
    proc = subprocess.run([sys.executable, '-c', _HELP_DRIVER] + modules, cwd=root, env=env, capture_output=True,
                          text=True, timeout=120)
    helps = dict(re.findall(r'^=== (\S+)\n(.*?)(?=^=== |\Z)', proc.stdout, re.S | re.M))
    stale = []
    for where, module, flags in found:
        if 'usage:' not in helps.get(module, ''):
            stale.append(f'{where}: `python -m {module} --help` printed no usage: {proc.stderr.strip()[-300:]}')
            continue
        stale += [f'{where}: `python -m {module}` takes no {flag}' for flag in flags if flag not in helps[module]]
    return stale
