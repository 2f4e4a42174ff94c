"""`ding eval --render out.mp4`: an H.264 MP4 through imageio-ffmpeg's own ffmpeg binary, one
video frame per rendered env frame; without the `video` extra, one `ding: error:` line."""
import sys

import pytest

from ding.entry.cli import main


def test_eval_renders_an_mp4_with_every_frame(tiny_run, tmp_path, capsys):
    import imageio.v2 as imageio
    import imageio_ffmpeg
    video = tmp_path / 'videos' / 'cartpole.mp4'
    assert main(['eval', str(tiny_run), '--episodes', '2', '--render', str(video), '--fps', '30']) == 0
    lines = capsys.readouterr().out.splitlines()
    lengths = [float(line.split('reward: ')[1]) for line in lines[:2]]  # CartPole: +1 a step
    frames = int(sum(lengths)) + 2  # each episode's first frame, then one a step
    assert lines[3] == f'video: {video} ({frames} frames)'

    assert imageio_ffmpeg.count_frames_and_secs(str(video))[0] == frames
    reader = imageio.get_reader(str(video))
    try:
        meta = reader.get_meta_data()
        assert meta['codec'] == 'h264' and meta['fps'] == 30 and meta['size'] == (600, 400)  # not padded to x16
        first = reader.get_data(0)
    finally:
        reader.close()
    assert first.shape == (400, 600, 3) and first.mean() > 200  # CartPole's mostly white frame
    assert [p.name for p in video.parent.iterdir()] == ['cartpole.mp4']  # no temporary file left


@pytest.mark.parametrize('module', ['imageio_ffmpeg', 'pygame'])
def test_mp4_without_the_video_extra_names_it_before_playing(tiny_run, tmp_path, capsys, monkeypatch, module):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    assert main(['eval', str(tiny_run), '--render', str(tmp_path / 'v.mp4')]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith('ding: error: ') and 'Traceback' not in captured.err
    assert f'{module} is not installed; install it with: pip install "ding[video]"' in captured.err
    assert 'Episode' not in captured.out and not (tmp_path / 'v.mp4').exists()
