"""Loaders for the real data sets of Task 4.5: MNIST, SST-2, GloVe (not a task).

Everything here is plumbing, written with NumPy and the standard library:

* :func:`download` fetches a file into a cache directory and checks its MD5, so a
  truncated or tampered download is caught before training on it;
* :func:`read_idx` reads the IDX format of MNIST (gzip-compressed or not);
* :func:`read_sst2_tsv` reads GLUE-style ``sentence<TAB>label`` files;
* :func:`tokenize` and :class:`Vocabulary` turn sentences into rows of word ids;
* :func:`read_embeddings` reads a GloVe-style text file of word vectors.

The cache directory is ``$KINDLING_DATA`` if set, otherwise ``~/.cache/kindling``.
Tests never touch the network: they exercise these functions on tiny files they
write themselves (and on ``file://`` URLs for the downloader).
"""

from __future__ import annotations

import collections
import gzip
import hashlib
import os
import re
import shutil
import sys
import tempfile
import urllib.request
import zipfile
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np
from module0_fundamentals._exports import defined_here

PathLike = Union[str, Path]


# ------------------------------------------------------------------ download
def default_cache_dir() -> Path:
    """``$KINDLING_DATA`` if set, else ``~/.cache/kindling``."""
    return Path(os.environ.get("KINDLING_DATA") or Path.home() / ".cache" / "kindling")


def md5sum(path: PathLike) -> str:
    """The hex MD5 digest of a file (the data sets' files fit in memory)."""
    return hashlib.md5(Path(path).read_bytes()).hexdigest()


def download(
    urls: Union[str, Sequence[str]], path: PathLike, md5: Optional[str] = None
) -> Path:
    """Fetch ``path`` from the first URL that works, unless it is already there.

    A file already at ``path`` with the right checksum is kept (the cache). A
    download is written to a temporary file and moved into place only once its MD5
    matches, so an interrupted run never leaves a broken file in the cache.

    Raises:
        OSError: no URL gave a file with the right checksum (the message lists
            why for each).
    """
    path = Path(path)
    if path.exists() and (md5 is None or md5sum(path) == md5):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    failures: List[str] = []
    for url in [urls] if isinstance(urls, str) else urls:
        out = tempfile.NamedTemporaryFile(dir=path.parent, suffix=".part", delete=False)
        tmp = Path(out.name)
        try:
            print(f"downloading {url} -> {path}", file=sys.stderr)
            with out, urllib.request.urlopen(url, timeout=60) as response:
                shutil.copyfileobj(response, out)
            got = md5sum(tmp)
            if md5 is None or got == md5:
                return tmp.replace(path)
            failures.append(f"{url}: checksum {got}, expected {md5}")
        except OSError as error:  # URLError is an OSError
            failures.append(f"{url}: {error}")
        finally:
            tmp.unlink(missing_ok=True)
    raise OSError(
        f"could not download {path.name} ({'; '.join(failures)}); download it by "
        f"hand into {path.parent} or pass --data-dir"
    )


# ----------------------------------------------------------------------- IDX
# The IDX format: two zero bytes, a type code (0x08: unsigned bytes, the one MNIST
# uses), the number of dimensions, then one big-endian uint32 per dimension, then
# the data in C order.
def read_idx(path: PathLike) -> np.ndarray:
    """Read an IDX file of unsigned bytes (``.gz`` or not, told apart by its first
    bytes), as MNIST's: a uint8 array of shape ``(n, 28, 28)`` for images,
    ``(n,)`` for labels.
    """
    raw = Path(path).read_bytes()
    raw = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw  # (gzip's magic)
    if len(raw) < 4 or raw[:3] != b"\x00\x00\x08":
        raise ValueError(
            f"{path}: not an IDX file of unsigned bytes (magic number {raw[:4]!r})"
        )
    header = 4 + 4 * raw[3]
    if len(raw) < header:
        raise ValueError(f"{path}: truncated IDX header")
    shape = tuple(int(n) for n in np.frombuffer(raw[4:header], dtype=">u4"))
    expected = int(np.prod(shape, dtype=np.int64))
    if len(raw) - header != expected:
        raise ValueError(
            f"{path}: IDX header says shape {shape} ({expected} bytes) but the file "
            f"holds {len(raw) - header} bytes of data"
        )
    return np.frombuffer(raw[header:], dtype=np.uint8).reshape(shape).copy()


# --------------------------------------------------------------------- MNIST
MNIST_MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "http://yann.lecun.com/exdb/mnist/",
)
# split -> ((images file, md5), (labels file, md5)): the canonical checksums.
MNIST_FILES: Dict[str, Tuple[Tuple[str, str], Tuple[str, str]]] = {
    "train": (
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
    ),
    "t10k": (
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ),
}


def _find(directory: Path, name: str) -> Optional[Path]:
    """``name`` or its uncompressed twin (``.gz`` dropped) in ``directory``."""
    twin = name[:-3] if name.endswith(".gz") else name + ".gz"
    return next((directory / n for n in (name, twin) if (directory / n).exists()), None)


def mnist_available(data_dir: PathLike, split: str) -> bool:
    """True when ``data_dir`` holds both IDX files of ``split``."""
    return all(_find(Path(data_dir), name) for name, _ in MNIST_FILES[split])


def load_mnist(
    split: str,
    data_dir: Optional[PathLike] = None,
    cache_dir: Optional[PathLike] = None,
) -> Tuple[np.ndarray, np.ndarray]:
    """Images ``(n, 28, 28)`` uint8 and labels ``(n,)`` of an MNIST split.

    ``split`` is ``"train"`` (60,000) or ``"t10k"`` (10,000). With ``data_dir`` the
    IDX files are read from there (compressed or not) and nothing is downloaded;
    otherwise they are downloaded into ``cache_dir/mnist`` with their checksums.
    """
    if split not in MNIST_FILES:
        raise ValueError(f"unknown MNIST split {split!r}; use 'train' or 't10k'")
    arrays = []
    for name, md5 in MNIST_FILES[split]:
        if data_dir is not None:
            found = _find(Path(data_dir), name)
            if found is None:
                raise FileNotFoundError(f"{name} is not in {data_dir}")
        else:
            target = Path(cache_dir or default_cache_dir()) / "mnist" / name
            found = download([m + name for m in MNIST_MIRRORS], target, md5)
        arrays.append(read_idx(found))
    images, labels = arrays
    if images.shape[0] != labels.shape[0]:
        raise ValueError(
            f"MNIST {split}: {images.shape[0]} images but {labels.shape[0]} labels"
        )
    return images, labels


# --------------------------------------------------------------------- SST-2
SST2_URL = "https://dl.fbaipublicfiles.com/glue/data/SST-2.zip"
SST2_MD5 = "9f81648d4199384278b86e315dac217c"


def read_sst2_tsv(path: PathLike) -> Tuple[List[str], np.ndarray]:
    """Sentences and 0/1 labels of a GLUE-style TSV file.

    The first line is a header naming the columns (``sentence`` and ``label``, in any
    order); fields are separated by tabs, with no quoting. ``1`` means positive.
    """
    sentences: List[str] = []
    labels: List[int] = []
    with open(path, encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        if "sentence" not in header or "label" not in header:
            raise ValueError(
                f"{path}: the header must name 'sentence' and 'label' columns, got "
                f"{header}"
            )
        s_col, l_col = header.index("sentence"), header.index("label")
        for number, line in enumerate(handle, start=2):
            fields = line.rstrip("\n").split("\t")
            if fields == [""]:  # an empty line
                continue
            if len(fields) != len(header):
                raise ValueError(
                    f"{path}:{number}: expected {len(header)} tab-separated fields, "
                    f"got {len(fields)}"
                )
            if fields[l_col] not in ("0", "1"):
                raise ValueError(
                    f"{path}:{number}: label must be 0 or 1, got {fields[l_col]!r}"
                )
            sentences.append(fields[s_col])
            labels.append(int(fields[l_col]))
    return sentences, np.array(labels, dtype=np.int64)


def load_sst2(
    data_dir: Optional[PathLike] = None, cache_dir: Optional[PathLike] = None
) -> Dict[str, Tuple[List[str], np.ndarray]]:
    """The SST-2 splits as ``{name: (sentences, labels)}``.

    With ``data_dir``: reads ``train.tsv`` and ``test.tsv`` (and ``dev.tsv`` when
    present). Without it: downloads GLUE's ``SST-2.zip`` (checksummed) into
    ``cache_dir/sst2`` and uses GLUE's labelled ``dev.tsv`` (872 sentences) as the
    test split, since GLUE's own test labels are not public.
    """
    if data_dir is None:
        root = Path(cache_dir or default_cache_dir()) / "sst2"
        if not (root / "train.tsv").exists() or not (root / "test.tsv").exists():
            archive = download(SST2_URL, root / "SST-2.zip", SST2_MD5)
            with zipfile.ZipFile(archive) as bundle:
                for inside, outside in (("train", "train"), ("dev", "test")):
                    tsv = bundle.read(f"SST-2/{inside}.tsv")  # (a few MB)
                    (root / f"{outside}.tsv").write_bytes(tsv)
        data_dir = root
    splits = {}
    for name in ("train", "dev", "test"):
        path = Path(data_dir) / f"{name}.tsv"
        if path.exists():
            splits[name] = read_sst2_tsv(path)
        elif name != "dev":
            raise FileNotFoundError(f"{path} is missing (need train.tsv and test.tsv)")
    return splits


# ------------------------------------------------------------------ text
def tokenize(text: str) -> List[str]:
    """Lower-case words and punctuation marks: ``"It's fun!" -> ["it's", "fun",
    "!"]``. SST-2 is already split this way (``it 's``), so this mostly lowers."""
    return re.findall(r"[\w']+|[^\w\s]", text.lower())


class Vocabulary:
    """A word <-> id table. Id 0 is padding (``<pad>``), id 1 unknown (``<unk>``).

    Build one from the training sentences only, so test words unseen in training
    map to ``<unk>`` exactly as they would for a deployed model.
    """

    PAD, UNK = "<pad>", "<unk>"

    def __init__(self, words: Iterable[str] = ()) -> None:
        # (dict.fromkeys: each word once, in order of first appearance)
        self.itos: List[str] = list(dict.fromkeys([self.PAD, self.UNK, *words]))
        self.stoi: Dict[str, int] = {word: i for i, word in enumerate(self.itos)}

    @classmethod
    def build(
        cls, sentences: Iterable[Sequence[str]], min_freq: int = 1
    ) -> "Vocabulary":
        """The words of tokenised ``sentences`` seen at least ``min_freq`` times,
        most frequent first (ties alphabetical)."""
        counts = collections.Counter(w for sentence in sentences for w in sentence)
        kept = [w for w, n in counts.items() if n >= min_freq]
        return cls(sorted(kept, key=lambda w: (-counts[w], w)))

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, tokens: Sequence[str]) -> List[int]:
        """Word ids, ``<unk>`` (1) for unknown words."""
        return [self.stoi.get(t, 1) for t in tokens]

    def pad(self, rows: Sequence[Sequence[int]], min_length: int = 1) -> np.ndarray:
        """Rows of ids as one ``(len(rows), length)`` int64 array, padded with 0:
        ``length`` is the longest row, at least ``min_length`` (a convolution needs
        an input as wide as its kernel)."""
        length = max([len(r) for r in rows] + [min_length])
        out = np.zeros((len(rows), length), dtype=np.int64)
        for i, row in enumerate(rows):
            out[i, : len(row)] = row
        return out


def read_embeddings(
    path: PathLike, vocab: Vocabulary, seed: int = 0
) -> Tuple[np.ndarray, int]:
    """A ``(len(vocab), dim)`` matrix from a GloVe-style text file, and the number
    of vocabulary words found in it.

    Each line is a word followed by its ``dim`` numbers, separated by spaces. Words
    of ``vocab`` absent from the file get small random vectors; ``<pad>`` gets 0.
    """
    vectors: Dict[int, np.ndarray] = {}
    dim = None
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            parts = line.rstrip().split(" ")
            if len(parts) < 2:
                continue
            dim = len(parts) - 1 if dim is None else dim
            if len(parts) - 1 != dim:
                raise ValueError(
                    f"{path}:{number}: {len(parts) - 1} numbers, expected {dim}"
                )
            if parts[0] in vocab.stoi:
                vectors[vocab.stoi[parts[0]]] = np.array(parts[1:], dtype=np.float64)
    if dim is None:
        raise ValueError(f"{path}: no word vectors found")
    table = np.random.default_rng(seed).normal(0.0, 0.1, size=(len(vocab), dim))
    table[0] = 0.0  # (then each vector found into its word's row; none: no rows)
    table[list(vectors)] = np.reshape(list(vectors.values()), (-1, dim))
    return table, len(vectors)


# (last: the names defined above)
__all__ = defined_here(
    globals(), "MNIST_MIRRORS", "MNIST_FILES", "SST2_URL", "SST2_MD5"
)
