"""default_device: cuda > mps > cpu, ATTNLAB_DEVICE overrides, bad values are reported."""
import pytest
import torch

import attnlab as al


def test_without_override_picks_what_is_available(monkeypatch):
    monkeypatch.delenv("ATTNLAB_DEVICE", raising=False)
    expected = "cuda" if torch.cuda.is_available() else (
        "mps" if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available() else "cpu")
    assert al.default_device().type == expected


def test_prefers_cuda_then_mps(monkeypatch):
    monkeypatch.delenv("ATTNLAB_DEVICE", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert al.default_device() == torch.device("cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert al.default_device() == torch.device("mps")
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert al.default_device() == torch.device("cpu")


def test_override(monkeypatch):
    monkeypatch.setenv("ATTNLAB_DEVICE", "cpu")
    assert al.default_device() == torch.device("cpu")


def test_empty_override_is_ignored(monkeypatch):
    monkeypatch.setenv("ATTNLAB_DEVICE", "")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert al.default_device() == torch.device("cpu")


@pytest.mark.parametrize("name,match", [
    ("gpu", r"ATTNLAB_DEVICE: expected a torch device such as 'cpu' or 'cuda:0', got 'gpu'"),
    ("cuda", r"ATTNLAB_DEVICE: expected an available device, got 'cuda' \(no CUDA here\)"),
    ("mps", r"ATTNLAB_DEVICE: expected an available device, got 'mps' \(no MPS here\)"),
    ("meta", r"ATTNLAB_DEVICE: expected a device that holds values such as 'cpu' or 'cuda', got 'meta' "
             r"\(meta tensors have shapes but no values\)"),
])
def test_bad_override(monkeypatch, name, match):
    monkeypatch.setenv("ATTNLAB_DEVICE", name)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    with pytest.raises(ValueError, match=match):
        al.default_device()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_override_when_available(monkeypatch):
    monkeypatch.setenv("ATTNLAB_DEVICE", "cuda:0")
    assert al.default_device() == torch.device("cuda:0")
