"""Video in ``spore.dataset.vision`` (issue 14, data slice): `read_video`, `read_video_timestamps`,
`DecodeVideo` (raw file bytes in a pipeline) and `VideoDecoder` (frames by index), decoded with
FFmpeg through the ``av`` (PyAV) package, imported when first used.

Outputs follow MindSpore's documentation: video frames as uint8 RGB (T, H, W, 3), audio as
float32 (C, L) (PyAV's planar float samples: [-1, 1] for PCM sources), metadata ``{"video_fps":
float, "audio_fps": int}``. A time range in ``pts`` is in the video stream's time base (the audio
is cut to the same span in seconds, as torchvision does); with ``pts_unit="sec"`` it is in seconds.
Where MindSpore's own docs stop: an empty selection gives video (0, H, W, 3) and audio (C, 0);
`VideoDecoder` (MindSpore: Ascend only) decodes on the CPU, and its ``metadata`` keys are Spore's
(width, height, fps, num_frames, duration, codec).
"""

from __future__ import annotations

import io
import os
from fractions import Fraction
from typing import Any

import numpy as np

from ..transforms.base import TensorOperation

__all__ = ["DecodeVideo", "VideoDecoder", "read_video", "read_video_timestamps"]

_MAX_PTS = 2147483647


def _av() -> Any:
    try:
        import av
    except ImportError as e:
        raise ImportError("video decoding needs the 'av' (PyAV) package: pip install av") from e
    return av


def _open(source: Any, op: str) -> Any:
    av = _av()
    try:
        return av.open(source)
    except (av.error.FFmpegError, OSError, ValueError) as e:
        raise RuntimeError(f"{op}: cannot read the video: {type(e).__name__}: {e}") from e


def _check_file(filename: Any, op: str) -> str:
    if not isinstance(filename, str):
        raise TypeError(f"{op}: filename must be a str, got {type(filename).__name__}")
    if not os.path.isfile(filename):
        raise RuntimeError(f"{op}: {filename!r} does not exist or is not a regular file")
    return filename


def _check_pts(value: Any, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise TypeError(f"read_video: {name} must be an int, float or Fraction, got {type(value).__name__}")


def _decode(container: Any, start: float, end: float, unit: str, op: str) -> tuple[np.ndarray, np.ndarray, dict]:
    av = _av()
    video = container.streams.video[0] if container.streams.video else None
    audio = container.streams.audio[0] if container.streams.audio else None
    frames: list[np.ndarray] = []
    chunks: list[np.ndarray] = []
    # the audio is cut to the video's span in seconds (for 'pts' the bounds are video time-base units)
    if unit == "pts" and video is not None and video.time_base is not None:
        sec_start, sec_end = float(start * video.time_base), float(end * video.time_base)
    else:
        sec_start, sec_end = float(start), float(end)
    streams = [s for s in (video, audio) if s is not None]
    resampler = av.AudioResampler(format="fltp") if audio is not None else None
    try:
        for packet in container.demux(*streams):
            for frame in packet.decode():
                if frame.pts is None:
                    continue
                if packet.stream is video:
                    t = frame.pts if unit == "pts" else float(frame.pts * frame.time_base)
                    if start <= t <= end:
                        frames.append(frame.to_ndarray(format="rgb24"))
                else:
                    rate = float(frame.sample_rate)
                    t0 = float(frame.pts * frame.time_base)
                    if t0 + frame.samples / rate > sec_start and t0 <= sec_end:
                        samples = np.concatenate([o.to_ndarray() for o in resampler.resample(frame)], axis=1)
                        # keep the samples whose time lies in [sec_start, sec_end]
                        i0 = max(0, int(np.ceil((sec_start - t0) * rate - 1e-9)))
                        i1 = min(samples.shape[1], int(np.floor((sec_end - t0) * rate + 1e-9)) + 1)
                        chunks.append(samples[:, i0:i1].astype(np.float32))
    except av.error.FFmpegError as e:
        raise RuntimeError(f"{op}: cannot decode the video: {type(e).__name__}: {e}") from e
    if frames:
        visual = np.stack(frames)
    else:
        h, w = (video.codec_context.height, video.codec_context.width) if video is not None else (0, 0)
        visual = np.zeros((0, h, w, 3), np.uint8)
    channels = audio.codec_context.channels if audio is not None else 0
    sound = np.concatenate(chunks, axis=1) if chunks else np.zeros((channels, 0), np.float32)
    meta = {"video_fps": float(video.average_rate) if video is not None and video.average_rate else 0.0,
            "audio_fps": int(audio.codec_context.sample_rate) if audio is not None else 0}
    return visual, sound, meta


def read_video(filename: str, start_pts: float | Fraction | int = 0, end_pts: float | Fraction | int | None = None,
               pts_unit: str = "pts") -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """(video uint8 (T, H, W, 3), audio float32 (C, L), metadata) of the frames of ``filename`` whose
    timestamps lie in [start_pts, end_pts] (``pts_unit`` 'pts' or 'sec'; end None: to the end)."""
    _check_file(filename, "read_video")
    _check_pts(start_pts, "start_pts")
    end = _MAX_PTS if end_pts is None else end_pts
    _check_pts(end, "end_pts")
    if not isinstance(pts_unit, str):
        raise TypeError(f"read_video: pts_unit must be a str, got {type(pts_unit).__name__}")
    if pts_unit not in ("pts", "sec"):
        raise ValueError(f"read_video: pts_unit must be 'pts' or 'sec', got {pts_unit!r}")
    if start_pts < 0:
        raise ValueError(f"read_video: start_pts must be >= 0, got {start_pts}")
    if end < start_pts:
        raise ValueError(f"read_video: end_pts ({end}) must not be less than start_pts ({start_pts})")
    with _open(filename, "read_video") as container:
        return _decode(container, start_pts, end, pts_unit, "read_video")


def read_video_timestamps(filename: str, pts_unit: str = "pts") -> tuple[list[Any], float]:
    """(the timestamps of the video frames of ``filename`` in decode order — ints in the stream's
    time base, or seconds as floats with ``pts_unit='sec'`` — and the video's frame rate)."""
    _check_file(filename, "read_video_timestamps")
    if not isinstance(pts_unit, str):
        raise TypeError(f"read_video_timestamps: pts_unit must be a str, got {type(pts_unit).__name__}")
    if pts_unit not in ("pts", "sec"):
        raise ValueError(f"read_video_timestamps: pts_unit must be 'pts' or 'sec', got {pts_unit!r}")
    with _open(filename, "read_video_timestamps") as container:
        if not container.streams.video:
            return [], 0.0
        video = container.streams.video[0]
        pts = [f.pts for f in container.decode(video) if f.pts is not None]
        fps = float(video.average_rate) if video.average_rate else 0.0
        if pts_unit == "sec":
            return [float(p * video.time_base) for p in pts], fps
        return pts, fps


class DecodeVideo(TensorOperation):
    """Decode a video file's raw bytes (1-D uint8) to (video uint8 (T, H, W, 3), audio float32 (C, L))."""

    def _apply(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        arr = np.asarray(data)
        if arr.ndim != 1:
            raise RuntimeError(f"DecodeVideo: the input must be a 1-D array of bytes, got shape {arr.shape}")
        if arr.dtype != np.uint8:
            raise RuntimeError(f"DecodeVideo: the input must be uint8 bytes, got {arr.dtype}")
        if arr.size == 0:
            raise RuntimeError("DecodeVideo: the input is empty")
        with _open(io.BytesIO(arr.tobytes()), "DecodeVideo") as container:
            visual, sound, _ = _decode(container, 0, _MAX_PTS, "pts", "DecodeVideo")
        return visual, sound


class VideoDecoder:
    """Frames of one video file by index (``get_frames_at([0, 5, 9])``) and its ``metadata``."""

    def __init__(self, source: str) -> None:
        if not isinstance(source, str):
            raise TypeError(f"VideoDecoder: source must be a str, got {type(source).__name__}")
        if not os.path.isfile(source) or not os.access(source, os.R_OK):
            raise ValueError(f"VideoDecoder: {source!r} does not exist or cannot be read")
        self.source = source
        with _open(source, "VideoDecoder") as container:
            if not container.streams.video:
                raise ValueError(f"VideoDecoder: {source!r} has no video stream")
            video = container.streams.video[0]
            count = sum(1 for _ in container.decode(video))
            self._metadata = {
                "width": int(video.codec_context.width), "height": int(video.codec_context.height),
                "fps": float(video.average_rate) if video.average_rate else 0.0, "num_frames": count,
                "duration": float(container.duration / 1_000_000) if container.duration else 0.0,
                "codec": video.codec_context.name}

    @property
    def metadata(self) -> dict[str, Any]:
        """Width, height, fps, num_frames, duration (seconds) and codec name of the video stream."""
        return dict(self._metadata)

    def get_frames_at(self, indices: list[int]) -> np.ndarray:
        """The frames at ``indices`` (decode order, from 0), as uint8 RGB (T, H, W, 3) in the order asked."""
        if not isinstance(indices, list):
            raise TypeError(f"VideoDecoder.get_frames_at: indices must be a list, got {type(indices).__name__}")
        total = self._metadata["num_frames"]
        for i in indices:
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
                raise TypeError(f"VideoDecoder.get_frames_at: indices must be ints, got {i!r}")
            if not 0 <= i < total:
                raise ValueError(f"VideoDecoder.get_frames_at: index {i} is not in [0, {total})")
        wanted = set(int(i) for i in indices)
        got: dict[int, np.ndarray] = {}
        if wanted:
            with _open(self.source, "VideoDecoder") as container:
                for k, frame in enumerate(container.decode(container.streams.video[0])):
                    if k in wanted:
                        got[k] = frame.to_ndarray(format="rgb24")
                    if len(got) == len(wanted):
                        break
        h, w = self._metadata["height"], self._metadata["width"]
        return np.stack([got[int(i)] for i in indices]) if indices else np.zeros((0, h, w, 3), np.uint8)
