"""Dataset.prepare: normalisation checked by hand, augmentation determinism and geometry."""
import pytest
import torch

from fedquad_core.data import Dataset
from fedquad_core.data.augment import random_crop_flip


def make(shape, mean, std, name="toy"):
    empty = torch.zeros((0, *shape), dtype=torch.uint8)
    labels = torch.zeros(0, dtype=torch.int64)
    return Dataset(name=name, x_train=empty, y_train=labels, x_test=empty, y_test=labels,
                   num_classes=2, class_names=("a", "b"), input_shape=shape, mean=mean,
                   std=std, augment_default=len(shape) == 3)


def test_prepare_normalises_two_pixels_by_hand():
    # 1 channel, 1x2 image with pixels 0 and 255; mean 0.5, std 0.25:
    # 0 -> (0 - 0.5)/0.25 = -2 ; 255 -> (1 - 0.5)/0.25 = 2
    ds = make((1, 1, 2), (0.5,), (0.25,))
    out = ds.prepare(torch.tensor([[[[0, 255]]]], dtype=torch.uint8))
    assert out.dtype == torch.float32
    assert out.tolist() == [[[[-2.0, 2.0]]]]


def test_prepare_normalises_each_channel_with_its_own_constants():
    # 2 channels of 1x1: pixel 51 = 0.2 in channel 0, 102 = 0.4 in channel 1
    ds = make((2, 1, 1), (0.1, 0.2), (0.5, 0.1))
    out = ds.prepare(torch.tensor([[[[51]], [[102]]]], dtype=torch.uint8))
    assert out.flatten().tolist() == pytest.approx([(0.2 - 0.1) / 0.5, (0.4 - 0.2) / 0.1])


def test_prepare_flat_float_input():
    ds = make((2,), (0.5,), (0.5,))
    out = ds.prepare(torch.tensor([[0.0, 1.0]]))
    assert out.tolist() == [[-1.0, 1.0]]


def test_prepare_rejects_wrong_shape_and_flat_augmentation():
    with pytest.raises(ValueError, match="expected a batch"):
        make((1, 4, 4), (0.0,), (1.0,)).prepare(torch.zeros(2, 1, 5, 4, dtype=torch.uint8))
    with pytest.raises(ValueError, match="augmentation needs"):
        make((4,), (0.0,), (1.0,)).prepare(torch.zeros(2, 4), augment=True)


def batch(n=16, c=3, size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, (n, c, size, size), generator=g, dtype=torch.uint8)


def test_augment_is_deterministic_for_a_generator_state_and_changes_images():
    ds = make((3, 32, 32), (0.5, 0.5, 0.5), (0.2, 0.2, 0.2))
    x = batch()
    a = ds.prepare(x, augment=True, generator=torch.Generator().manual_seed(7))
    b = ds.prepare(x, augment=True, generator=torch.Generator().manual_seed(7))
    c = ds.prepare(x, augment=True, generator=torch.Generator().manual_seed(8))
    plain = ds.prepare(x)
    assert a.shape == plain.shape == x.shape
    assert torch.equal(a, b)
    assert not torch.equal(a, c)
    assert not torch.equal(a, plain)


def _crop_offset(out, img, pad):
    """(oy, ox, flipped) of the padded window that ``out`` is, else None."""
    padded = torch.nn.functional.pad(img, (pad, pad, pad, pad))
    h, w = img.shape[-2:]
    for oy in range(2 * pad + 1):
        for ox in range(2 * pad + 1):
            window = padded[:, oy:oy + h, ox:ox + w]
            for flipped in (False, True):
                if torch.equal(out, window.flip(-1) if flipped else window):
                    return oy, ox, flipped
    return None


@pytest.mark.parametrize("size,pad", [(32, 4), (64, 8)])
def test_every_augmented_image_is_a_padded_crop_possibly_flipped(size, pad):
    x = batch(n=6, size=size, seed=size).float()
    out = random_crop_flip(x, pad=pad, generator=torch.Generator().manual_seed(3))
    assert out.shape == x.shape
    assert all(_crop_offset(out[i], x[i], pad) is not None for i in range(len(x)))


def test_crop_offsets_cover_the_whole_range_independently():
    n, pad = 300, 4
    img = (torch.arange(64, dtype=torch.float32) + 1).view(1, 1, 8, 8)  # unique, non-zero pixels
    x = img.expand(n, 1, 8, 8).contiguous()
    out = random_crop_flip(x, pad=pad, generator=torch.Generator().manual_seed(11))
    found = [_crop_offset(out[i], x[i], pad) for i in range(n)]
    assert None not in found
    oys, oxs = {f[0] for f in found}, {f[1] for f in found}
    assert oys == oxs == set(range(2 * pad + 1))
    assert len({(f[0], f[1]) for f in found}) > 40          # not tied together
    assert 0.35 < sum(f[2] for f in found) / n < 0.65        # flips about half


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_augment_runs_on_cuda_with_a_cuda_generator():
    ds = make((3, 32, 32), (0.5,) * 3, (0.2,) * 3)
    x = batch().cuda()
    g = torch.Generator(device="cuda").manual_seed(1)
    out = ds.prepare(x, augment=True, generator=g)
    again = ds.prepare(x, augment=True, generator=torch.Generator(device="cuda").manual_seed(1))
    assert out.device == x.device and torch.equal(out, again)
    with pytest.raises(ValueError, match="generator is on"):
        ds.prepare(x, augment=True, generator=torch.Generator().manual_seed(1))


def test_pad_zero_only_flips_and_flips_about_half():
    x = batch(n=200, c=1, size=8).float()
    out = random_crop_flip(x, pad=0, generator=torch.Generator().manual_seed(0))
    same = [torch.equal(o, i) for o, i in zip(out, x)]
    flipped = [torch.equal(o, i.flip(-1)) for o, i in zip(out, x)]
    assert all(s or f for s, f in zip(same, flipped))
    assert 60 < sum(flipped) < 140


def test_dataset_uses_pad_8_for_64px_and_4_otherwise():
    assert make((3, 64, 64), (0.0,) * 3, (1.0,) * 3).crop_padding == 8
    assert make((3, 32, 32), (0.0,) * 3, (1.0,) * 3).crop_padding == 4
