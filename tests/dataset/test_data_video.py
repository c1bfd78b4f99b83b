"""read_video, read_video_timestamps, DecodeVideo and VideoDecoder on a tiny video written here
with PyAV (MPEG-4 frames of solid colours, a lossless PCM sine track)."""

from __future__ import annotations

import av
import numpy as np
import pytest

import spore.dataset as ds
import spore.dataset.vision as vision

_COLORS = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (220, 220, 40), (40, 220, 220), (120, 120, 120)]
_RATE, _SR, _H, _W = 4, 8000, 16, 32


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("video") / "clip.mkv")
    c = av.open(path, "w")
    v = c.add_stream("mpeg4", rate=_RATE)
    v.width, v.height, v.pix_fmt = _W, _H, "yuv420p"
    a = c.add_stream("pcm_s16le", rate=_SR)
    a.layout = "mono"
    for color in _COLORS:
        img = np.zeros((_H, _W, 3), np.uint8)
        img[:] = color
        for p in v.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
            c.mux(p)
    t = np.arange(_SR * len(_COLORS) // _RATE)
    wave = (0.5 * np.sin(2 * np.pi * 440 * t / _SR) * 32767).astype("<i2")
    frame = av.AudioFrame.from_ndarray(wave[None, :], format="s16", layout="mono")
    frame.sample_rate, frame.pts = _SR, 0
    for p in a.encode(frame):
        c.mux(p)
    for stream in (v, a):
        for p in stream.encode():
            c.mux(p)
    c.close()
    return path, wave.astype(np.float32) / 32768.0


def test_read_video_frames_audio_and_metadata(video):
    path, wave = video
    frames, audio, meta = vision.read_video(path)
    assert frames.shape == (6, _H, _W, 3) and frames.dtype == np.uint8
    np.testing.assert_allclose(frames.reshape(6, -1, 3).mean(axis=1), np.array(_COLORS, float), atol=6)
    assert audio.dtype == np.float32 and audio.shape == (1, len(wave))
    np.testing.assert_array_equal(audio[0], wave)  # PCM is lossless
    assert meta == {"video_fps": 4.0, "audio_fps": _SR}
    part, cut, _ = vision.read_video(path, 0.5, 1.0, pts_unit="sec")
    assert part.shape[0] == 3  # frames at 0.5, 0.75, 1.0 s
    np.testing.assert_allclose(part[0].reshape(-1, 3).mean(axis=0), _COLORS[2], atol=6)
    np.testing.assert_array_equal(cut[0], wave[4000:8001])
    pts, fps = vision.read_video_timestamps(path)
    assert fps == 4.0 and len(pts) == 6 and pts == sorted(pts)
    secs, _ = vision.read_video_timestamps(path, pts_unit="sec")
    np.testing.assert_allclose(secs, [0, 0.25, 0.5, 0.75, 1.0, 1.25])
    by_pts, _, _ = vision.read_video(path, start_pts=pts[4])
    np.testing.assert_array_equal(by_pts, frames[4:])


def test_read_video_argument_errors(video, tmp_path):
    path, _ = video
    with pytest.raises(TypeError, match="filename must be a str"):
        vision.read_video(3)
    with pytest.raises(RuntimeError, match="does not exist"):
        vision.read_video(str(tmp_path / "none.mp4"))
    with pytest.raises(ValueError, match="start_pts must be >= 0"):
        vision.read_video(path, -1)
    with pytest.raises(ValueError, match="must not be less than start_pts"):
        vision.read_video(path, 5, 2)
    with pytest.raises(ValueError, match="pts_unit must be 'pts' or 'sec'"):
        vision.read_video(path, pts_unit="ms")
    with pytest.raises(TypeError, match="start_pts must be an int, float or Fraction"):
        vision.read_video(path, "0")
    (tmp_path / "junk.mp4").write_bytes(b"not a video at all")
    with pytest.raises(RuntimeError, match="cannot read the video"):
        vision.read_video(str(tmp_path / "junk.mp4"))


def test_decode_video_in_a_pipeline(video):
    path, wave = video
    raw = np.fromfile(path, np.uint8)
    data = ds.NumpySlicesDataset({"data": raw[None, :]}, shuffle=False)
    data = data.map(vision.DecodeVideo(), input_columns=["data"], output_columns=["video", "audio"])
    ((frames, audio),) = [tuple(r) for r in data.create_tuple_iterator(output_numpy=True)]
    np.testing.assert_array_equal(frames, vision.read_video(path)[0])
    np.testing.assert_array_equal(audio[0], wave)
    with pytest.raises(RuntimeError, match="must be uint8 bytes"):
        vision.DecodeVideo()(raw.astype(np.int32))
    with pytest.raises(RuntimeError, match="is empty"):
        vision.DecodeVideo()(np.zeros(0, np.uint8))


def test_video_decoder_frames_by_index(video):
    path, _ = video
    dec = vision.VideoDecoder(path)
    meta = dec.metadata
    assert (meta["width"], meta["height"], meta["num_frames"], meta["fps"]) == (_W, _H, 6, 4.0)
    frames = vision.read_video(path)[0]
    np.testing.assert_array_equal(dec.get_frames_at([5, 0, 5]), frames[[5, 0, 5]])
    with pytest.raises(ValueError, match=r"index 6 is not in \[0, 6\)"):
        dec.get_frames_at([6])
    with pytest.raises(TypeError, match="indices must be a list"):
        dec.get_frames_at((1,))
    with pytest.raises(TypeError, match="source must be a str"):
        vision.VideoDecoder(None)
