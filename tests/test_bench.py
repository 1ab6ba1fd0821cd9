import pytest

from icml26 import bench


def test_time_call_counts_calls_and_returns_mean_seconds():
    calls = []
    seconds = bench.time_call(lambda: calls.append(1), repeats=4, warmup=2)
    assert len(calls) == 6 and seconds >= 0


def test_ratio_line_and_bad_input():
    assert "2.0x faster" in bench.ratio_line("x", 0.2, 0.1)
    with pytest.raises(ValueError, match="positive"):
        bench.ratio_line("x", 0.0, 0.1)
    with pytest.raises(ValueError, match="repeats"):
        bench.time_call(lambda: None, repeats=0)


def test_parse_args():
    args, device = bench.parse_args("d", ["--quick"])
    assert args.quick and device.type == "cpu"
