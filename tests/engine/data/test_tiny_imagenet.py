"""Tiny-ImageNet: the tiny-imagenet-200 tree decoded with PIL, the .npz cache, errors."""
import numpy as np
import pytest
import torch

from fedquad_core.data import DataError, check_data, load_dataset, tiny_imagenet


def test_tree_round_trip(tiny_tree):
    check_data("tiny-imagenet", data_dir=str(tiny_tree.root))
    ds = load_dataset("tiny-imagenet", data_dir=str(tiny_tree.root))
    assert ds.x_train.shape == (6, 3, 64, 64) and ds.x_test.shape == (4, 3, 64, 64)
    assert ds.x_train.dtype == torch.uint8 and ds.y_train.dtype == torch.int64
    assert ds.y_train.tolist() == [0, 0, 1, 1, 2, 2]
    assert ds.y_test.tolist() == tiny_tree.val_labels
    assert ds.num_classes == 3 and ds.input_shape == (3, 64, 64) and ds.augment_default
    assert ds.class_names == ("goldfish", "European fire salamander", "n01641577")
    # flat colours survive JPEG within a few levels; grey -> 3 equal channels; 48px -> 64px
    mean_colour = ds.x_train.float().mean(dim=(2, 3)).numpy()
    assert np.abs(mean_colour - tiny_tree.train_colours()).max() <= 3
    assert ds.x_test[1].float().mean(dim=(1, 2)).numpy() == pytest.approx([70, 90, 30], abs=3)


def test_cache_is_written_atomically_and_reused(tiny_tree, monkeypatch):
    first = load_dataset("tiny-imagenet", data_dir=str(tiny_tree.root))
    cache = tiny_tree.dir / ".fedquad_cache.npz"
    assert cache.is_file()
    assert [p.name for p in tiny_tree.dir.iterdir() if p.name.endswith(".tmp")] == []

    def no_decoding(paths):
        raise AssertionError("JPEGs decoded although the cache exists")

    monkeypatch.setattr(tiny_imagenet, "_decode", no_decoding)
    second = load_dataset("tiny-imagenet", data_dir=str(tiny_tree.root))
    assert torch.equal(first.x_train, second.x_train)
    assert torch.equal(first.y_test, second.y_test)
    assert first.class_names == second.class_names


def test_stale_or_broken_cache_is_rebuilt(tiny_tree):
    load_dataset("tiny-imagenet", data_dir=str(tiny_tree.root))
    wnids = tiny_tree.dir / "wnids.txt"
    wnids.write_text("\n".join(reversed(tiny_tree.WNIDS)))   # class order changed
    ds = load_dataset("tiny-imagenet", data_dir=str(tiny_tree.root))
    assert ds.y_train.tolist() == [0, 0, 1, 1, 2, 2]
    assert ds.y_test.tolist() == [2 - y for y in tiny_tree.val_labels]
    (tiny_tree.dir / ".fedquad_cache.npz").write_bytes(b"not a zip file")
    assert len(load_dataset("tiny-imagenet", data_dir=str(tiny_tree.root)).x_train) == 6


def test_unknown_wnid_in_annotations_is_corrupt(tiny_tree):
    ann = tiny_tree.dir / "val" / "val_annotations.txt"
    ann.write_text(ann.read_text() + "val_9.JPEG\tn00000000\t0\t0\t1\t1\n")
    with pytest.raises(DataError, match="corrupt .*val_annotations.txt"):
        load_dataset("tiny-imagenet", data_dir=str(tiny_tree.root))


def test_unreadable_jpeg_is_reported(tiny_tree):
    (tiny_tree.dir / "val" / "images" / "val_2.JPEG").write_bytes(b"\xff\xd8 broken")
    with pytest.raises(DataError, match="unreadable image .*val_2.JPEG"):
        load_dataset("tiny-imagenet", data_dir=str(tiny_tree.root))


def test_missing_tree_names_the_remedy(tmp_path):
    for call in (check_data, load_dataset):
        with pytest.raises(DataError) as err:
            call("tiny-imagenet", data_dir=str(tmp_path))
        msg = str(err.value)
        assert "\n" not in msg and "tiny-imagenet-200" in msg
        assert "--data-dir PATH" in msg and "--download" in msg


def test_prepare_augments_64px_images(tiny_tree):
    ds = load_dataset("tiny-imagenet", data_dir=str(tiny_tree.root))
    g = torch.Generator().manual_seed(0)
    out = ds.prepare(ds.x_train, augment=True, generator=g)
    assert out.shape == (6, 3, 64, 64) and out.dtype == torch.float32


def _run_cli(tree, capsys):
    from fedquad_core.cli import main

    runs = tree.root.parent / "runs"
    code = main(["run", "--dataset", "tiny-imagenet", "--data-dir", str(tree.root), "--runs-dir", str(runs),
                 "--rounds", "1", "--clients", "2", "--no-progress"])
    err = capsys.readouterr().err.strip()
    return code, err, runs


def test_an_unreadable_cache_with_no_images_is_one_line_before_any_run_folder(tiny_tree, capsys):
    """Issue 34: a folder holding only an unreadable cache ended in a traceback."""
    import shutil

    load_dataset("tiny-imagenet", data_dir=str(tiny_tree.root))
    for name in ("train", "val", "wnids.txt", "words.txt"):
        path = tiny_tree.dir / name
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    (tiny_tree.dir / ".fedquad_cache.npz").write_bytes(b"not a zip file")
    code, err, runs = _run_cli(tiny_tree, capsys)
    assert code == 2 and "Traceback" not in err and "cannot be read and there are no images" in err
    assert not any(runs.glob("*/config.json"))


def test_a_cache_of_wrong_shapes_is_one_line_before_any_run_folder(tiny_tree, capsys):
    np.savez(tiny_tree.dir / ".fedquad_cache.npz", x_train=np.zeros((6, 3, 32, 32), np.uint8),
             y_train=np.zeros(6, np.int64), x_test=np.zeros((4, 3, 64, 64), np.uint8), y_test=np.zeros(4, np.int64),
             wnids=np.asarray(tiny_tree.WNIDS))
    code, err, runs = _run_cli(tiny_tree, capsys)
    assert code == 2 and "Traceback" not in err and "not N x 3 x 64 x 64 images" in err
    assert not any(runs.glob("*/config.json"))


def test_a_cache_whose_header_claims_a_huge_array_is_one_line_before_any_run_folder(tiny_tree, capsys):
    """Issue 47: the loader's np.load would allocate what a header claims (a 4 TB x_train here);
    the preflight compares each header with the zip's sizes first."""
    import io
    import zipfile

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "|u1", "fortran_order": False,
                                                  "shape": (10**8, 3, 64, 64)})
    with zipfile.ZipFile(tiny_tree.dir / ".fedquad_cache.npz", "w") as z:
        z.writestr("x_train.npy", header.getvalue() + bytes(64))
        for key, value in (("y_train", np.zeros(1, np.int64)), ("x_test", np.zeros((4, 3, 64, 64), np.uint8)),
                           ("y_test", np.zeros(4, np.int64)), ("wnids", np.asarray(tiny_tree.WNIDS))):
            buf = io.BytesIO()
            np.save(buf, value)
            z.writestr(f"{key}.npy", buf.getvalue())
    code, err, runs = _run_cli(tiny_tree, capsys)
    assert code == 2 and "Traceback" not in err and "MemoryError" not in err, err
    assert "Tiny-ImageNet cache" in err and "is damaged" in err and "'x_train' claims (100000000, 3, 64, 64) uint8" in err
    assert len(err.splitlines()) == 1 and not any(runs.glob("*/config.json")), err
