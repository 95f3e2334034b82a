"""Tests of the Device API's memory side: open/close, alloc/free, copies and their errors."""
import numpy as np
import pytest

import compiler.backends  # noqa: F401 - the cpu and gpu Target kinds come with it
from npusim.runtime import (Device, DeviceBufferError, DeviceClosedError, DeviceError,
                            OutOfMemoryError)


@pytest.fixture
def dev():
    with Device("npu-tiny") as d:
        yield d


def test_device_dram_is_the_targets_size(dev):
    assert dev.dram.size == 1 << 20  # npu-tiny: dram-mb=1
    assert dev.pool.size == 1 << 20 and dev.name == "npu-tiny"


def test_alloc_forms_and_round_trip(dev):
    a = dev.alloc(((4, 4), "int8"), name="A")
    b = dev.alloc((2, 3), "int32", name="B")
    raw = dev.alloc(10, name="raw")
    assert (a.addr, a.nbytes, a.shape, a.dtype) == (0, 16, (4, 4), np.int8)
    assert (b.addr, b.nbytes) == (64, 24) and (raw.addr, raw.raw) == (128, True)
    x = np.arange(-8, 8, dtype=np.int8).reshape(4, 4)
    y = np.array([[1, -2, 3], [2**31 - 1, -2**31, 0]], dtype=np.int32)
    dev.copy_to_device(a, x)
    dev.copy_to_device(b, y)
    dev.copy_to_device(raw, np.arange(5, dtype=np.int16))  # any 10-byte array fits a raw buffer
    np.testing.assert_array_equal(dev.copy_from_device(a), x)
    np.testing.assert_array_equal(dev.copy_from_device(b), y)
    np.testing.assert_array_equal(dev.copy_from_device(raw).view(np.int16), np.arange(5))
    # DRAM holds little-endian words, as the DMA sees them.
    assert bytes(dev.dram.bytes[64:68]) == (1).to_bytes(4, "little")


def test_copy_mismatches_name_the_buffer_and_both_shapes(dev):
    a = dev.alloc((4, 4), "int8", name="A")
    with pytest.raises(DeviceBufferError, match=r"buffer 'A' is int8\[4,4\], the host array is "
                                                r"int32\[4,4\]; cast with .astype\('int8'\)"):
        dev.copy_to_device(a, np.zeros((4, 4), np.int32))
    with pytest.raises(DeviceBufferError, match=r"int8\[16\]; reshape to \(4, 4\)"):
        dev.copy_to_device(a, np.zeros(16, np.int8))
    raw = dev.alloc(8)
    with pytest.raises(DeviceBufferError, match="holds 8 B, the host array int8\\[9\\] has 9 B"):
        dev.copy_to_device(raw, np.zeros(9, np.int8))


def test_free_reuses_memory_and_catches_double_free_and_foreign_buffers(dev):
    a = dev.alloc(100, name="A")
    dev.free(a)
    b = dev.alloc(100, name="B")
    assert b.addr == a.addr and a.freed and not b.freed
    with pytest.raises(DeviceBufferError, match="free: buffer 'A' at 0x0 was already freed"):
        dev.free(a)
    with pytest.raises(DeviceBufferError, match="copy_from_device: buffer 'A'.*use after free"):
        dev.copy_from_device(a)
    with Device("npu-tiny") as other:
        c = other.alloc(4, name="C")
        with pytest.raises(DeviceBufferError, match="buffer 'C' belongs to another device"):
            dev.free(c)
    with pytest.raises(DeviceBufferError, match="needs a DeviceBuffer.*got int"):
        dev.free(0)


def test_out_of_memory_is_a_device_error_with_the_picture(dev):
    dev.alloc(1 << 19, name="half")
    with pytest.raises(OutOfMemoryError, match=r"out of npu-tiny DRAM: cannot allocate 1048576 B "
                                               r"'big'.*524288 B free in 1 blocks"):
        dev.alloc(1 << 20, name="big")


def test_use_after_close():
    dev = Device("npu-tiny")
    buf = dev.alloc(16)
    dev.close()
    dev.close()  # idempotent
    for call in (lambda: dev.alloc(4), lambda: dev.copy_from_device(buf), lambda: dev.free(buf),
                 lambda: dev.run([])):
        with pytest.raises(DeviceClosedError, match="on closed device npu-tiny; open a new"):
            call()
    assert buf.freed and repr(dev) == "<Device npu-tiny: closed>"


def test_bad_targets():
    with pytest.raises(DeviceError, match="cannot open device: unknown target kind 'npu-tinyy'"):
        Device("npu-tinyy")
    with pytest.raises(DeviceError, match="cannot open a device for a cpu target"):
        Device("cpu-host")


def test_upload_and_stats(dev):
    buf = dev.upload(np.ones((3, 5), np.int8), name="ones")
    assert buf.shape == (3, 5) and dev.copy_from_device(buf).sum() == 15
    s = dev.stats()
    assert (s["runs"], s["total_cycles"], s["buffers"]) == (0, 0, 1)
    assert s["pool"]["in_use"] == 15 and s["pool"]["peak_in_use"] == 15
