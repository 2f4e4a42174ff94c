"""FrameBuffer (replay_buffer.type='frame'): each frame stored once as uint8, stacks rebuilt bit
for bit, never across episodes or envs, with DequeBuffer's sampling, PER and persistence."""
import numpy as np
import pytest

from ding.data import Batch, PriorityExperienceReplay
from ding.data.buffer.frame_buffer import FrameBuffer
from ding.data.buffer.frame_store import from_uint8, to_uint8
from ding.data.buffer.sequence_sampling import sample_sequences

K, H = 4, 6


def episodes(env: int, rng: np.random.Generator, scaled: bool = True):
    """Transitions of one env as a frame-stacked env makes them: a reset fills the stack with
    the first frame; every frame is random, so no two episodes share one by chance."""
    t = 0
    while True:
        length = int(rng.integers(2, 7))
        frames = rng.integers(0, 256, (length + 1, H, H), dtype=np.uint8)
        stack = [frames[0]] * K
        for s in range(length):
            obs = np.stack(stack)
            stack = stack[1:] + [frames[s + 1]]
            nxt = np.stack(stack)
            if scaled:  # ScaledFloatFrameWrapper's float32 k / 255
                obs, nxt = (obs / np.float64(255)).astype(np.float32), (nxt / np.float64(255)).astype(np.float32)
            yield dict(obs=obs, next_obs=nxt, action=np.int64(t), done=s == length - 1, env_id=env,
                       first=s == 0)
            t += 1


def fill(buf, n_push, rng, scaled=True, n_env=3):
    streams = [episodes(e, rng, scaled) for e in range(n_env)]
    rows = []
    for _ in range(n_push):
        batch_rows = [next(s) for s in streams]
        rows += batch_rows
        buf.push(Batch.from_rows(batch_rows))
    return rows


def assert_exact(buf, rows):
    ids = buf.ids_at(buf._live_slots())
    sampled = buf.sample(indices=ids).batch
    for i, row_id in enumerate(ids):
        for key in ('obs', 'next_obs', 'action', 'done'):
            np.testing.assert_array_equal(sampled[key][i], rows[row_id][key])
    return ids, sampled


@pytest.mark.parametrize('scaled', [True, False])
def test_stacks_come_back_exact_and_cost_about_one_frame(scaled):
    rng = np.random.default_rng(0)
    buf = FrameBuffer(200)
    rows = fill(buf, 40, rng, scaled)
    ids, sampled = assert_exact(buf, rows)
    assert len(ids) == 120 and sampled['obs'].dtype == (np.float32 if scaled else np.uint8)
    # one frame per transition plus one per episode start (the reset frame), nothing more
    assert buf._store.next_id == len(rows) + sum(r['first'] for r in rows)
    assert buf._store.frames.dtype == np.uint8


def nstep_rows(rows, n):
    """The rows of one env as n-step transitions (nstep_reward_enhancer's next_obs and nstep):
    next_obs is the observation s = min(n, steps to the episode end) steps on."""
    out = []
    for t, row in enumerate(rows):
        s = 1
        while s < n and t + s < len(rows) and not rows[t + s - 1]['done']:
            s += 1
        out.append(dict(row, next_obs=rows[t + s - 1]['next_obs'], done=rows[t + s - 1]['done'], nstep=s))
    return out


def test_nstep_rows_still_cost_one_frame_per_step():
    rng = np.random.default_rng(5)
    streams = [episodes(e, rng) for e in range(2)]
    per_env = [[next(s) for _ in range(40)] for s in streams]
    per_env = [nstep_rows(rows, 3) for rows in per_env]
    buf = FrameBuffer(200)
    rows = []
    for step in range(0, 40, 8):  # pushes of 6 steps of each env, interleaved as a collector hands them over
        chunk = [r for env_rows in per_env for r in env_rows[step:step + 8]]
        rows += chunk
        buf.push(Batch.from_rows(chunk))
    assert_exact(buf, rows)
    # one frame per env step seen (obs and the n-step next_obs share them), plus each reset frame
    starts = sum(r['first'] for r in rows)
    assert len(rows) == 80 and buf._store.next_id == len(rows) + starts


def test_reset_stacks_hold_only_their_own_episode():
    rng = np.random.default_rng(1)
    buf = FrameBuffer(100)
    rows = fill(buf, 20, rng)
    ids, sampled = assert_exact(buf, rows)
    firsts = [i for i, row_id in enumerate(ids) if rows[row_id]['first']]
    assert firsts
    for i in firsts:  # the stack after a reset repeats its first frame: no frame of the previous episode
        obs = sampled['obs'][i]
        assert all(np.array_equal(obs[j], obs[0]) for j in range(K))
        assert not np.array_equal(obs[0], sampled['next_obs'][i][-1])


def test_frame_ring_overflow_deletes_the_oldest_rows_through_middleware():
    rng = np.random.default_rng(2)
    buf = FrameBuffer(60, frame_slack=0)  # episodes of 2-6 steps need ~1.25 frames per row
    per = PriorityExperienceReplay(buf)
    buf.use(per)
    rows = fill(buf, 60, rng)
    assert buf.count() < 60  # some rows went early, to free their frames
    live = buf._live_slots()
    assert (per.priority[live] > 0).all() and np.count_nonzero(per.priority) == buf.count()
    assert_exact(buf, rows)
    sampled = buf.sample(16)  # PER draws only live rows, with their stacks intact
    for i, row_id in enumerate(sampled.index):
        np.testing.assert_array_equal(sampled.batch['obs'][i], rows[row_id]['obs'])


def test_sequence_replay_windows_rebuild_stacks():
    rng = np.random.default_rng(3)
    buf = FrameBuffer(120)
    rows = fill(buf, 30, rng)
    batch, index = sample_sequences(buf, 4, unroll_len=5)
    assert batch['obs'].shape == (4, 5, K, H, H)
    for b in range(4):
        for t in range(5):
            np.testing.assert_array_equal(batch['next_obs'][b, t], rows[index[b, t]]['next_obs'])


@pytest.mark.parametrize('prioritized', [False, True])
def test_sequence_samples_read_their_frames_once_and_equal_window_by_window_gathers(prioritized):
    """sample_sequences reads a FrameBuffer's frames once, after concatenating the windows' frame
    ids: the batch is bit for bit the concatenation of the windows gathered one by one."""
    def twin():
        buf = FrameBuffer(200)
        if prioritized:
            buf.use(PriorityExperienceReplay(buf, IS_weight=True))
        fill(buf, 40, np.random.default_rng(5))
        buf.rng = np.random.default_rng(6)
        return buf

    fast, slow = twin(), twin()
    batch, index = sample_sequences(fast, 8, unroll_len=5)
    windows = slow.sample(8, groupby='env_id', unroll_len=5, replace=True, ignore_insufficient=True)
    rows = Batch.cat([w.batch for w in windows])  # each window's frames read and converted on its own
    np.testing.assert_array_equal(index, np.stack([np.asarray(w.index) for w in windows]))
    assert list(batch.keys()) == list(rows.keys())
    for key in rows.keys():
        expected = np.asarray(rows[key]).reshape((8, 5) + tuple(np.shape(rows[key])[1:]))
        if key == 'priority_IS':
            expected = expected[:, 0]
        assert np.asarray(batch[key]).dtype == expected.dtype, key
        np.testing.assert_array_equal(np.asarray(batch[key]), expected, err_msg=key)
    assert not fast._ids_only_threads
    assert 'obs' in fast.sample(2).batch and 'obs_frame_ids' not in fast.sample(2).batch  # other samples: frames


def test_save_and_load_keep_the_frames(tmp_path):
    rng = np.random.default_rng(4)
    buf = FrameBuffer(50)
    rows = fill(buf, 10, rng)
    buf.save_data(str(tmp_path / 'buf.pkl'))
    other = FrameBuffer(50)
    other.load_data(str(tmp_path / 'buf.pkl'))
    assert_exact(other, rows)
    more = fill(other, 3, rng)  # pushing on after a load stays exact (a fresh stack per env)
    assert other.count() == 39 and len(more) == 9
    from_rows = FrameBuffer(50)  # a run-state checkpoint keeps only the live rows and written frames
    from_rows.load_state_dict(buf.rows_state_dict())
    assert_exact(from_rows, rows)


def test_wrong_inputs_fail_with_the_cause():
    buf = FrameBuffer(10)
    off_grid = dict(obs=np.full((K, H, H), 0.3, np.float32), next_obs=np.zeros((K, H, H), np.float32), env_id=0)
    with pytest.raises(ValueError, match='multiples of 1/255'):
        buf.push(off_grid)
    with pytest.raises(ValueError, match='stacked frames'):
        buf.push(dict(obs=np.zeros(4, np.float32), next_obs=np.zeros(4, np.float32)))
    buf.push(dict(obs=np.zeros((K, H, H), np.uint8), next_obs=np.zeros((K, H, H), np.uint8), env_id=0))
    with pytest.raises(ValueError, match='holds uint8 stacks of 4 frames .* got float stacks'):
        buf.push(dict(obs=np.zeros((K, H, H), np.float32), next_obs=np.zeros((K, H, H), np.float32), env_id=0))
    with pytest.raises(ValueError, match='keep the fields of the first push'):
        buf.push(dict(obs=np.zeros((K, H, H), np.uint8), next_obs=np.zeros((K, H, H), np.uint8), env_id=0, extra=1))
    with pytest.raises(TypeError, match='does not rewrite stored data'):
        buf.update(0, data={'obs': np.zeros((K, H, H), np.uint8)})


def test_uint8_coding_is_lossless_for_scaled_float_frames():
    k = np.arange(256, dtype=np.uint8)
    scaled = (k - np.uint8(0)) / np.uint8(255)  # ScaledFloatFrameWrapper's arithmetic
    coded = to_uint8(scaled.astype(np.float32), 'obs')
    assert coded.dtype == np.uint8 and np.array_equal(coded, k)
    assert np.array_equal(from_uint8(coded, True), scaled.astype(np.float32))
