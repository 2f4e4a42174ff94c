"""`pip install ding` leaves torch out (pip's default wheel is a CUDA build); importing ding
without torch must say how to get the CPU build instead of a bare ModuleNotFoundError."""
import subprocess
import sys


def test_import_without_torch_names_the_cpu_install_command():
    code = ('import sys; sys.modules["torch"] = None\n'
            'try:\n    import ding\nexcept ImportError as e:\n    print(e)\nelse:\n    print("imported")')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=60).stdout
    assert 'pip install torch --index-url https://download.pytorch.org/whl/cpu' in out
    assert 'imported' not in out


def test_setup_keeps_torch_out_of_install_requires_and_all(monkeypatch):
    import pathlib
    import setuptools
    seen = {}
    monkeypatch.setattr(setuptools, 'setup', lambda **kw: seen.update(kw))
    root = pathlib.Path(__file__).parents[2]
    monkeypatch.chdir(root)
    exec(compile((root / 'setup.py').read_text(), 'setup.py', 'exec'), {'__name__': '__main__'})
    assert not [r for r in seen['install_requires'] if r.startswith('torch')]
    assert not [r for r in seen['extras_require']['all'] if r.startswith('torch')]
    assert seen['extras_require']['torch'] == ['torch>=2.1']
