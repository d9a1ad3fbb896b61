"""The data loaders of Task 4.5's scripts (plumbing, not a task: no marker).

Every test writes its own tiny files; the downloader is exercised with ``file://``
URLs, so nothing touches the network.
"""

from __future__ import annotations

import gzip
import hashlib
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from module4_networks import data


def idx_bytes(array: np.ndarray, code: int = 0x08) -> bytes:
    """The IDX encoding of ``array``, written independently of ``data.read_idx``."""
    header = struct.pack(">BBBB", 0, 0, code, array.ndim)
    header += b"".join(struct.pack(">I", n) for n in array.shape)
    big_endian = {0x08: ">u1", 0x0B: ">i2"}[code]
    return header + array.astype(big_endian).tobytes()


def md5(blob: bytes) -> str:
    return hashlib.md5(blob).hexdigest()


def write_mnist(directory: Path, split: str, n: int, compress: bool = True) -> tuple:
    rng = np.random.default_rng(n)
    images = rng.integers(0, 256, size=(n, 28, 28)).astype(np.uint8)
    labels = rng.integers(0, 10, size=n).astype(np.uint8)
    (images_name, _), (labels_name, _) = data.MNIST_FILES[split]
    for name, array in ((images_name, images), (labels_name, labels)):
        blob = idx_bytes(array)
        if compress:
            (directory / name).write_bytes(gzip.compress(blob))
        else:
            (directory / name[:-3]).write_bytes(blob)
    return images, labels


# ----------------------------------------------------------------------- IDX
@pytest.mark.parametrize("compress", [True, False])
def test_read_idx_reads_images_and_labels(tmp_path, compress):
    images = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    blob = idx_bytes(images)
    path = tmp_path / "images.idx"
    path.write_bytes(gzip.compress(blob) if compress else blob)
    got = data.read_idx(path)
    assert got.dtype == np.uint8 and got.shape == (2, 3, 4)
    np.testing.assert_array_equal(got, images)


def test_read_idx_rejects_other_types_than_unsigned_bytes(tmp_path):
    (tmp_path / "a.idx").write_bytes(idx_bytes(np.array([1, -2], np.int16), 0x0B))
    with pytest.raises(ValueError, match="not an IDX file of unsigned bytes"):
        data.read_idx(tmp_path / "a.idx")


def test_read_idx_rejects_bad_magic_and_truncated_files(tmp_path):
    (tmp_path / "bad").write_bytes(b"PK\x03\x04rest")
    with pytest.raises(ValueError, match="not an IDX file"):
        data.read_idx(tmp_path / "bad")
    blob = idx_bytes(np.zeros((2, 5), dtype=np.uint8))
    (tmp_path / "short").write_bytes(blob[:-3])
    with pytest.raises(ValueError, match=r"shape \(2, 5\) \(10 bytes\).*7 bytes"):
        data.read_idx(tmp_path / "short")


# --------------------------------------------------------------------- MNIST
@pytest.mark.parametrize("compress", [True, False])
def test_load_mnist_from_a_directory(tmp_path, compress):
    images, labels = write_mnist(tmp_path, "t10k", 7, compress)
    got_images, got_labels = data.load_mnist("t10k", data_dir=tmp_path)
    np.testing.assert_array_equal(got_images, images)
    np.testing.assert_array_equal(got_labels, labels)
    assert data.mnist_available(tmp_path, "t10k")
    assert not data.mnist_available(tmp_path, "train")


def test_load_mnist_names_the_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte.gz"):
        data.load_mnist("train", data_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown MNIST split 'test'"):
        data.load_mnist("test", data_dir=tmp_path)


def test_load_mnist_rejects_images_and_labels_of_different_lengths(tmp_path):
    write_mnist(tmp_path, "t10k", 4)
    _, (labels_name, _) = data.MNIST_FILES["t10k"]
    (tmp_path / labels_name).write_bytes(
        gzip.compress(idx_bytes(np.zeros(3, np.uint8)))
    )
    with pytest.raises(ValueError, match="4 images but 3 labels"):
        data.load_mnist("t10k", data_dir=tmp_path)


def test_load_mnist_downloads_into_the_cache_with_checksums(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    images, labels = write_mnist(mirror, "train", 5)
    files = {
        "train": tuple(
            (name, md5((mirror / name).read_bytes()))
            for name, _ in data.MNIST_FILES["train"]
        )
    }
    monkeypatch.setattr(data, "MNIST_FILES", files)
    monkeypatch.setattr(
        data, "MNIST_MIRRORS", ("file:///nowhere/", mirror.as_uri() + "/")
    )
    cache = tmp_path / "cache"
    got_images, got_labels = data.load_mnist("train", cache_dir=cache)
    np.testing.assert_array_equal(got_images, images)
    np.testing.assert_array_equal(got_labels, labels)
    assert sorted(p.name for p in (cache / "mnist").iterdir()) == sorted(
        name for name, _ in files["train"]
    )


# ------------------------------------------------------------------ download
def test_download_checks_the_checksum_and_keeps_nothing_broken(tmp_path):
    source = tmp_path / "source.bin"
    source.write_bytes(b"kindling")
    target = tmp_path / "cache" / "file.bin"
    with pytest.raises(OSError, match="could not download file.bin .*checksum"):
        data.download(source.as_uri(), target, md5=md5(b"something else"))
    assert not target.exists()
    assert list(target.parent.iterdir()) == []  # no .part file left behind
    assert data.download(source.as_uri(), target, md5(b"kindling")) == target
    assert target.read_bytes() == b"kindling"


def test_download_uses_the_cache_and_replaces_a_corrupt_copy(tmp_path):
    source = tmp_path / "source.bin"
    source.write_bytes(b"fresh")
    target = tmp_path / "file.bin"
    target.write_bytes(b"fresh")
    # A cached file with the right checksum is used as it is: the URL is not read.
    assert data.download("file:///does/not/exist", target, md5(b"fresh")) == target
    target.write_bytes(b"corrupt")
    data.download(source.as_uri(), target, md5(b"fresh"))
    assert target.read_bytes() == b"fresh"


def test_download_failure_names_every_url(tmp_path):
    with pytest.raises(OSError, match="could not download x.bin.*--data-dir"):
        data.download(["file:///no/such/a", "file:///no/such/b"], tmp_path / "x.bin")


def test_default_cache_dir_honours_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("KINDLING_DATA", str(tmp_path))
    assert data.default_cache_dir() == tmp_path
    monkeypatch.delenv("KINDLING_DATA")
    assert data.default_cache_dir() == Path.home() / ".cache" / "kindling"


# --------------------------------------------------------------------- SST-2
def test_read_sst2_tsv(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("sentence\tlabel\nit 's a charming journey . \t1\ndull \t0\n\n")
    sentences, labels = data.read_sst2_tsv(path)
    assert sentences == ["it 's a charming journey . ", "dull "]
    np.testing.assert_array_equal(labels, [1, 0])


def test_read_sst2_tsv_follows_the_header_order(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("label\tsentence\n0\tbad\n1\tgood\n")
    assert data.read_sst2_tsv(path)[0] == ["bad", "good"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("index\tsentence\n0\tno labels\n", "must name 'sentence' and 'label'"),
        ("sentence\tlabel\ngood\t2\n", r":2: label must be 0 or 1, got '2'"),
        ("sentence\tlabel\nok\t1\ntoo\tmany\t1\n", r":3: expected 2 tab-separated"),
    ],
)
def test_read_sst2_tsv_rejects_malformed_files(tmp_path, text, message):
    path = tmp_path / "bad.tsv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        data.read_sst2_tsv(path)


def test_load_sst2_from_a_directory(tmp_path):
    (tmp_path / "train.tsv").write_text("sentence\tlabel\na\t1\nb\t0\n")
    (tmp_path / "test.tsv").write_text("sentence\tlabel\nc\t0\n")
    splits = data.load_sst2(tmp_path)
    assert sorted(splits) == ["test", "train"]
    assert splits["test"][0] == ["c"]
    (tmp_path / "dev.tsv").write_text("sentence\tlabel\nd\t1\n")
    assert data.load_sst2(tmp_path)["dev"][0] == ["d"]
    (tmp_path / "test.tsv").unlink()
    with pytest.raises(FileNotFoundError, match="test.tsv is missing"):
        data.load_sst2(tmp_path)


def test_load_sst2_downloads_glue_and_uses_its_dev_set_as_test(tmp_path, monkeypatch):
    archive = tmp_path / "SST-2.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("SST-2/train.tsv", "sentence\tlabel\nfine film\t1\n")
        bundle.writestr("SST-2/dev.tsv", "sentence\tlabel\na mess\t0\n")
        bundle.writestr("SST-2/test.tsv", "index\tsentence\n0\tunlabelled\n")
    monkeypatch.setattr(data, "SST2_URL", archive.as_uri())
    monkeypatch.setattr(data, "SST2_MD5", md5(archive.read_bytes()))
    splits = data.load_sst2(cache_dir=tmp_path / "cache")
    assert splits["train"][0] == ["fine film"]
    assert splits["test"][0] == ["a mess"]
    assert "dev" not in splits


# ---------------------------------------------------------------------- text
def test_tokenize_lowers_and_splits_punctuation():
    assert data.tokenize("It's a GREAT, great film!") == [
        "it's",
        "a",
        "great",
        ",",
        "great",
        "film",
        "!",
    ]
    assert data.tokenize("it 's not  bad . ") == ["it", "'s", "not", "bad", "."]


def test_vocabulary_orders_by_frequency_and_maps_unknowns():
    vocab = data.Vocabulary.build([["b", "a", "b"], ["c", "b", "a"]], min_freq=2)
    assert vocab.itos == ["<pad>", "<unk>", "b", "a"]
    assert len(vocab) == 4 and "a" in vocab.stoi and "c" not in vocab.stoi
    assert vocab.encode(["a", "c", "b"]) == [3, 1, 2]


def test_vocabulary_pads_to_the_longest_row_at_least_min_length():
    vocab = data.Vocabulary()
    np.testing.assert_array_equal(
        vocab.pad([[5, 6], [7]], min_length=3), [[5, 6, 0], [7, 0, 0]]
    )
    np.testing.assert_array_equal(
        vocab.pad([[5, 6, 7, 8], [9]]), [[5, 6, 7, 8], [9, 0, 0, 0]]
    )


def test_read_embeddings(tmp_path):
    vocab = data.Vocabulary(["good", "bad", "meh"])
    path = tmp_path / "glove.txt"
    path.write_text("good 1.0 2.0 3.0\nother 0 0 0\nbad -1 -2 -3.5\n")
    table, found = data.read_embeddings(path, vocab)
    assert table.shape == (5, 3) and found == 2
    np.testing.assert_array_equal(table[0], 0.0)  # <pad>
    np.testing.assert_array_equal(table[vocab.stoi["good"]], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(table[vocab.stoi["bad"]], [-1.0, -2.0, -3.5])
    assert np.all(np.abs(table[vocab.stoi["meh"]]) < 1.0)
    path.write_text("good 1 2 3\nbad 1 2\n")
    with pytest.raises(ValueError, match=r":2: 2 numbers, expected 3"):
        data.read_embeddings(path, vocab)
