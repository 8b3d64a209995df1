"""numba unpickles its cache index files: its cache folder is used only when it is private to this
user (issue 34, item 7). A folder owned by another user, writable by the group or others, or a
symbolic link leaves caching off."""
from __future__ import annotations

import os
import stat

import pytest

from app.projection.umap_fit import private_dir


def test_a_new_cache_folder_is_created_private(tmp_path):
    folder = private_dir(tmp_path / "numba")
    assert folder is not None and stat.S_IMODE(os.stat(folder).st_mode) & 0o077 == 0


@pytest.mark.parametrize("mode", [0o775, 0o777, 0o757])
def test_a_group_or_world_writable_folder_is_not_used(tmp_path, mode):
    folder = tmp_path / "numba"
    folder.mkdir()
    folder.chmod(mode)
    assert private_dir(folder) is None


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_folder_owned_by_another_user_is_not_used(tmp_path):
    folder = tmp_path / "numba"
    folder.mkdir(mode=0o700)
    os.chown(folder, 12345, 12345)
    assert private_dir(folder) is None


def test_a_symbolic_link_is_not_followed(tmp_path):
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert private_dir(tmp_path / "link") is None


def test_caching_stays_off_where_the_folder_is_not_private(tmp_path, monkeypatch):
    from app.projection import umap_fit

    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert umap_fit.enable_numba_cache(folder) is False
    assert "NUMBA_CACHE_DIR" not in os.environ
