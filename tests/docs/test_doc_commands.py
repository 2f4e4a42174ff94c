"""Every command example of README.md and docs/*.md runs as shown (or, where it cannot run in a
test, still parses), and the output the page shows has the shape of what the command prints.
The checker is tests/docs/doc_commands.py; these run it on the pages and on stale examples."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import doc_commands  # noqa: E402
from doc_commands import Command, DocError, check, commands, page_commands, parse_only, shape  # noqa: E402


def test_every_fence_says_what_it_holds():
    found = page_commands()  # raises DocError on an unlabelled fence
    pages = {c.path for c in found}
    assert {'README.md', 'docs/operations.md', 'docs/export.md', 'docs/custom_env.md'} <= pages
    assert sum(c.text.startswith('ding ') for c in found) >= 30
    with pytest.raises(DocError, match=r'^page.md:3: fence language '):
        commands('page.md', 'text\n\n```\n$ ding list\n```\n')


def test_console_blocks_pair_each_command_with_its_output():
    page = 'intro\n```console\n$ ding list\nalgorithms: dqn\n\n$ ding eval run --episodes 3\nMean reward: 1\n```\n'
    first, second = commands('p.md', page)
    assert (first.line, first.text, first.output) == (3, 'ding list', ['algorithms: dqn'])
    assert (second.line, second.argv, second.output) == (6, ['ding', 'eval', 'run', '--episodes', '3'],
                                                         ['Mean reward: 1'])
    # a ```bash command may go on over lines inside its quotes
    (multi, ) = commands('p.md', "```bash\nding train --config '{\n  \"a\": 1}'   # note\n```\n")
    assert multi.argv == ['ding', 'train', '--config', '{\n  "a": 1}']


def test_shape_ignores_numbers_but_not_words():
    assert shape('env_step 256/3,000 | 1,886 steps/s | eval 9.40 | ETA -') == \
        shape('env_step 1,000/300 | 2,271 steps/s | eval 12.30 | ETA 0:00:00')
    assert shape('finished: env_step=3072 train_iter=768') != shape('finished: env_steps=3072 train_iter=768')


def test_a_renamed_flag_fails_with_the_file_and_line():
    stale = Command('docs/operations.md', 42, 'ding train --algo dqn --env CartPole-v1 --max-env-steps 3000')
    with pytest.raises(DocError, match=r'^docs/operations.md:42: .* no longer parses: .*--max-env-steps'):
        parse_only(stale)


def test_a_changed_output_line_fails_with_the_file_and_line():
    shown = Command('README.md', 7, 'ding eval run', ['Mean reward: 174.00 (std 86.17) over 3 episodes'])
    check(shown, 0, ['Episode #0: reward: 9.0', 'Mean reward: 9.00 (std 0.00) over 1 episodes'])  # numbers differ: fine
    with pytest.raises(DocError, match=r'^README.md:7: output line 1 of `ding eval run` is stale'):
        check(shown, 0, ['Average reward: 9.00 (std 0.00) over 1 episodes'])
    with pytest.raises(DocError, match=r'^README.md:7: `ding eval run` exited 2'):
        check(shown, 2, ['ding: error: run is not a run directory'])
    error = Command('README.md', 9, 'ding train --algo dqnn', ['ding: error: unknown algorithm'])
    with pytest.raises(DocError, match=r'shows an error but exited 0'):
        check(error, 0, [])


def test_a_stale_page_fails_the_check(tmp_path):
    """The whole check on a copy of a page with one example gone stale: it names the page and line."""
    (tmp_path / 'docs').mkdir()
    (tmp_path / 'docs' / 'page.md').write_text(
        '# A page\n\n```console\n$ ding list\n\n$ ding check-env CartPole-v1\n'
        '$ ding train --algo dqnn --env CartPole-v1\n'
        'ding: error: no such algorithm \'dqnn\'\n```\n')
    run_dir = tmp_path / 'run'
    run_dir.mkdir()
    stale = r"^1 stale example\(s\):\ndocs/page.md:7: output line 1 of `ding train --algo dqnn"
    with pytest.raises(DocError, match=stale):
        doc_commands.check_pages(str(run_dir), pages=['docs/page.md'], root=str(tmp_path))


def test_every_page_command_runs_or_parses(tmp_path):
    counts = doc_commands.check_pages(str(tmp_path))
    print(counts)
    assert counts['run'] >= 25 and counts['parsed'] >= 10, counts


def test_every_flag_the_prose_names_exists():
    assert doc_commands.stale_flags() == []
    mentions = [m for page in doc_commands.PAGES for m in doc_commands.flag_mentions(page, open(
        os.path.join(doc_commands.ROOT, page)).read())]
    assert ('docs/operations.md', 'train', '--no-progress') in {(w.split(':')[0], s, f) for w, s, f in mentions}
    assert len(mentions) >= 50


def test_a_renamed_flag_in_prose_or_usage_fails(tmp_path):
    (tmp_path / 'page.md').write_text('Stop with `ding train --max-steps 10`.\n\n'
                                      '    ding eval RUN [--episodes N]\n'
                                      '              [--render-to OUT.gif]\n')
    assert doc_commands.stale_flags(pages=['page.md'], root=str(tmp_path)) == [
        'page.md:1: `ding train` takes no --max-steps', 'page.md:4: `ding eval` takes no --render-to']


def test_every_python_m_command_names_a_module_and_its_flags():
    found = doc_commands.module_commands()
    assert ('docs/offline.md', 'dizoo.classic_control.pendulum.entry.pendulum_make_dataset', ('--kind', '--out')) in {
        (where.split(':')[0], module, tuple(flags)) for where, module, flags in found}
    assert len(found) >= 4
    assert doc_commands.stale_module_commands() == []


def test_a_stale_python_m_command_fails(tmp_path):
    (tmp_path / 'page.md').write_text('Make one:\n\n'
                                      '    python -m dizoo.classic_control.cartpole.entry.cartpole_dqn_main --seeds 3\n'
                                      '    python -m dizoo.classic_control.cartpole.entry.no_such_main --seed 0\n')
    stale = doc_commands.stale_module_commands(pages=['page.md'], root=str(tmp_path))
    assert stale[0] == 'page.md:3: `python -m dizoo.classic_control.cartpole.entry.cartpole_dqn_main` takes no --seeds'
    assert stale[1].startswith('page.md:4: `python -m dizoo.classic_control.cartpole.entry.no_such_main --help` '
                               'printed no usage')
    assert len(stale) == 2
