"""The public names and signatures of the API contract (docs/api.md)."""
import inspect

import pytest

import attnlab
import attnlab as al

CONTRACT = {
    "default_device": [],
    "causal_mask": ["num_queries", "num_keys", "*device"],
    "sequence_mask": ["valid_lens", "num_keys"],
    "masked_softmax": ["scores", "mask", "*temperature"],
    "dot_scores": ["queries", "keys"],
    "scaled_dot_scores": ["queries", "keys"],
    "cosine_scores": ["queries", "keys"],
    "gaussian_scores": ["queries", "keys", "sigma"],
    "AdditiveScores": ["query_size", "key_size", "num_hiddens"],
    "nadaraya_watson": ["x_queries", "x_keys", "y_values", "sigma"],
    "scaled_dot_product_attention": ["queries", "keys", "values", "mask", "*valid_lens", "*causal",
                                     "*temperature", "*scale", "*dropout", "*generator", "*need_weights"],
    "DotProductAttention": ["dropout"],
    "AdditiveAttention": ["key_size", "query_size", "num_hiddens", "dropout"],
    "MultiHeadAttention": ["key_size", "query_size", "value_size", "num_hiddens", "num_heads", "dropout", "bias"],
    "split_heads": ["X", "num_heads"],
    "merge_heads": ["X"],
    "sinusoidal_encoding": ["num_steps", "num_hiddens", "base"],
    "PositionalEncoding": ["num_hiddens", "dropout", "max_len"],
    "tiled_attention": ["queries", "keys", "values", "mask", "*causal", "*block_size"],
    "local_mask": ["num_queries", "num_keys", "window"],
    "linear_attention": ["queries", "keys", "values", "*feature_map"],
}


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_contract_names_and_parameters(name):
    assert name in al.__all__
    params = inspect.signature(getattr(al, name)).parameters
    for p in CONTRACT[name]:
        keyword_only = p.startswith("*")
        p = p.lstrip("*")
        assert p in params, f"{name}: missing parameter {p}"
        assert (params[p].kind == inspect.Parameter.KEYWORD_ONLY) == keyword_only, f"{name}: {p} kind"
    positional = [p for p, v in params.items() if v.kind != inspect.Parameter.KEYWORD_ONLY]
    assert positional[:len([p for p in CONTRACT[name] if not p.startswith("*")])] == \
        [p for p in CONTRACT[name] if not p.startswith("*")], f"{name}: positional order"


def test_module_forward_signatures():
    mha = inspect.signature(al.MultiHeadAttention.forward).parameters
    assert list(mha)[:5] == ["self", "queries", "keys", "values", "valid_lens"]
    assert all(mha[p].kind == inspect.Parameter.KEYWORD_ONLY for p in ("mask", "causal", "temperature"))
    for cls in (al.DotProductAttention, al.AdditiveAttention):
        assert list(inspect.signature(cls.forward).parameters) == ["self", "queries", "keys", "values", "valid_lens"]


def test_defaults():
    sig = inspect.signature(al.scaled_dot_product_attention).parameters
    assert (sig["temperature"].default, sig["scale"].default, sig["dropout"].default,
            sig["need_weights"].default, sig["causal"].default) == (1.0, None, 0.0, True, False)
    assert inspect.signature(al.sinusoidal_encoding).parameters["base"].default == 10000.0
    assert inspect.signature(al.tiled_attention).parameters["block_size"].default == 128
    assert inspect.signature(al.MultiHeadAttention).parameters["bias"].default is False
    assert inspect.signature(al.PositionalEncoding).parameters["max_len"].default == 1000


MODULES = {"checks": "core", "masking": "core", "scoring": "core", "attention": "core", "multihead": "core",
           "positional": "core", "efficient": "core", "transformer": "core", "data": "core",
           "plotting": "ui", "panels": "ui", "selfcheck": "ui", "trainer": "ui", "fonts": "ui"}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_has_one_path(name):
    """The layers are folders (attnlab/core/, attnlab/ui/) and a module is imported by its path there
    (docs/api.md lists the public ones); no alias at the top (``attnlab.plotting``) stands in for it."""
    import importlib
    module = importlib.import_module(f"attnlab.{MODULES[name]}.{name}")
    assert module.__name__ == module.__spec__.name == f"attnlab.{MODULES[name]}.{name}"
    with pytest.raises(ModuleNotFoundError, match=f"No module named 'attnlab.{name}'"):
        importlib.import_module(f"attnlab.{name}")
    assert not hasattr(attnlab, name)


def test_import_attnlab_needs_no_matplotlib_and_an_unknown_name_is_an_attribute_error():
    import subprocess
    import sys
    code = ("import sys, attnlab; assert 'matplotlib' not in sys.modules and 'ipywidgets' not in sys.modules\n"
            "try:\n    attnlab.nothing_here\nexcept AttributeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "module 'attnlab' has no attribute 'nothing_here'"
